"""Helpers for WebSocket tests against a live app (starlette's TestClient).

:class:`Sock` records every payload a socket receives, as raw text, and never blocks for
ever: every read has a timeout, so a server that stays silent fails the test instead of
hanging it. :func:`seat_table` creates a room over HTTP and fills it with players;
``serverkit.app_and_lobby`` builds an app and also hands back the lobby (for its guess
limiter) and lets a test change the server settings (rate limits).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

WAIT = 10.0


class Sock:
    """One WebSocket session; ``texts`` holds every payload received, in order."""

    def __init__(self, session: Any, label: str = "") -> None:
        self.session = session
        self.label = label
        self.texts: list[str] = []
        self.state: dict[str, Any] | None = None  # the latest 'state' payload
        self.close_code: int | None = None

    def recv_text(self, timeout: float = WAIT) -> str:
        """The next payload as sent; raises WebSocketDisconnect when the server closed."""
        stream = self.session._send_rx

        async def receive() -> Any:
            with anyio.fail_after(timeout):
                return await stream.receive()

        try:
            message = self.session.portal.call(receive)
        except TimeoutError:
            raise AssertionError(
                f"{self.label}: nothing received in {timeout} s (last: {self.texts[-1:]})"
            ) from None
        if message["type"] == "websocket.close":
            self.close_code = message.get("code", 1000)
            raise WebSocketDisconnect(code=self.close_code)
        text: str = message["text"]
        self.texts.append(text)
        return text

    def recv(self, timeout: float = WAIT) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.recv_text(timeout))
        if data.get("type") == "state":
            self.state = data
        return data

    def waiting(self) -> int:
        """How many payloads have arrived and not been read yet."""
        stream = self.session._send_rx
        count: int = self.session.portal.call(lambda: stream.statistics().current_buffer_used)
        return count

    def send(self, message: Any) -> None:
        """A dict goes as JSON text, a str as text, bytes as a binary frame."""
        if isinstance(message, bytes):
            self.session.send_bytes(message)
        elif isinstance(message, str):
            self.session.send_text(message)
        else:
            self.session.send_text(json.dumps(message))

    def until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = WAIT
    ) -> dict[str, Any]:
        """Read payloads until one satisfies ``predicate``; return it."""
        while True:
            data = self.recv(timeout)
            if predicate(data):
                return data

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = WAIT
    ) -> dict[str, Any]:
        """The latest state if it satisfies ``predicate``, else the next state that does."""
        if self.state is not None and predicate(self.state):
            return self.state
        return self.until(lambda m: m["type"] == "state" and predicate(m), timeout)

    def settle(self, version: int) -> dict[str, Any]:
        """The first state at ``version`` or later in which nothing is left to happen at
        once (see :func:`settled`)."""
        return self.wait_for(lambda m: settled(m, version))

    def reply_to(self, message: Any, timeout: float = WAIT) -> dict[str, Any]:
        """Send ``message`` and return the first ack, error or pong that follows."""
        self.send(message)
        return self.until(lambda m: m["type"] in ("ack", "error", "pong"), timeout)

    def ping(self) -> int:
        """Ping and wait for the pong (every earlier message of this socket is handled by
        then); returns the room's version."""
        pong = self.reply_to({"type": "ping"})
        assert pong["type"] == "pong", pong
        version: int = pong["version"]
        return version

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.session.__exit__(None, None, None)


@contextlib.contextmanager
def connect(
    client: TestClient, code: str, token: str | None = None, label: str = ""
) -> Iterator[Sock]:
    """A socket on room ``code`` (a seat's with ``token``, else a spectator's) whose first
    payload (the room's state, or the refusal) has been read."""
    url = f"/ws/{code}" + (f"?token={token}" if token is not None else "")
    with client.websocket_connect(url) as session:
        sock = Sock(session, label or (f"token {token[:6]}" if token else "spectator"))
        sock.recv()
        yield sock


@dataclass
class Table:
    """A room created over HTTP: its code and every human seat's token."""

    code: str
    tokens: dict[int, str] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)


def seat_table(
    client: TestClient,
    seats: int,
    *,
    rules: dict[str, Any] | None = None,
    bots: list[str | None] | None = None,
    humans: int | None = None,
    timer: int = 0,
    public: bool = False,
) -> Table:
    """Create a room with ``seats`` seats (bots where ``bots`` says) and join humans into
    the open seats: all of them, or the first ``humans`` (host included)."""
    response = client.post(
        "/api/rooms",
        json={
            "name": "Host",
            "seats": seats,
            "rules": rules or {"preset": "perudo"},
            "bots": bots or [],
            "timer": timer,
            "public": public,
        },
    )
    assert response.status_code == 201, response.text
    body = response.json()
    table = Table(body["code"], {0: body["token"]}, {0: body["name"]})
    wanted = seats if humans is None else humans
    open_seats = [i for i in range(1, seats) if not (bots and i < len(bots) and bots[i])]
    for number in open_seats[: max(0, wanted - 1)]:
        joined = client.post(f"/api/rooms/{table.code}/join", json={"name": f"P{number}"})
        assert joined.status_code == 200, joined.text
        data = joined.json()
        table.tokens[data["seat"]] = data["token"]
        table.names[data["seat"]] = data["name"]
    return table


def bidding(state: dict[str, Any]) -> bool:
    """A state in which a round is being bid."""
    return (
        state["type"] == "state"
        and state["game"] is not None
        and state["game"]["phase"] == "bidding"
    )


def settled(state: dict[str, Any] | None, version: int) -> bool:
    """Whether ``state`` is at least ``version`` and shows nothing left to happen at once:
    a round being bid, or no game being played."""
    if state is None or state["version"] < version:
        return False
    return state["room"]["status"] != "playing" or bidding(state)


def legal_bid(state: dict[str, Any]) -> dict[str, Any] | None:
    """The lowest legal bid in a state payload, as message fields, or None."""
    bids = state["game"]["legal"]["bids"]
    if not bids:
        return None
    quantity, face = bids[0]
    return {"quantity": quantity, "face": face}
