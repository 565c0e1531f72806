"""A Python client for the dudo server: for programs, tests, load tests and bots.

Sit a program in a seat in a few lines::

    import asyncio
    from dudo.client import Client
    from dudo.bots import make_bot

    async def main():
        async with Client("http://localhost:8000") as client:
            seat = await client.create_room("Robo", seats=2, bots=[None, "normal"])
            async with client.table(seat) as table:
                await table.start()
                print(f"room {seat.code}: playing to the end (a few minutes)...")
                winners = await table.play(make_bot("hard"))   # until the game ends
                print("winners:", ", ".join(table.names[s] for s in winners))
                print("game id:", table.game_id, "(dudo verify / dudo analyze its record)")

    asyncio.run(main())

:meth:`Table.play` hands the bot a :class:`~dudo.view.SeatView` rebuilt from the server's
state, exactly what a bot gets inside the server, and sends its answer with a fresh id.
Every message sent carries an id, so a retry after a dropped connection is applied once.
A message the room refuses (:meth:`Table.request` and the methods on it: ``bid``, ``call``,
``start``...) raises :class:`Refused` with the server's code and message.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import websockets
from websockets.exceptions import ConnectionClosed

from dudo.bids import Bid
from dudo.bots.base import Bot
from dudo.bots.table import bot_raised, check_answer
from dudo.game import Call
from dudo.hands import Hand
from dudo.rules import Rules
from dudo.view import SeatView


def new_profile_secret() -> str:
    """A profile secret as a browser makes it: 32 random bytes in hex. Keep it: it is the
    profile (the server stores only its hash)."""
    return secrets.token_hex(32)


class ClientError(RuntimeError):
    """The server refused a request; ``code`` is its machine-readable reason and
    ``message`` its words."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Refused(ClientError):
    """The room answered a message of :meth:`Table.request` (a bid, a call, ``start``...)
    or an action :meth:`Table.play` sent for its bot with an ``error``: ``code`` is the
    server's code (``not_your_turn``, ``not_a_raise``, ``stale``, ``bad_message``...:
    docs/protocol.md, "Error codes"), ``message`` its words, ``reply`` the whole error
    message and ``sent`` the message refused. ``context`` goes before the words in the
    exception's text (``str``) only: :meth:`Table.play` names the room and the action."""

    def __init__(self, reply: dict[str, Any], sent: dict[str, Any], context: str = "") -> None:
        super().__init__(str(reply.get("code") or "error"), str(reply.get("message") or ""))
        self.reply = reply
        self.sent = sent
        if context:
            self.args = (f"{self.code}: {context}{self.message}",)


class Unreachable(ClientError):
    """The server could not be reached, or answered with something that is not dudo's
    JSON (a proxy's error page, another program on that port); the message names the
    address. ``code`` is ``unreachable`` or ``http_<status>``."""


class ConnectionLost(ClientError, ConnectionClosed):
    """The table's WebSocket closed: the server refused or replaced this seat, the room
    moved, the server went away, or this program closed it. ``code`` is the server's error
    code (``replaced``, ``removed``, ``moved``...) or ``connection_lost``;
    ``close_code`` is the WebSocket close code (4409...; 1006 when the connection just
    dropped). Still a ``websockets`` ``ConnectionClosed``, so code catching that works."""

    code: str = ""  # type: ignore[assignment]  # shadows ConnectionClosed.code (deprecated)

    def __init__(self, code: str, message: str, closed: ConnectionClosed) -> None:
        ClientError.__init__(self, code, message)
        ConnectionClosed.__init__(self, closed.rcvd, closed.sent, closed.rcvd_then_sent)
        close = closed.rcvd or closed.sent
        self.close_code: int = close.code if close is not None else 1006
        self.text = f"{code}: {message}"

    def __str__(self) -> str:
        return self.text


class PlayTimeout(TimeoutError):
    """:meth:`Table.play` ran out of time; the message says what it was waiting for.

    A :class:`TimeoutError`, so code that catches that still catches it."""


