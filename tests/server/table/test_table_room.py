"""The room actor's inbox (dudo.server.table.inbox) and its parts, without HTTP.

A room is built on a memory store and driven only through its inbox: notices told with
``Room.tell`` (sockets arriving, sending, leaving) and questions asked with ``Room.ask``
(a join, a look, an invite check, a stop). Small tests of the pure state follow.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import typing
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from dudo.rules import Rules
from dudo.server.protocol import SERVER_MESSAGES, parse_client_message
from dudo.server.table import inbox
from dudo.server.table.connection import Connection
from dudo.server.table.names import skeleton
from dudo.server.table.room import Room, RoomError
from dudo.server.table.schedule import Fill
from dudo.server.table.state import Answered, RoomState
from dudo.store import LogEntry
from dudo.store.base import MemoryStore
from serverkit import CountingEntropy, FakeClock, fast_config


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(test())


async def open_room(seats: int = 2, **settings: Any) -> Room:
    """A started room with ``seats`` open seats on a memory store, on a fake clock."""
    room = await Room.create(
        "ROOM",
        MemoryStore(),
        fast_config(),
        rules=Rules.preset("perudo"),
        seats=seats,
        bots=[],
        timer=0,
        public=False,
        clock=settings.pop("clock", FakeClock()),
        entropy=CountingEntropy(),
        **settings,
    )
    assert room is not None
    room.start_task()
    return room


class Socket:
    """A connection whose sent payloads are kept, decoded."""

    def __init__(self, seat: int | None) -> None:
        self.texts: list[str] = []

        async def keep(text: str) -> None:
            self.texts.append(text)

        self.connection = Connection(keep, seat)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [data for data in map(json.loads, self.texts) if data["type"] == kind]


async def deliver(room: Room, socket: Socket, text: str) -> None:
    """Tell the room a message from ``socket``, and wait until it is handled."""
    room.tell(inbox.Deliver(socket.connection, parse_client_message(text)))
    await room.ask(inbox.Describe())  # answered after every message before it


# -- the messages ------------------------------------------------------------------------


def test_the_inbox_is_a_closed_set_of_frozen_messages() -> None:
    kinds = set(typing.get_args(inbox.Message))
    assert kinds == set(typing.get_args(inbox.Notice)) | set(typing.get_args(inbox.Question))
    assert kinds == {
        inbox.Connect,
        inbox.Deliver,
        inbox.Disconnect,
        inbox.Join,
        inbox.Describe,
        inbox.CheckInvite,
        inbox.Stop,
    }
    for kind in kinds:
        assert dataclasses.is_dataclass(kind)
        assert getattr(kind, "__dataclass_params__").frozen  # noqa: B009 (not typed)
    # Each names itself for the room's error log lines, as the tuples' first word did.
    assert {kind.kind for kind in kinds} == {
        "connect",
        "message",
        "disconnect",
        "join",
        "summary",
        "invite_matches",
        "stop",
    }


def test_a_question_carries_its_own_answer() -> None:
    async def test() -> None:
        join = inbox.Join("Ana")
        with pytest.raises(dataclasses.FrozenInstanceError):
            join.name = "Bea"  # type: ignore[misc]
        assert not join.answer.done()
        assert join == inbox.Join("Ana")  # the future is not part of the message
        assert "answer" not in repr(join)

    run(test)


def test_a_bots_name_is_never_the_first_word_of_a_players() -> None:
    """A bot "Ana" beside a player "Ana 🎲🔥 la Reina" made the log read "Ana 🎲🔥 la Reina
    called Dudo ... Ana loses a die": which Ana? In the lobby the bot takes another
    persona, whichever sat down first, and a rebuild from the log names everyone the same."""

    async def test() -> None:
        store = MemoryStore()
        room = await Room.create(
            "ROOM",
            store,
            fast_config(),
            rules=Rules.preset("perudo"),
            seats=4,
            bots=[None, None, "normal", "normal"],
            timer=0,
            public=False,
            clock=FakeClock(),
            entropy=CountingEntropy(),
        )
        assert room is not None
        room.start_task()
        bots = [seat.name for seat in room.seats[2:]]
        assert "Ana" in bots, bots  # the persona this test is about
        other = bots[1 - bots.index("Ana")]
        await room.ask(inbox.Join("ana 🎲🔥 la Reina"))
        await room.ask(inbox.Join(f"{other.upper()} the Second"))
        names = [seat.name for seat in room.seats]
        firsts = [name.split()[0].casefold() for name in names]
        assert len(set(firsts)) == 4, names
        assert names[:2] == ["ana 🎲🔥 la Reina", f"{other.upper()} the Second"]
        await room.stop()
        again = await Room.load("ROOM", store, fast_config(), clock=FakeClock())
        assert [seat.name for seat in again.seats] == names

    run(test)


# -- questions ---------------------------------------------------------------------------


def test_join_seats_people_in_order_under_distinct_names_until_the_table_is_full() -> None:
    async def test() -> None:
        room = await open_room(seats=2)
        first = await room.ask(inbox.Join("Ana"))
        second = await room.ask(inbox.Join("Ana", profile="p-1"))
        assert (first["seat"], second["seat"]) == (0, 1)
        assert first["code"] == "ROOM" and first["name"] == "Ana" != second["name"]
        assert room.seat_of(second["token"]) == 1 and room.seats[1].profile == "p-1"
        with pytest.raises(RoomError) as refused:
            await room.ask(inbox.Join("Cy"))
        assert refused.value.code == "full"
        summary = await room.ask(inbox.Describe())
        assert [seat["name"] for seat in summary["seats"]] == ["Ana", second["name"]]
        await room.stop()

    run(test)


def test_in_the_lobby_a_bot_gives_its_name_to_a_player_who_has_it() -> None:
    """A host called Ana in a room whose bot was the persona Ana stays Ana (they were made
    "Ana 2" in their own room); the bot takes another persona, and a rebuild from the log
    names everyone the same."""

    async def test() -> None:
        store = MemoryStore()
        room = await Room.create(
            "ROOM",
            store,
            fast_config(),
            rules=Rules.preset("perudo"),
            seats=4,
            bots=[None, None, "normal", "normal"],
            timer=0,
            public=False,
            clock=FakeClock(),
            entropy=CountingEntropy(),
        )
        assert room is not None
        room.start_task()
        bots = [seat.name for seat in room.seats[2:]]
        assert "Ana" in bots, bots  # the persona this test is about
        host = await room.ask(inbox.Join("Ana"))
        assert host["name"] == "Ana"
        guest = await room.ask(inbox.Join(bots[1 - bots.index("Ana")]))
        names = [seat.name for seat in room.seats]
        assert len({skeleton(name) for name in names}) == 4, names
        assert names[1] == guest["name"] and names[0] == "Ana"
        await room.stop()
        again = await Room.load("ROOM", store, fast_config(), clock=FakeClock())
        assert [seat.name for seat in again.seats] == names

    run(test)


def test_invites_are_checked_and_a_stop_ends_the_loop() -> None:
    async def test() -> None:
        room = await open_room()
        assert await room.ask(inbox.CheckInvite(room.state.invite)) is True
        assert await room.ask(inbox.CheckInvite("not-the-key")) is False
        assert await room.ask(inbox.CheckInvite(None)) is False
        await room.ask(inbox.Stop())  # answered (None) once the loop has stopped
        assert room.closed
        assert room.task is not None
        await asyncio.wait_for(room.task, 1)  # the loop ended by itself

    run(test)


# -- notices -----------------------------------------------------------------------------


def test_sockets_get_the_state_on_arrival_and_answers_to_their_messages() -> None:
    async def test() -> None:
        room = await open_room()
        joined = await room.ask(inbox.Join("Ana"))
        player, watcher = Socket(joined["seat"]), Socket(None)
        room.tell(inbox.Connect(player.connection))
        room.tell(inbox.Connect(watcher.connection))
        await deliver(room, player, '{"type":"ping"}')
        await deliver(room, watcher, '{"type":"start","id":"go"}')
        await deliver(room, player, '{"type":"start","id":"go"}')  # a seat is open
        await deliver(room, player, '{"type":"start","id":"go"}')  # the same id again
        assert player.of_type("state") and watcher.of_type("state")
        assert player.of_type("pong") == [{"type": "pong", "v": 1, "version": room.version}]
        assert watcher.of_type("error")[0]["code"] == "spectator"
        refusals = player.of_type("error")
        assert [error["code"] for error in refusals] == ["not_ready", "not_ready"]
        assert refusals[0] == refusals[1]  # answered once, then remembered
        for text in player.texts + watcher.texts:
            SERVER_MESSAGES.validate_json(text)
        room.tell(inbox.Disconnect(watcher.connection))
        summary = await room.ask(inbox.Describe())
        assert summary["spectators"] == 0
        await room.stop()

    run(test)


def test_only_players_keep_a_room_open() -> None:
    async def test() -> None:
        clock = FakeClock()
        room = await open_room(clock=clock)
        joined = await room.ask(inbox.Join("Ana"))
        start = room.last_activity
        clock.advance(60)
        room.tell(inbox.Connect(Socket(None).connection))
        await room.ask(inbox.Describe())
        assert room.last_activity == start  # a spectator and a look are no activity
        room.tell(inbox.Connect(Socket(joined["seat"]).connection))
        await room.ask(inbox.Describe())
        assert room.last_activity == start + 60
        await room.stop()

    run(test)


def test_a_question_left_in_the_inbox_of_a_stopped_room_is_answered_once_that_it_closed() -> None:
    """Nobody waits for good on a room that stopped: what was left in its inbox is told
    "moved" (reconnect) once, and a question asked afterwards is refused at once."""

    async def test() -> None:
        room = await open_room()
        stop, look = inbox.Stop(), inbox.Describe()
        room.inbox.put_nowait(stop)
        room.inbox.put_nowait(look)
        await stop.answer
        assert room.task is not None
        await asyncio.wait_for(room.task, 1)
        with pytest.raises(RoomError) as left:
            await look.answer
        assert left.value.code == "moved"
        with pytest.raises(RoomError) as later:
            await asyncio.wait_for(room.ask(inbox.Describe()), 1)
        assert later.value.code == "moved"
        await room.stop()

    run(test)


# -- the pure state ----------------------------------------------------------------------


def created(**data: Any) -> LogEntry:
    return LogEntry(
        0,
        100.0,
        "created",
        {
            "rules": Rules.preset("perudo").to_json(),
            "seats": [{"kind": "open"}] * 2,
            "timer": 0,
            "public": False,
            "invite": "key",
            **data,
        },
    )


def test_the_state_lists_what_an_entry_answered_and_leaves_the_wire_to_the_room() -> None:
    state = RoomState("ROOM", fast_config(), lambda *args: ())
    state.apply(created())
    state.apply(LogEntry(1, 101.0, "joined", {"seat": 0, "name": "Ana", "token_hash": "h"}))
    state.apply(LogEntry(2, 102.0, "configured", {"timer": 30, "ack": [0, "t"]}))
    state.apply(LogEntry(3, 103.0, "refused", {"seat": 0, "id": "go", "reply": {"x": 1}}))
    assert state.answered == [Answered(0, "t", 3), Answered(0, "go", 3, {"x": 1})]
    assert (state.seq, state.version, state.timer) == (4, 3, 30)  # a refusal is no change
    assert state.seats[0].replies == {}  # the room's journal encodes and keeps answers


def test_the_state_refuses_a_log_entry_it_does_not_know() -> None:
    state = RoomState("ROOM", fast_config(), lambda *args: ())
    state.apply(created())
    with pytest.raises(ValueError, match="'shuffled'"):
        state.apply(LogEntry(1, 101.0, "shuffled", {}))


def test_a_quick_table_is_filled_with_bots_when_its_time_comes() -> None:
    async def test() -> None:
        clock = FakeClock()
        room = await Room.create(
            "QUIK",
            MemoryStore(),
            fast_config(quick_fill=8.0),
            rules=Rules.preset("perudo"),
            seats=3,
            bots=[],
            timer=0,
            public=True,
            quick=True,
            clock=clock,
            entropy=CountingEntropy(),
        )
        assert room is not None
        assert room.state.fill_at == clock() + 8.0
        assert room.schedule.due() is None
        clock.advance(8.0)
        due = room.schedule.due()
        assert isinstance(due, Fill) and len(due.seats) == 3

    run(test)


def test_the_audience_shows_each_seat_its_own_dice_and_spectators_none() -> None:
    async def test() -> None:
        room = await open_room(seats=2)
        tokens = [await room.ask(inbox.Join(name)) for name in ("Ana", "Bea")]
        players = [Socket(joined["seat"]) for joined in tokens]
        watcher = Socket(None)
        for socket in (*players, watcher):
            room.tell(inbox.Connect(socket.connection))
        await deliver(room, players[0], '{"type":"start","id":"go"}')
        for _ in range(50):  # the roll comes at once (fast_config), on the room's loop
            game = players[0].of_type("state")[-1]["game"]
            if game is not None and game["phase"] == "bidding":
                break
            await asyncio.sleep(0.01)
        views = [socket.of_type("state")[-1]["game"] for socket in (*players, watcher)]
        assert [view["seat"] for view in views] == [0, 1, None]
        assert [len(view["dice"]) for view in views] == [5, 5, 0]
        assert all(
            views[0][key] == view[key] for view in views for key in ("dice_counts", "turn", "round")
        )
        assert (await room.ask(inbox.Describe()))["spectators"] == 1
        await room.stop()

    run(test)


def test_the_journal_retries_entering_a_finished_game_under_its_backoff() -> None:
    """Entering a game for the profiles fails twice: nothing is tried before the backoff
    lets it, the outage is logged once (the shared StoreHealth), the game is entered on the
    third try and then never again; the room stays open while it waits."""

    async def body() -> None:
        told: list[str] = []
        failures = 2

        async def after_game(record: dict[str, Any], profiles: Any, series: float) -> None:
            nonlocal failures
            told.append(record["game_id"])
            if failures:
                failures -= 1
                raise OSError("the book is away")

        from dudo.server.outage import FIRST_RETRY, StoreHealth
        from dudo.server.table.journal import Journal
        from dudo.server.table.state import RoomConfig

        config = fast_config(after_game=after_game)
        assert isinstance(config, RoomConfig)
        health = StoreHealth()
        state = RoomState("ROOM", config, lambda *_: None)  # type: ignore[arg-type,return-value]
        journal = Journal("ROOM", MemoryStore(), config, state, FakeClock(), health, lambda: None)
        assert journal.entry_due() is None
        journal.unentered["g1"] = ({"game_id": "g1"}, ["p1", None], 5.0)
        await journal.enter_games()
        assert told == ["g1"] and health.down and health.outages == 1
        assert journal.entering is not None
        due = journal.entry_due()
        now = asyncio.get_running_loop().time()
        # The first retry, FIRST_RETRY after the failure (read as a time already past on
        # a slow machine, so the next try is put off to be sure it is not yet due).
        assert due is not None and now - 5 < due - FIRST_RETRY <= now
        journal.entering.next_try = now + 60
        await journal.enter_games()  # not yet due: not tried
        assert told == ["g1"]
        for _ in range(2):
            journal.entering.next_try = 0.0  # (as if its time had come)
            await journal.enter_games()
        assert told == ["g1", "g1", "g1"]
        assert journal.unentered == {} and journal.entering is None
        assert not health.down and health.outages == 1 and health.failures == 2
        assert journal.entry_due() is None
        await journal.enter_games()
        assert told == ["g1", "g1", "g1"]

    run(body)


def test_a_room_whose_game_waits_for_the_book_stays_open_longer() -> None:
    async def body() -> None:
        clock = FakeClock()
        room = await open_room(clock=clock)
        try:
            room.state.status = "over"
            clock.advance(room.config.close_after_game + 1)
            room.journal.unentered["g1"] = ({}, [], 0.0)
            assert not room.idle(clock())
            clock.advance(room.config.close_when_idle)
            assert room.idle(clock())
            room.journal.unentered.clear()
            assert room.idle(clock())
        finally:
            await room.stop()

    run(body)
