"""What a program using ``dudo.client`` sees when something goes wrong: one clear error
with the server's code (or the address that could not be reached), never a bare httpx,
JSON or websockets exception, and never a wait for an answer that is not coming."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from dudo.bids import Bid
from dudo.bots import make_bot
from dudo.bots.table import BotError
from dudo.client import (
    Client,
    ClientError,
    ConnectionLost,
    PlayTimeout,
    Refused,
    Table,
    Unreachable,
)
from dudo.game import Game
from dudo.rules import Rules
from dudo.view import SeatView, view
from serverkit import free_port, server_process, sqlite_url

# -- HTTP ------------------------------------------------------------------------------------


def test_a_base_url_without_a_scheme_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match=r"http:// or https://.*'localhost:8000'"):
        Client("localhost:8000")


@pytest.mark.parametrize("url", ["", " ", "http://", "https:// ", "http:///api"])
def test_a_base_url_without_a_host_is_refused_at_once(url: str) -> None:
    # "http://" failed at the first request as "cannot reach http:/api/rooms".
    with pytest.raises(ValueError, match=r"base_url .*like http://localhost:8000"):
        Client(url)


def test_a_server_that_is_not_there_is_unreachable_naming_the_address() -> None:
    port = free_port()

    async def run() -> None:
        async with Client(f"http://127.0.0.1:{port}") as client:
            await client.create_room("Robo")

    with pytest.raises(Unreachable) as caught:
        asyncio.run(run())
    assert caught.value.code == "unreachable"
    assert f"cannot reach http://127.0.0.1:{port}/api/rooms" in str(caught.value)
    assert isinstance(caught.value, ClientError)


def test_an_answer_that_is_not_dudos_json_says_so() -> None:
    # A proxy's error page, or another program on the port: not a JSONDecodeError.
    def proxy(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            502, text="<html>Bad Gateway</html>", headers={"content-type": "text/html"}
        )

    async def run() -> None:
        async with Client("http://dudo.example") as client:
            client.http = httpx.AsyncClient(
                base_url=client.base_url, transport=httpx.MockTransport(proxy)
            )
            await client.join("ABCD", "Robo")

    with pytest.raises(Unreachable) as caught:
        asyncio.run(run())
    assert caught.value.code == "http_502"
    assert str(caught.value) == (
        "http_502: http://dudo.example/api/rooms/ABCD/join answered HTTP 502 (text/html), "
        "not dudo's JSON: is the address a dudo server?"
    )


# -- the table's socket -----------------------------------------------------------------------


def test_a_table_used_before_it_connects_says_how_to_connect() -> None:
    table = Table("ws://127.0.0.1:1/ws/ABCD", None)
    with pytest.raises(RuntimeError, match=r"not connected: use `async with client.table"):
        asyncio.run(table.bid(2, 3))


def test_a_table_whose_server_is_not_there_is_unreachable() -> None:
    port = free_port()
    table = Table(f"ws://127.0.0.1:{port}/ws/ABCD", None)
    with pytest.raises(Unreachable, match=rf"cannot connect to ws://127.0.0.1:{port}/ws/ABCD"):
        asyncio.run(table.connect())


def test_refusals_and_closes_on_a_real_server_are_clear(tmp_path: Path) -> None:
    async def run(base: str) -> None:
        async with Client(base) as client:
            seat = await client.create_room("Robo", seats=2)
            async with client.table(seat) as table:
                # Refused without an id (the server could not parse it): that is the
                # answer, at once, not a 10-second wait and a bare TimeoutError.
                started = time.monotonic()
                with pytest.raises(Refused) as refused:
                    await table.call("junk")
                assert refused.value.code == "bad_message", refused.value.reply
                with pytest.raises(Refused) as refused:
                    await table.request({"type": "no_such_thing"})
                assert refused.value.code == "unknown_type", refused.value.reply
                assert time.monotonic() - started < 5
                # Four more sockets of the seat: the first is replaced, and says so.
                others = [client.table(seat) for _ in range(4)]
                for other in others:
                    await other.connect()
                with pytest.raises(ConnectionLost) as caught:
                    await table.wait_for(lambda state: False, timeout=10)
                assert caught.value.code == "replaced"
                assert caught.value.close_code == 4409
                assert str(caught.value).startswith(
                    f"replaced: room {seat.code} closed the connection (4409): "
                )
                assert isinstance(caught.value, ConnectionClosed)  # old handlers still work
                await others[0].close()
                with pytest.raises(ConnectionLost, match="closed by this program"):
                    await others[0].receive(timeout=5)
                for other in others[1:]:
                    await other.close()

    with server_process(sqlite_url(tmp_path)) as (base, _process):
        asyncio.run(run(base))


# -- Table.play against a scripted socket -----------------------------------------------------


def test_a_refused_request_raises_with_the_servers_code_and_message(tmp_path: Path) -> None:
    # request() and the methods on it (bid, call, start...) returned the error: a program
    # that did not look at reply["type"] took a refused move or start for one made.
    async def run(base: str) -> None:
        async with Client(base) as client:
            seat = await client.create_room("Robo", seats=2, bots=[None, "normal"])
            async with client.table(seat) as table:
                with pytest.raises(Refused) as refused:
                    await table.bid(2, 3)  # no game yet
                error = refused.value
                assert isinstance(error, ClientError)
                assert (error.code, error.reply["type"]) == ("not_now", "error")
                assert error.message and str(error) == f"not_now: {error.message}"
                assert error.sent["type"] == "bid" and error.sent["id"] == error.reply["id"]
                reply = await table.start()
                assert reply["type"] == "ack", reply  # an answer that is no error: returned
                with pytest.raises(Refused) as refused:
                    await table.start()
                assert refused.value.code == "not_now"
                with pytest.raises(Refused) as refused:
                    await table.seed("not hex")
                assert refused.value.code == "bad_seed"

    with server_process(sqlite_url(tmp_path)) as (base, _process):
        asyncio.run(run(base))


class Overbidding(Table):
    """A seat whose states offer its bot one bid more than the server would take: a bid
    of more 6s than there are dice, so the bot sends what the server refuses."""

    async def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        message = await super().receive(timeout)
        game = message.get("game") if message["type"] == "state" else None
        if game and game["legal"]["bids"]:
            game["legal"]["bids"].insert(0, [sum(game["dice_counts"]) + 1, 6])
        return message


def test_an_action_the_server_refuses_stops_play_with_refused(tmp_path: Path) -> None:
    # Table.play raised a plain ClientError, without the server's reply nor the message
    # refused, where Table.request raises Refused.
    async def run(base: str) -> None:
        async with Client(base) as client:
            rules = {"preset": "perudo", "first_opener": "host"}
            seat = await client.create_room("Robo", rules=rules, seats=2, bots=[None, "easy"])
            plain = client.table(seat)
            async with Overbidding(plain.url, plain.ticket) as table:
                await table.start()
                with pytest.raises(Refused) as refused:
                    await table.play(Opener(), idle=20)
        error = refused.value
        assert isinstance(error, ClientError)  # old handlers still catch it
        assert error.code == "over_cap" and error.reply["type"] == "error"
        assert error.message == error.reply["message"] and error.message
        assert error.sent["type"] == "bid" and error.sent["id"] == error.reply["id"]
        assert (error.sent["quantity"], error.sent["face"]) == (11, 6)
        assert str(error) == (
            f"over_cap: room {seat.code} refused this seat's bid 11x6: {error.message}"
        )

    with server_process(sqlite_url(tmp_path)) as (base, _process):
        asyncio.run(run(base))


class SpeakingNewer(Table):
    """A seat whose bids carry a field this server does not know (as a newer client's
    might): the server cannot parse them."""

    async def send(self, message: dict[str, Any]) -> None:
        if message.get("type") == "bid":
            message = {**message, "note": "from a newer client"}
        await super().send(message)


def test_an_action_the_server_cannot_parse_stops_play_at_once(tmp_path: Path) -> None:
    # The server's error to a message it could not parse carried no id, so Table.play
    # never matched it to its action and waited until ``idle`` ran out (PlayTimeout).
    async def run(base: str) -> None:
        async with Client(base) as client:
            rules = {"preset": "perudo", "first_opener": "host"}
            seat = await client.create_room("Robo", rules=rules, seats=2, bots=[None, "easy"])
            plain = client.table(seat)
            async with SpeakingNewer(plain.url, plain.ticket) as table:
                await table.start()
                with pytest.raises(Refused) as refused:
                    await table.play(Opener(), idle=30)
        error = refused.value
        assert error.code == "bad_message" and "note" in error.message
        assert error.sent["type"] == "bid" and error.reply["id"] == error.sent["id"]

    with server_process(sqlite_url(tmp_path)) as (base, _process):
        asyncio.run(run(base))


def my_turn_state(version: int) -> dict[str, Any]:
    """Room ABCD in round 1 with this seat (0) to open."""
    rules = Rules()
    game = Game(rules, 2, opener=0)
    game.roll()
    return {
        "type": "state",
        "version": version,
        "room": {
            "code": "ABCD",
            "rules": rules.to_json(),
            "seats": [{"name": "Robo"}, {"name": "Ana"}],
        },
        "game": view(game, 0).to_json(),
        "fair": {},
    }


class Answering:
    """A socket that sends one state, then answers each action with ``answer(message)``;
    after ``drops`` actions it closes as a dropped connection would."""

    def __init__(self, answer: Any, drop_after: int | None = None) -> None:
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.queue.put_nowait(json.dumps(my_turn_state(1)))
        self.answer = answer
        self.sent: list[dict[str, Any]] = []
        self.drop_after = drop_after

    async def recv(self) -> str:
        if self.drop_after is not None and len(self.sent) >= self.drop_after and self.queue.empty():
            raise ConnectionClosed(None, None)
        return await self.queue.get()

    async def send(self, text: str) -> None:
        message = json.loads(text)
        self.sent.append(message)
        for reply in self.answer(message):
            self.queue.put_nowait(json.dumps(reply))

    async def close(self) -> None:
        pass


class Opener:
    name = "Opener"

    def act(self, seen: SeatView) -> Bid | None:
        bid = seen.legal.bids[0]
        assert isinstance(bid, Bid)
        return bid


def test_an_action_the_server_refuses_stops_play_with_its_code() -> None:
    def refuse(message: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"type": "error", "code": "internal", "message": "a server bug", "id": message["id"]}
        ]

    table = Table("ws://nowhere/ws/ABCD", None)
    table.socket = Answering(refuse)
    with pytest.raises(Refused) as caught:
        asyncio.run(table.play(Opener(), idle=5))
    assert caught.value.code == "internal"
    assert str(caught.value).startswith("internal: room ABCD refused this seat's bid ")
    assert str(caught.value).endswith(": a server bug")


def test_a_stale_refusal_waits_for_the_new_state() -> None:
    def stale(message: dict[str, Any]) -> list[dict[str, Any]]:
        over = my_turn_state(2)
        over["game"].update(phase="over", turn=None, winners=[1], legal={"bids": [], "calls": []})
        return [{"type": "error", "code": "stale", "message": "", "id": message["id"]}, over]

    table = Table("ws://nowhere/ws/ABCD", None)
    table.socket = Answering(stale)
    assert asyncio.run(table.play(Opener(), idle=5)) == [1]


class SlowOpener:
    """Opens with the lowest bid; its first decision takes ``seconds``. It notes the
    version of the table it sees once each decision is made."""

    name = "SlowOpener"

    def __init__(self, table: Table, seconds: float) -> None:
        self.table, self.seconds = table, seconds
        self.versions_after: list[int] = []

    def act(self, seen: SeatView) -> Bid | None:
        if not self.versions_after:
            time.sleep(self.seconds)
        self.versions_after.append(self.table.state["version"])
        bid = seen.legal.bids[0]
        assert isinstance(bid, Bid)
        return bid


def test_a_decision_that_comes_back_after_the_table_moved_on_is_stale_and_asked_again() -> None:
    # While the bot thinks, the room moves on (version 2: a turn timer, another seat...).
    # The seat reads it meanwhile; the late answer goes out with version 1, comes back
    # stale, and the bot is asked again about version 2.
    def answer(message: dict[str, Any]) -> list[dict[str, Any]]:
        if message.get("version") == 1:
            return [{"type": "error", "code": "stale", "message": "", "id": message["id"]}]
        over = my_turn_state(3)
        over["game"].update(phase="over", turn=None, winners=[1], legal={"bids": [], "calls": []})
        return [over]

    table = Table("ws://nowhere/ws/ABCD", None)
    socket = Answering(answer)
    table.socket = socket
    bot = SlowOpener(table, seconds=0.6)

    async def run() -> list[int]:
        asyncio.get_running_loop().call_later(
            0.2, socket.queue.put_nowait, json.dumps(my_turn_state(2))
        )
        return await table.play(bot, idle=5)

    assert asyncio.run(run()) == [1]
    assert bot.versions_after == [2, 2]  # the table was read while the bot thought
    assert [message.get("version") for message in socket.sent] == [1, 2]


def over_after_any_action(message: dict[str, Any]) -> list[dict[str, Any]]:
    over = my_turn_state(2)
    over["game"].update(phase="over", turn=None, winners=[0], legal={"bids": [], "calls": []})
    return [over]


def test_idle_does_not_run_while_the_bot_thinks_but_timeout_does() -> None:
    # The room is waiting for this seat: a quiet socket then is no sign of trouble.
    table = Table("ws://nowhere/ws/ABCD", None)
    table.socket = Answering(over_after_any_action)
    assert asyncio.run(table.play(SlowOpener(table, seconds=0.5), idle=0.2)) == [0]
    table = Table("ws://nowhere/ws/ABCD", None)
    table.socket = Answering(over_after_any_action)
    with pytest.raises(PlayTimeout) as caught:
        asyncio.run(table.play(SlowOpener(table, seconds=1.0), timeout=0.3))
    assert str(caught.value) == (
        "Table.play gave up after 0.3 s (its timeout) in room ABCD, waiting for this "
        "seat's bot to decide; timeout=None lets the game run to its end"
    )


def test_a_bot_that_raises_in_its_thread_is_one_line_naming_it() -> None:
    class Broken:
        name = "Broken"

        def act(self, seen: SeatView) -> None:
            raise ZeroDivisionError("oops")

    table = Table("ws://nowhere/ws/ABCD", None)
    table.socket = Answering(lambda message: [])
    with pytest.raises(BotError) as caught:
        asyncio.run(table.play(Broken(), idle=5))  # type: ignore[arg-type]
    assert str(caught.value) == "bot Broken at seat 0 raised ZeroDivisionError: oops"
    assert isinstance(caught.value.__cause__, ZeroDivisionError)


def test_a_lost_connection_that_cannot_be_made_again_says_so() -> None:
    table = Table(f"ws://127.0.0.1:{free_port()}/ws/ABCD", None)
    table.socket = Answering(lambda message: [], drop_after=1)
    with pytest.raises(ConnectionLost) as caught:
        asyncio.run(table.play(Opener(), idle=5, reconnect=0.5))
    assert caught.value.code == "connection_lost"
    assert "the connection to room ABCD dropped" in str(caught.value)
    assert "connecting again for 0.5 s did not work (unreachable: cannot connect" in str(
        caught.value
    )


def test_table_play_carries_on_after_the_server_restarts(tmp_path: Path) -> None:
    port = free_port()
    paced = {"DUDO_BOT_DELAY": "0.2"}

    async def play(base: str, restarted: asyncio.Event) -> list[int]:
        async with Client(base) as client:
            seat = await client.create_room("Robo", seats=3, bots=[None, "normal", "normal"])
            async with client.table(seat) as table:
                await table.start()
                restarted.set()
                return await table.play(make_bot("normal", seed=1), timeout=120)

    async def run() -> list[int]:
        ready = asyncio.Event()
        with server_process(sqlite_url(tmp_path), port=port, env=paced) as (base, process):
            game = asyncio.create_task(play(base, ready))
            await ready.wait()
            await asyncio.sleep(0.5)
            process.kill()
            await asyncio.to_thread(process.wait)
        assert not game.done()  # killed mid-game
        await asyncio.sleep(0.5)
        with server_process(sqlite_url(tmp_path), port=port, env=paced):
            return await game

    winners = asyncio.run(run())
    assert winners and all(0 <= seat < 3 for seat in winners)