@dataclass(frozen=True, slots=True)
class SeatTicket:
    """What joining gives: the room code, the seat, and the seat's secret token (kept out
    of the ticket's ``repr``, so that printing or logging a ticket does not give the seat
    away)."""

    code: str
    seat: int
    token: str = field(repr=False)
    name: str


UNPARSED = frozenset({"bad_json", "bad_message", "bad_version", "unknown_type", "too_large"})
"""Error codes of messages the server could not parse (the message never reached the
room): their refusals carry the message's id only when it could be read (docs/protocol.md,
``error``), so :meth:`Table.request` takes an id-less one as its answer too."""

NOT_CLOSING = UNPARSED - {"too_large"} | {"rate_limited", None}
"""Id-less errors after which the socket stays open: not the reason for a close."""

RECONNECT_CLOSES = frozenset({1001, 1006, 1011, 1012, 1013, 1014, 4412})
"""Close codes after which :meth:`Table.play` connects again: the server went away,
restarts or is overloaded, the network dropped, or the room moved to another node."""


class Client:
    """HTTP side of the protocol: create, join, quick game; then :meth:`table` to play."""

    def __init__(self, base_url: str, timeout: float = 10.0, profile: str | None = None) -> None:
        """``profile``: this program's profile secret (64 hex digits, see
        :func:`new_profile_secret`); the seats it takes then count for that profile."""
        if not base_url.startswith(("http://", "https://")):
            # Without a scheme httpx and the WebSocket address built from it fail far from
            # here, with errors that do not say the address was the problem.
            raise ValueError(
                f"base_url must start with http:// or https:// (like http://localhost:8000), "
                f"not {base_url!r}"
            )
        host = urlsplit(base_url).netloc.rpartition("@")[2]
        if not host.strip() or host.startswith(":"):
            raise ValueError(
                f"base_url names no server: give its host, like http://localhost:8000, "
                f"not {base_url!r}"
            )
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.profile = profile
        # A random id of this client: the server's limit on unknown room codes counts it
        # apart from other clients behind the same address.
        self.http = httpx.AsyncClient(
            base_url=self.base_url, timeout=timeout, headers={"X-Dudo-Client": secrets.token_hex(8)}
        )

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.aclose()

    async def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return await self._answer("POST", path, body)

    async def _answer(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        """The server's JSON answer; a refusal raises :class:`ClientError` with the server's
        code and message, and no answer (or one that is not dudo's JSON) raises
        :class:`Unreachable` naming the address, never a bare httpx or JSON error."""
        address = f"{self.base_url}{path}"
        try:
            response = await self.http.request(method, path, json=body)
        except httpx.TimeoutException:
            raise Unreachable(
                "unreachable", f"{address} did not answer within {self.timeout:g} s"
            ) from None
        except httpx.HTTPError as error:
            reason = " ".join(str(error).split()) or type(error).__name__
            raise Unreachable("unreachable", f"cannot reach {address}: {reason}") from None
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            kind = response.headers.get("content-type", "no content type").split(";")[0]
            raise Unreachable(
                f"http_{response.status_code}",
                f"{address} answered HTTP {response.status_code} ({kind}), not dudo's "
                "JSON: is the address a dudo server?",
            )
        if response.status_code >= 400:
            raise ClientError(
                str(data.get("error", f"http_{response.status_code}")), str(data.get("message", ""))
            )
        return data

    async def create_room(
        self,
        name: str,
        *,
        rules: dict[str, Any] | None = None,
        seats: int = 4,
        bots: list[str | None] | None = None,
        timer: int = 0,
        public: bool = False,
        lang: str | None = None,
    ) -> SeatTicket:
        """A new room with this program in seat 0 (the host). ``lang`` (en, de, es) names
        its bots as a table in that language reads them ("Onkel Bo"); English if None."""
        data = await self._post(
            "/api/rooms",
            {
                "name": name,
                "rules": rules or {"preset": "perudo"},
                "seats": seats,
                "bots": bots or [],
                "timer": timer,
                "public": public,
                **({"lang": lang} if lang else {}),
                **self._profile(),
            },
        )
        return SeatTicket(data["code"], data["seat"], data["token"], data["name"])

    async def join(self, code: str, name: str, invite: str | None = None) -> SeatTicket:
        """A seat in the room ``code``. A locked room takes only a join that carries its
        ``invite`` key (the host's state has it in ``you.invite``); ``code`` may also be
        the link the host shares, ``http://HOST/r/CODE?invite=KEY``, which carries both."""
        code, invite = room_and_invite(code, invite)
        body = {"name": name, **({"invite": invite} if invite else {}), **self._profile()}
        data = await self._post(f"/api/rooms/{code}/join", body)
        return SeatTicket(data["code"], data["seat"], data["token"], data["name"])

    async def quick(
        self, name: str, rules: dict[str, Any] | None = None, lang: str | None = None
    ) -> SeatTicket:
        """A seat at a quick table playing ``rules`` (Perudo by default); a table it opens
        names its bots in ``lang`` (as :meth:`create_room`)."""
        body = {"name": name, **self._profile(), **({"rules": rules} if rules else {})}
        data = await self._post("/api/quick", {**body, **({"lang": lang} if lang else {})})
        return SeatTicket(data["code"], data["seat"], data["token"], data["name"])

    def _profile(self) -> dict[str, str]:
        return {"profile": self.profile} if self.profile else {}

    async def register_profile(self, name: str) -> dict[str, Any]:
        """Register this program's profile (once; again gives it back)."""
        if not self.profile:
            raise ClientError("no_profile", "make the Client with profile=new_profile_secret()")
        data = await self._post("/api/profile", {"secret": self.profile, "name": name})
        profile: dict[str, Any] = data["profile"]
        return profile

    async def my_profile(self) -> dict[str, Any]:
        """The profile, its rating and its stats (docs/protocol.md, "Profiles")."""
        if not self.profile:
            raise ClientError("no_profile", "make the Client with profile=new_profile_secret()")
        return await self._post("/api/profile/me", {"secret": self.profile})

    async def _get(self, path: str) -> dict[str, Any]:
        return await self._answer("GET", path, None)

    async def room(self, code: str) -> dict[str, Any]:
        """What anyone with the code may see of a room."""
        return await self._get(f"/api/rooms/{code}")

    async def game_record(self, game_id: str) -> dict[str, Any]:
        """A finished game's record (for ``dudo verify``)."""
        return await self._get(f"/api/games/{game_id}")

    def table(self, ticket: SeatTicket | None = None, code: str | None = None) -> Table:
        """A WebSocket connection to a seat (or, without a ticket, a spectator's place)."""
        ws_base = "ws" + self.base_url[len("http") :]
        room = ticket.code if ticket else code
        if room is None:
            raise ValueError("give a seat ticket, or a room code to watch")
        return Table(f"{ws_base}/ws/{room}", ticket)


def room_and_invite(code: str, invite: str | None) -> tuple[str, str | None]:
    """The room code and invite key of :meth:`Client.join`'s ``code``: a code as it is,
    or a room's link (``http://HOST/r/CODE?invite=KEY``, as the share panel gives it)
    taken apart. A key given besides a link's must be the same key."""
    if "/" not in code and "?" not in code:
        return code, invite
    parts = urlsplit(code)
    match = re.fullmatch(r"(?:.*/)?r/([^/?#]+)/?", parts.path)
    if match is None:
        raise ValueError(
            f"{code!r} is neither a room code nor a room's link like "
            "http://localhost:8000/r/ABCD?invite=KEY"
        )
    linked: str | None = next(iter(parse_qs(parts.query).get("invite", [])), None)
    if invite is not None and linked is not None and linked != invite:
        raise ValueError("the link carries another invite key than the one given: give one")
    return match.group(1), invite if invite is not None else linked


class Table:
    """One WebSocket to a room. ``state`` is always the latest state received."""

    def __init__(self, url: str, ticket: SeatTicket | None) -> None:
        self.url = url
        self.ticket = ticket
        self.socket: Any = None
        self.state: dict[str, Any] = {}
        self.received: list[dict[str, Any]] = []
        self.replies: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._sent: dict[str, dict[str, Any]] = {}
        self._prefix = secrets.token_hex(4)
        # Fair dice: the seed this seat sent for each (game, round), and every round whose
        # reveal showed another seed in this seat's place (the server did not use ours).
        self.seeds_sent: dict[tuple[str, int], str] = {}
        self.seed_mismatches: list[tuple[str, int]] = []
        self._seeds_pending: dict[str, tuple[tuple[str, int], str]] = {}  # by message id

    async def __aenter__(self) -> Table:
        await self.connect()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    async def connect(self) -> None:
        """Open the socket and take the first state; a refusal (``bad_token``,
        ``no_room``...) raises :class:`ConnectionLost` with the server's code, and a server
        that cannot be reached :class:`Unreachable` naming the address."""
        # The seat token travels as a subprotocol, never in the URL (which proxies log).
        offered = ["dudo.v1", *([f"token.{self.ticket.token}"] if self.ticket else [])]
        try:
            self.socket = await websockets.connect(self.url, max_size=2**22, subprotocols=offered)  # type: ignore[arg-type]
        except (OSError, TimeoutError, websockets.InvalidHandshake, websockets.InvalidURI) as error:
            reason = " ".join(str(error).split()) or type(error).__name__
            raise Unreachable("unreachable", f"cannot connect to {self.url}: {reason}") from None
        try:
            await self.receive()  # the first state (or the error that refuses us)
        except BaseException:
            await self.close()  # a refused socket is not left open behind the error
            raise

    async def close(self) -> None:
        if self.socket is not None:
            with contextlib.suppress(Exception):
                await self.socket.close()

    @property
    def room_code(self) -> str:
        """The code of the room this table is connected to (from its address)."""
        return self.url.rstrip("/").rpartition("/")[2]

    def _open_socket(self) -> Any:
        if self.socket is None:
            raise RuntimeError(
                "this Table is not connected: use `async with client.table(seat) as table:` "
                "or `await table.connect()` first"
            )
        return self.socket

    async def receive(self, timeout: float | None = 10.0) -> dict[str, Any]:
        """The next message; states update :attr:`state`, errors on connect raise.

        A closed socket raises :class:`ConnectionLost` (with the server's reason), and
        nothing within ``timeout`` seconds a :class:`TimeoutError` saying so."""
        socket = self._open_socket()
        try:
            text = await asyncio.wait_for(socket.recv(), timeout)
        except ConnectionClosed as closed:
            raise lost_connection(closed, self.room_code, self.received) from None
        except TimeoutError:
            raise TimeoutError(f"nothing from room {self.room_code} within {timeout:g} s") from None
        message: dict[str, Any] = json.loads(text)
        self.received.append(message)
        if message["type"] == "state":
            self.state = message
            self._check_our_seed(message)
        elif message["type"] in ("ack", "error") and "id" in message:
            self.replies[message["id"]] = message
            pending = self._seeds_pending.pop(message["id"], None)
            if pending is not None and message["type"] == "ack":
                self.seeds_sent[pending[0]] = pending[1]
        elif message["type"] == "error" and not self.state:
            raise ClientError(message.get("code", "error"), message.get("message", ""))
        return message

    async def wait_for(
        self, condition: Callable[[dict[str, Any]], bool], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Receive until the latest state satisfies ``condition``; returns that state."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not (self.state and condition(self.state)):
            try:
                await self.receive(max(0.01, end - loop.time()))
            except TimeoutError:
                raise TimeoutError(
                    f"room {self.room_code} sent no state that meets the condition within "
                    f"{timeout:g} s (the latest is version {self.state.get('version')})"
                ) from None
        return self.state

    def new_id(self) -> str:
        return f"{self._prefix}-{next(self._ids)}"

    async def send(self, message: dict[str, Any]) -> None:
        socket = self._open_socket()
        try:
            await socket.send(json.dumps(message))
        except ConnectionClosed as closed:
            raise lost_connection(closed, self.room_code, self.received) from None

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send a message with an id and wait for its answer: returns the ``ack``, and
        raises :class:`Refused` (a :class:`ClientError` with the server's ``code`` and
        ``message``) if the answer is an ``error``, so a refused bid or ``start`` is never
        taken for a success (catch it to go on: docs/protocol.md, "A program in a seat").

        A message the server cannot parse (a mistyped field, an unknown type) is refused
        without its id; that refusal is the answer too (raised at once, rather than a wait
        for an id that never comes back). No answer within ``timeout`` raises
        :class:`TimeoutError`."""
        message = {"id": self.new_id(), **message}
        await self.send(message)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while message["id"] not in self.replies:
            try:
                reply = await self.receive(max(0.01, end - loop.time()))
            except TimeoutError:
                raise TimeoutError(
                    f"room {self.room_code} did not answer {message.get('type')!r} "
                    f"(id {message['id']}) within {timeout:g} s"
                ) from None
            if reply["type"] == "error" and "id" not in reply and reply.get("code") in UNPARSED:
                raise Refused(reply, message)
        reply = self.replies[message["id"]]
        if reply["type"] == "error":
            raise Refused(reply, message)
        return reply

    async def bid(self, quantity: int | Hand, face: int | None = None) -> dict[str, Any]:
        """Bid ``quantity`` dice of ``face`` (``bid(4, 5)``) or, at a Common Hand table, a
        :class:`~dudo.hands.Hand`: ``bid(Hand.parse("pair of 3s"))`` sends its hand object."""
        return await self.request(bid_message(quantity, face))

    async def call(self, call: str) -> dict[str, Any]:
        return await self.request({"type": "call", "call": call})

    async def start(self) -> dict[str, Any]:
        return await self.request({"type": "start"})

    async def next_round(self) -> dict[str, Any]:
        return await self.request({"type": "next_round"})

    async def rematch(self) -> dict[str, Any]:
        return await self.request({"type": "rematch"})

    async def configure(self, **changes: Any) -> dict[str, Any]:
        return await self.request({"type": "configure", **changes})

    async def seed(
        self, seed: str | None = None, round_number: int | None = None
    ) -> dict[str, Any]:
        """Send this seat's seed for a round (by default the round waiting to be rolled)
        and wait for the answer: ``ack`` means it will be used for exactly that round."""
        return await self.request(self._seed_message(seed, round_number))

    def _seed_message(
        self, seed: str | None = None, round_number: int | None = None
    ) -> dict[str, Any]:
        """A seed message with a fresh id; its ``ack`` records the seed as ours for the
        round, to compare with what the reveal publishes."""
        fair = self.state.get("fair") or {}
        number: int = round_number or fair.get("round") or 1
        seed = seed or secrets.token_hex(16)
        message_id = self.new_id()
        self._seeds_pending[message_id] = ((fair.get("game_id", ""), number), seed)
        return {"id": message_id, "type": "seed", "round": number, "seed": seed}

    def _check_our_seed(self, state: dict[str, Any]) -> None:
        fair = state.get("fair") or {}
        revealed = fair.get("last_revealed")
        seat = (state.get("you") or {}).get("seat")
        if not revealed or seat is None:
            return
        key = (fair.get("game_id"), revealed.get("round"))
        sent = self.seeds_sent.pop(key, None)  # type: ignore[arg-type]
        if sent is not None and revealed["seat_seeds"][seat] != sent:
            self.seed_mismatches.append(key)  # type: ignore[arg-type]

    # -- playing with a bot --------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """The name at every seat of the room, by seat number (``""`` for an open seat)."""
        seats = (self.state.get("room") or {}).get("seats") or []
        return [(seat or {}).get("name") or "" for seat in seats]

    @property
    def game_id(self) -> str | None:
        """The id of the game being (or last) played here: its record is at
        ``GET /api/games/ID`` once it is over (:meth:`Client.game_record`)."""
        fair = self.state.get("fair") if self.state else None
        return (fair or {}).get("game_id") or None

    def view(self) -> SeatView | None:
        """The latest game state as a :class:`SeatView` (None before the game starts)."""
        game = self.state.get("game") if self.state else None
        if game is None:
            return None
        return SeatView.from_json(game, Rules.from_json(self.state["room"]["rules"]))

    async def play(
        self,
        bot: Bot,
        until_over: bool = True,
        timeout: float | None = None,
        idle: float | None = 300.0,
        reconnect: float = 60.0,
    ) -> list[int]:
        """Let ``bot`` play this seat until the game ends; returns the winners.

        Sends a fresh seed for every round that waits for one, answers only states it
        has not answered yet, and lets the server's pause after a reveal run its course.
        A bot that raises, or returns something its view does not offer, stops the game
        for this seat with a one-line :class:`~dudo.bots.table.BotError` naming the bot
        and its seat (the bot's own exception, if any, is its ``__cause__``).

        By default there is no limit on the whole game: a server paces games for people
        (8 s after each reveal, about a second before each bot's move), so a game takes
        minutes. ``idle`` is how long it waits for the next message from the server (the
        longest quiet spell of a paced game is about 10 s; people at the table may think
        longer, and with no turn timer as long as they like): ``None`` waits without
        limit. ``timeout`` limits the whole game. Either running out raises
        :class:`PlayTimeout` with one line saying what it was waiting for.

        A connection that drops, a server that restarts and a room that moves to another
        node (close 1001, 1006, 1011-1014, 4412) are met by connecting again for up to
        ``reconnect`` seconds and sending the unanswered action again with its id (applied
        at most once); after that, or when the server closed the seat for good (another
        socket took it, the host removed it), :class:`ConnectionLost` names the reason. An
        action the server refuses for any reason but a table that moved on meanwhile
        (``stale``) raises :class:`Refused` (a :class:`ClientError`) with the server's
        code and words, its whole ``reply`` and the action ``sent``; its text names the
        room and the action: waiting would only wait for a move that is never coming.

        The bot decides in a thread (:func:`asyncio.to_thread`), one decision at a time,
        while the seat goes on reading the room and answering the server's pings: a bot
        that thinks for a minute, or blocks in ``time.sleep``, keeps its connection.
        ``idle`` does not run while it thinks (the room is waiting for this seat);
        ``timeout`` does. An answer that comes back after the table moved on is sent
        with the version it was decided on, refused as ``stale``, and the bot is asked
        again about the table as it is.
        """
        answered = -1
        seeded_round = None
        loop = asyncio.get_running_loop()
        end = None if timeout is None else loop.time() + timeout
        thinking: asyncio.Future[Any] | None = None  # the bot's decision, in a thread
        asked: tuple[SeatView, int] | None = None  # the view it decides on, and its version
        try:
            while True:
                seen = self.view()
                if seen is not None:
                    fair = self.state.get("fair") or {}
                    waiting = (fair.get("game_id"), fair.get("round"))
                    if seen.phase == "roll" and fair.get("round") and waiting != seeded_round:
                        seeded_round = waiting
                        await self.send(self._seed_message())
                    if seen.phase == "over" and until_over:
                        return list(seen.winners)
                    version = self.state["version"]
                    if thinking is None and version != answered and seen.legal:
                        answered = version
                        asked = (seen, version)
                        thinking = asyncio.ensure_future(asyncio.to_thread(bot.act, seen))
                if thinking is not None and thinking.done():
                    assert asked is not None
                    action = self._answer_of(bot, asked[0], thinking)
                    thinking = None
                    if action is not None:  # sent even if the table moved on: then stale
                        await self._send_action(action, asked[1])
                    continue
                wait = idle if thinking is None else None  # the room waits for our bot
                if end is not None:
                    left = max(0.01, end - loop.time())
                    wait = left if wait is None else min(wait, left)
                try:
                    reply = await self._receive_unless(thinking, wait)
                except TimeoutError:
                    overall = end is not None and loop.time() >= end - 0.005
                    raise PlayTimeout(
                        timeout_message(
                            self, seen, timeout if overall else idle, overall, thinking is not None
                        )
                    ) from None
                except ConnectionLost as lost:
                    if lost.close_code not in RECONNECT_CLOSES:
                        raise
                    await self._reconnect(lost, reconnect)
                    continue
                if reply is not None:
                    await self._after_reply(reply)
        finally:
            if thinking is not None:  # its thread runs to its end; the answer is dropped
                thinking.cancel()

    async def _receive_unless(
        self, thinking: asyncio.Future[Any] | None, wait: float | None
    ) -> dict[str, Any] | None:
        """The next message, or None when the bot's decision comes first. The receive is
        cancelled then, which loses nothing: websockets keeps the message for the next."""
        if thinking is None:
            return await self.receive(wait)
        incoming = asyncio.ensure_future(self.receive(wait))
        try:
            await asyncio.wait({incoming, thinking}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not incoming.done():
                incoming.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await incoming
        return None if incoming.cancelled() else incoming.result()

    async def _after_reply(self, reply: dict[str, Any]) -> None:
        """What a message means for the action this seat sent: an error for it is sent
        again after the pause the server advises (``rate_limited``, ``unavailable``),
        ignored for ``stale`` (a new state follows) and otherwise :class:`Refused`."""
        retry = self._sent.get(reply.get("id", "")) if reply["type"] == "error" else None
        if retry is None:
            return
        if reply.get("code") in ("rate_limited", "unavailable"):
            # The server said slow down, or it cannot save games just now (nothing
            # changed): the same id again, after the pause it advises.
            await asyncio.sleep(float(reply.get("retry_after", 0.25)))
            await self.send(retry)
        elif reply.get("code") != "stale":
            # Every action carries the version it was decided on, so a table that moved
            # on is ``stale``; anything else means no move of ours is coming.
            raise Refused(
                reply,
                retry,
                f"room {self.room_code} refused this seat's {shown_action(retry)}: ",
            )

    async def _reconnect(self, lost: ConnectionLost, budget: float) -> None:
        """Connect again for up to ``budget`` seconds (pauses growing from a quarter of a
        second to 4 s) and resend the action not yet answered, with its id, so that it
        is applied once whether or not it arrived before the drop."""
        loop = asyncio.get_running_loop()
        end = loop.time() + budget
        pause = 0.25
        while True:
            try:
                await self.connect()
            except (Unreachable, ConnectionLost, ClientError) as error:
                transient = isinstance(error, Unreachable) or error.code == "moved"
                if isinstance(error, ConnectionLost):
                    transient = error.close_code in RECONNECT_CLOSES
                if not transient:
                    raise
                if loop.time() + pause > end:
                    raise ConnectionLost(
                        lost.code,
                        f"{lost.text.partition(': ')[2]}; connecting again for "
                        f"{budget:g} s did not work ({error})",
                        lost,
                    ) from None
                await asyncio.sleep(pause)
                pause = min(pause * 2, 4.0)
                continue
            pending = next(iter(self._sent.values()), None)
            if pending is not None and pending.get("version") == self.state.get("version"):
                await self.send(pending)
            return

    def _answer_of(self, bot: Bot, seen: SeatView, decided: asyncio.Future[Any]) -> Any:
        """The action the bot decided on ``seen`` (in its thread), checked against what
        the view offers; a bot that raised or answered what it may not: BotError."""
        seat = seen.seat if seen.seat is not None else -1
        try:
            answer = decided.result()
        except Exception as error:
            raise bot_raised(bot, seat, error) from error
        return check_answer(bot, seat, seen, answer, lambda action: None)

    async def _send_action(self, action: Any, version: int) -> None:
        message: dict[str, Any] = {"id": self.new_id(), "version": version}
        if isinstance(action, Call):
            message.update(type="call", call=action.value)
        else:  # a Bid, or at a Common Hand table a Hand
            message.update(bid_message(action))
        self._sent = {message["id"]: message}
        await self.send(message)


def bid_message(bid: Bid | Hand | int, face: int | None = None) -> dict[str, Any]:
    """A bid's message, without its id: a :class:`~dudo.bids.Bid` (or a quantity and a
    face) as both, and at a Common Hand table a hand as the hand object."""
    if isinstance(bid, Hand | Bid) != (face is None):
        raise TypeError(
            'a bid is bid(quantity, face) or bid(hand): bid(4, 5), bid(Hand.parse("pair of 3s"))'
        )
    if isinstance(bid, Hand):
        return {"type": "bid", "bid": bid.to_json()}
    if isinstance(bid, Bid):
        return {"type": "bid", "quantity": bid.quantity, "face": bid.face}
    return {"type": "bid", "quantity": bid, "face": face}


async def messages(table: Table) -> AsyncIterator[dict[str, Any]]:
    """Every message from a table, as they come."""
    while True:
        yield await table.receive(timeout=3600)


def timeout_message(
    table: Table,
    seen: SeatView | None,
    limit: float | None,
    overall: bool,
    thinking: bool = False,
) -> str:
    """For :meth:`Table.play`'s :class:`PlayTimeout`, one line: which limit ran out, in
    which room, and what the seat waited for (``thinking``: its own bot's decision)."""
    code = (table.state.get("room") or {}).get("code") if table.state else None
    room = f"room {code}" if code else "the room"
    if thinking:
        what = "this seat's bot to decide"
    elif seen is None:
        what = "the game to start"
    elif seen.phase == "roll":
        what = f"round {seen.round_number} to be rolled"
    elif seen.phase == "over":
        what = "the next game (the last one is over)"
    elif seen.turn is not None and seen.turn != seen.seat:
        names = table.names
        name = names[seen.turn] if seen.turn < len(names) and names[seen.turn] else ""
        who = f"{name} (seat {seen.turn})" if name else f"seat {seen.turn}"
        what = f"{who} to move in round {seen.round_number}"
    else:
        what = f"the server to go on with round {seen.round_number}"
    if overall:
        return (
            f"Table.play gave up after {limit:g} s (its timeout) in {room}, "
            f"waiting for {what}; timeout=None lets the game run to its end"
        )
    return (
        f"Table.play heard nothing from {room} for {limit:g} s while waiting for "
        f"{what}; idle=None waits without limit"
    )


def lost_connection(
    closed: ConnectionClosed, room_code: str, received: list[dict[str, Any]]
) -> ConnectionLost:
    """Why a table's socket closed, in one line: the error the server sent just before it
    closed (``replaced``, ``moved``...; ``received`` holds the messages read so far), else
    what the close frame says."""
    room = f"room {room_code}"
    close = closed.rcvd or closed.sent
    number = close.code if close is not None else 1006
    last = received[-1] if received else {}
    if closed.sent is not None and (closed.rcvd is None or closed.rcvd_then_sent is False):
        return ConnectionLost(
            "closed", f"the connection to {room} was closed by this program", closed
        )
    if last.get("type") == "error" and "id" not in last and last.get("code") not in NOT_CLOSING:
        return ConnectionLost(
            last["code"],
            f"{room} closed the connection ({number}): {last.get('message', '')}",
            closed,
        )
    if number == 4411:
        return ConnectionLost(
            "left", f"{room} closed the connection (4411): this seat left", closed
        )
    if closed.rcvd is None:
        return ConnectionLost(
            "connection_lost",
            f"the connection to {room} dropped (no close frame: the server went away or "
            "the network failed); connect again to carry on",
            closed,
        )
    reason = f": {closed.rcvd.reason}" if closed.rcvd.reason else ""
    return ConnectionLost(
        "connection_lost", f"{room} closed the connection ({number}){reason}", closed
    )


def shown_action(message: dict[str, Any]) -> str:
    """A bid or call message in a few words, for an error that names it."""
    if message.get("type") == "call":
        return f"call {message.get('call')}"
    if "bid" in message:
        return f"bid {json.dumps(message['bid'])}"
    return f"bid {message.get('quantity')}x{message.get('face')}"
