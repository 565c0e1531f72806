"""Rooms leave memory when nobody uses them, and are not rebuilt after a restart."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from dudo.rules import Rules
from dudo.server.site.lobby import Lobby
from dudo.server.table import inbox
from dudo.store.base import MemoryStore
from serverkit import FakeClock, fast_config


def test_idle_rooms_are_closed_and_not_recovered() -> None:
    """A lobby nobody sits in closes after a few minutes, whoever watches or looks it up;
    a player at a seat keeps a room open; closed rooms are not rebuilt after a restart."""
    from dudo.server.table.connection import Connection

    async def scenario() -> None:
        clock = FakeClock()
        store = MemoryStore()
        lobby = Lobby(
            store,
            fast_config(close_when_idle=1800, close_after_game=600, close_empty_lobby=300),
            clock=clock,
        )
        busy = await lobby.create(
            "Ana", rules=Rules.preset("perudo"), seats=2, bots=[], timer=0, public=False
        )
        quiet = await lobby.create(
            "Ben", rules=Rules.preset("perudo"), seats=2, bots=[], timer=0, public=False
        )

        async def ignore(text: str) -> None:
            return None

        player = Connection(ignore, 0)
        lobby.rooms[busy["code"]].tell(inbox.Connect(player))
        watcher = Connection(ignore, None)
        lobby.rooms[quiet["code"]].tell(inbox.Connect(watcher))
        await lobby.rooms[quiet["code"]].ask(inbox.Describe())
        clock.advance(200)
        assert await lobby.close_idle_rooms() == []
        await lobby.rooms[quiet["code"]].ask(inbox.Describe())  # a look is not activity
        clock.advance(200)
        assert await lobby.close_idle_rooms() == [quiet["code"]]
        assert watcher.closed  # the spectator is let go, not kept waiting
        assert quiet["code"] not in lobby.rooms
        assert await store.live_rooms() == [busy["code"]]
        clock.advance(10_000)
        assert await lobby.close_idle_rooms() == []  # its player is still there
        await lobby.close()
        restarted = Lobby(store, fast_config(), clock=clock)
        assert await restarted.recover() == 1
        assert list(restarted.rooms) == [busy["code"]]
        await restarted.close()

    asyncio.run(scenario())


def test_answers_to_start_and_next_round_survive_a_restart() -> None:
    """A client that retries ``start`` after a crash gets the original ack, not not_now."""
    from dudo.server.protocol import parse_client_message
    from dudo.server.table.connection import Connection

    async def scenario() -> None:
        store = MemoryStore()
        lobby = Lobby(store, fast_config(seed_window=3600))
        joined = await lobby.create(
            "Ana", rules=Rules.preset("tavern"), seats=2, bots=[None, "easy"], timer=0, public=False
        )
        room = lobby.rooms[joined["code"]]
        sent: list[str] = []

        async def collect(text: str) -> None:
            sent.append(text)

        connection = Connection(collect, 0)
        writer = asyncio.create_task(connection.write_forever())
        room.tell(inbox.Connect(connection))
        room.tell(inbox.Deliver(connection, parse_client_message('{"type":"start","id":"go"}')))
        room.tell(
            inbox.Deliver(connection, parse_client_message('{"type":"next_round","id":"roll"}'))
        )
        await room.ask(inbox.Describe())
        first = {key: json.loads(text) for key, text in room.seats[0].replies.items()}
        assert first["go"]["type"] == "ack" and first["roll"]["type"] == "ack"
        writer.cancel()
        await lobby.close()
        restarted = Lobby(store, fast_config(seed_window=3600))
        await restarted.recover()
        again = {
            key: json.loads(text)
            for key, text in restarted.rooms[joined["code"]].seats[0].replies.items()
        }
        assert again["go"] == first["go"]
        assert again["roll"] == first["roll"]
        await restarted.close()

    asyncio.run(scenario())


def test_refusals_survive_a_restart_and_leave_the_version_alone() -> None:
    """A ``start`` refused as not_ready is answered the same after a restart, even though
    the room could start by then; storing the refusal does not move the version."""
    from dudo.server.protocol import parse_client_message
    from dudo.server.table.connection import Connection

    async def scenario() -> None:
        store = MemoryStore()
        lobby = Lobby(store, fast_config(seed_window=3600))
        made = await lobby.create(
            "Ana", rules=Rules.preset("tavern"), seats=2, bots=[None, None], timer=0, public=False
        )
        room = lobby.rooms[made["code"]]
        sent: list[str] = []

        async def collect(text: str) -> None:
            sent.append(text)

        connection = Connection(collect, 0)
        room.tell(inbox.Connect(connection))
        await room.ask(inbox.Describe())
        version = room.version
        room.tell(inbox.Deliver(connection, parse_client_message('{"type":"start","id":"go"}')))
        await room.ask(inbox.Describe())
        refused = json.loads(room.seats[0].replies["go"])
        assert refused["type"] == "error" and refused["code"] == "not_ready"
        assert room.version == version
        await lobby.close()

        restarted = Lobby(store, fast_config(seed_window=3600))
        await restarted.recover()
        again = restarted.rooms[made["code"]]
        assert again.version == version
        await again.ask(inbox.Join("Bea", None))
        retry = Connection(collect, 0)
        again.tell(inbox.Connect(retry))
        sent.clear()
        again.tell(inbox.Deliver(retry, parse_client_message('{"type":"start","id":"go"}')))
        await again.ask(inbox.Describe())
        answers = [json.loads(text) for text in sent]
        assert refused in answers  # the same answer, not a start
        assert again.status == "lobby"
        await restarted.close()

    asyncio.run(scenario())


def test_stored_refusals_are_bounded_per_seat_and_the_latest_survive_a_restart() -> None:
    """One seat sending refused messages without end must not grow the log without end
    (it once stored 24,000 rows a minute): only the last REFUSALS_STORED (plus a batch)
    are kept, and those are still answered the same after a restart."""
    from dudo.server.protocol import parse_client_message
    from dudo.server.table.connection import Connection
    from dudo.server.table.room import REFUSALS_STORED

    async def scenario() -> None:
        store = MemoryStore()
        lobby = Lobby(store, fast_config())
        made = await lobby.create(
            "Ana", rules=Rules.preset("tavern"), seats=2, bots=[None, None], timer=0, public=False
        )
        room = lobby.rooms[made["code"]]

        async def ignore(text: str) -> None:
            return None

        connection = Connection(ignore, 0)
        room.tell(inbox.Connect(connection))
        for number in range(600):  # 'start' with an open seat: refused as not_ready
            room.tell(
                inbox.Deliver(
                    connection, parse_client_message(f'{{"type":"start","id":"go{number}"}}')
                )
            )
        await room.ask(inbox.Describe())
        refused = [entry for entry in store.logs[made["code"]] if entry.kind == "refused"]
        assert REFUSALS_STORED <= len(refused) < REFUSALS_STORED + 64
        assert refused[-1].data["id"] == "go599"
        await lobby.close()

        restarted = Lobby(store, fast_config())
        await restarted.recover()
        again = restarted.rooms[made["code"]]
        assert json.loads(again.seats[0].replies["go599"])["code"] == "not_ready"
        assert "go0" not in again.seats[0].replies
        await restarted.close()

    asyncio.run(scenario())


def test_a_room_whose_log_will_not_replay_does_not_stop_the_site() -> None:
    """One broken log (a bug, a hand edit, a test's leftovers) once kept the whole server
    from starting: now that room is left out, logged, and the others come back."""
    from dudo.store.base import LogEntry

    async def scenario() -> None:
        store = MemoryStore()
        lobby = Lobby(store, fast_config())
        good = await lobby.create(
            "Ana", rules=Rules.preset("tavern"), seats=2, bots=[], timer=0, public=False
        )
        await lobby.close()
        await store.create_room("ACDE", False, LogEntry(0, 1.0, "created", {"game": 2}))
        await store.create_room("FGHJ", False, LogEntry(0, 1.0, "joined", {"seat": 0}))
        restarted = Lobby(store, fast_config())
        assert await restarted.recover() == 1
        assert list(restarted.rooms) == [good["code"]]
        assert sorted(restarted.unrecoverable) == ["ACDE", "FGHJ"]
        await restarted.close()

    asyncio.run(scenario())


def test_idle_time_counts_from_the_log_not_from_the_restart() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        store = MemoryStore()
        lobby = Lobby(store, fast_config(close_empty_lobby=300), clock=clock)
        await lobby.create(
            "Ana", rules=Rules.preset("tavern"), seats=2, bots=[], timer=0, public=False
        )
        await lobby.close()
        clock.advance(400)  # the server was down (or restarting) meanwhile
        restarted = Lobby(store, fast_config(close_empty_lobby=300), clock=clock)
        await restarted.recover()
        assert len(await restarted.close_idle_rooms()) == 1
        await restarted.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_two_processes_holding_one_room_never_both_write(backend: str, tmp_path: Any) -> None:
    """A split: two servers rebuilt the same room from one database (a node that lost its
    lease, or two `dudo serve` on one file). The first change wins; the second is refused
    by the log's conditional append, that copy lets the room go (its sockets are told to
    reconnect), and the log holds one history."""
    from dudo.server.protocol import parse_client_message
    from dudo.server.table.connection import Connection
    from dudo.server.table.room import CLOSE_MOVED
    from dudo.store import open_store

    async def scenario() -> None:
        store = (
            MemoryStore()
            if backend == "memory"
            else open_store(f"sqlite:///{tmp_path / 'split.db'}")
        )
        await store.open()
        first = Lobby(store, fast_config())
        made = await first.create(
            "Ana", rules=Rules.preset("tavern"), seats=2, bots=[], timer=0, public=False
        )
        code = made["code"]
        second = Lobby(store, fast_config())
        await second.recover()  # the same room, rebuilt by another process
        sent: dict[str, list[str]] = {"a": [], "b": []}

        def collector(name: str) -> Any:
            async def collect(text: str) -> None:
                sent[name].append(text)

            return collect

        a, b = Connection(collector("a"), 0), Connection(collector("b"), 0)
        first.rooms[code].tell(inbox.Connect(a))
        second.rooms[code].tell(inbox.Connect(b))
        first.rooms[code].tell(
            inbox.Deliver(a, parse_client_message('{"type":"configure","id":"one","timer":30}'))
        )
        await first.rooms[code].ask(inbox.Describe())
        second.rooms[code].tell(
            inbox.Deliver(b, parse_client_message('{"type":"configure","id":"two","timer":60}'))
        )
        await asyncio.sleep(0.2)
        loser = second.rooms[code]
        assert loser.closed and b.closed and b.close_code == CLOSE_MOVED
        assert any('"moved"' in text for text in sent["b"])
        assert await second.close_idle_rooms() == [] and code not in second.rooms
        assert code in await store.live_rooms()  # the loser did not close it
        log = await store.load_log(code)
        configured = [entry.data for entry in log if entry.kind == "configured"]
        assert configured == [{"timer": 30, "ack": [0, "one"]}]
        winner = first.rooms[code]
        assert not winner.closed and winner.timer == 30
        assert (await winner.ask(inbox.Describe()))["timer"] == 30
        await first.close()
        await second.close()
        await store.close()

    asyncio.run(scenario())


def test_a_room_whose_game_the_book_never_takes_closes_late_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The profile book refuses a finished game for good: the room keeps trying and stays
    open past its usual limit, up to close_when_idle, then closes and logs
    game_not_entered (a warning, the one trace of a game counted for no profile)."""
    from dudo.server.table.connection import Connection

    async def ignore(text: str) -> None:
        return None

    async def refuse(*_: Any) -> None:
        raise OSError("the book is away for good")

    async def scenario() -> None:
        clock = FakeClock()
        lobby = Lobby(
            MemoryStore(),
            fast_config(close_when_idle=1800, close_empty_lobby=300, after_game=refuse),
            clock=clock,
        )
        made = await lobby.create(
            "Ana", rules=Rules.preset("perudo"), seats=2, bots=[], timer=0, public=False
        )
        room = lobby.rooms[made["code"]]
        room.journal.unentered["g1"] = ({"game_id": "g1"}, [None, None], 1.0)
        room.tell(inbox.Connect(Connection(ignore, None)))  # wakes the loop: it tries
        await room.ask(inbox.Describe())
        for _ in range(100):
            if room.journal.entering is not None:
                break
            await asyncio.sleep(0.01)
        assert room.journal.entering is not None and room.health.down
        clock.advance(301)
        assert await lobby.close_idle_rooms() == []  # an empty lobby, but a game waits
        clock.advance(1500)
        assert await lobby.close_idle_rooms() == [made["code"]]
        await lobby.close()

    caplog.set_level("WARNING", logger="dudo.lobby")
    asyncio.run(scenario())
    lost = [
        r for r in caplog.records if getattr(r, "fields", {}).get("event") == "game_not_entered"
    ]
    assert [r.fields["game_id"] for r in lost] == ["g1"]  # type: ignore[attr-defined]
