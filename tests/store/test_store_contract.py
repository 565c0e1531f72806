"""One contract, every backend: the memory store, SQLite, and PostgreSQL when one is given.

PostgreSQL runs when ``DUDO_TEST_POSTGRES`` holds a URL (``.ci/run`` starts a server and sets
it); under CI its absence is a failure, not a skip.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from dudo.store import LogConflict, LogEntry, Store, open_store

POSTGRES = os.environ.get("DUDO_TEST_POSTGRES")


def backends() -> list[str]:
    names = ["memory", "sqlite"]
    if POSTGRES or os.environ.get("CI"):
        names.append("postgresql")
    return names


def store_for(backend: str, tmp_path: Path) -> Store:
    if backend == "memory":
        return open_store("memory://")
    if backend == "sqlite":
        return open_store(f"sqlite:///{tmp_path / 'contract.db'}")
    assert POSTGRES, "CI must provide a PostgreSQL server in DUDO_TEST_POSTGRES"
    return open_store(POSTGRES)


def run(backend: str, tmp_path: Path, body: Callable[[Store], Awaitable[None]]) -> None:
    async def scenario() -> None:
        store = store_for(backend, tmp_path)
        await store.open()
        try:
            await body(store)
        finally:
            await store.close()

    asyncio.run(scenario())


def code() -> str:
    return secrets.token_hex(3).upper()[:4]


@pytest.mark.parametrize("backend", backends())
def test_a_room_log_is_kept_in_order_and_codes_are_unique(backend: str, tmp_path: Path) -> None:
    async def body(store: Store) -> None:
        room = code()
        first = LogEntry(0, 1.5, "created", {"rules": {"preset": "perudo"}, "n": [1, 2]})
        assert await store.create_room(room, True, first)
        assert not await store.create_room(room, False, first)
        entries = [
            LogEntry(seq, 2.0 + seq, "action", {"seat": seq % 3, "text": "é✓"})
            for seq in range(1, 40)
        ]
        await asyncio.gather(store.append(room, entries[:20]), store.append(room, entries[20:]))
        log = await store.load_log(room)
        assert [entry.seq for entry in log] == list(range(40))
        assert log[0] == first
        assert log[5].data == {"seat": 2, "text": "é✓"}
        assert room in await store.live_rooms()
        assert await store.is_live(room)
        await store.close_room(room)
        assert room not in await store.live_rooms()
        assert not await store.is_live(room)
        assert not await store.is_live("NONE")

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_finished_games_are_kept_whole(backend: str, tmp_path: Path) -> None:
    async def body(store: Store) -> None:
        game_id = secrets.token_hex(16)
        record = {
            "rules": {"preset": "dudo"},
            "players": 2,
            "rounds": [{"dice": [[1, 2], [3]], "actions": [{"seat": 0, "bid": [2, 3]}]}],
            "fairness": [{"round": 1, "server_seed": "ab" * 32}],
        }
        await store.save_game(game_id, code(), record)
        assert await store.load_game(game_id) == record
        assert await store.load_game(secrets.token_hex(16)) is None

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_saving_a_game_again_keeps_the_first_record(backend: str, tmp_path: Path) -> None:
    """A room rebuilt after a crash saves its finished game again: that must not fail
    (it once stopped the server from starting) nor change what was kept."""

    async def body(store: Store) -> None:
        game_id = secrets.token_hex(16)
        await store.save_game(game_id, code(), {"players": 2, "rounds": []})
        await store.save_game(game_id, code(), {"players": 3, "rounds": []})
        assert await store.load_game(game_id) == {"players": 2, "rounds": []}

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_a_closed_rooms_code_is_free_again_after_the_quiet_period(
    backend: str, tmp_path: Path
) -> None:
    async def body(store: Store) -> None:
        room = code()
        first = LogEntry(0, 1.0, "created", {"game": 1})
        assert await store.create_room(room, False, first)
        await store.append(room, [LogEntry(1, 2.0, "joined", {"seat": 0})])
        again = LogEntry(0, 3.0, "created", {"game": 2})
        # A live room's code is never reused, however old.
        assert not await store.create_room(room, False, again, reuse_closed_before=1e12)
        await store.close_room(room)
        closed_at = time.time()
        # Closed, but not long enough ago.
        assert not await store.create_room(room, False, again, reuse_closed_before=closed_at - 3600)
        assert not await store.create_room(room, False, again)
        assert await store.create_room(room, True, again, reuse_closed_before=closed_at + 1)
        assert await store.load_log(room) == [again]  # a new room: nothing of the old log
        assert room in await store.live_rooms()

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_retention_deletes_closed_rooms_logs_and_keeps_game_records(
    backend: str, tmp_path: Path
) -> None:
    async def body(store: Store) -> None:
        old, recent, live = code(), code(), code()
        for room in (old, recent, live):
            assert await store.create_room(room, False, LogEntry(0, 1.0, "created", {}))
        game_id = secrets.token_hex(16)
        await store.save_game(game_id, old, {"players": 2})
        await store.close_room(old)
        cutoff = time.time() + 0.001
        await asyncio.sleep(0.01)
        await store.close_room(recent)
        # (at least one: a PostgreSQL database is shared with earlier runs' rooms)
        assert await store.purge_closed_rooms(cutoff) >= 1
        assert await store.load_log(old) == []
        assert len(await store.load_log(recent)) == 1
        assert len(await store.load_log(live)) == 1
        assert await store.load_game(game_id) == {"players": 2}
        assert await store.purge_closed_rooms(cutoff) == 0

    run(backend, tmp_path, body)


def test_a_database_from_before_closed_at_is_upgraded(tmp_path: Path) -> None:
    """The rooms table of earlier versions had no closed_at: opening adds it."""
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE rooms (code VARCHAR(8) PRIMARY KEY, created_at FLOAT NOT NULL,"
            " public BOOLEAN NOT NULL, closed BOOLEAN NOT NULL)"
        )
        db.execute("INSERT INTO rooms VALUES ('ACDE', 1.0, 0, 1), ('FGHJ', 1.0, 0, 0)")

    async def body() -> None:
        store = open_store(f"sqlite:///{path}")
        await store.open()
        try:
            assert await store.live_rooms() == ["FGHJ"]
            assert await store.purge_closed_rooms(time.time() + 1) == 1
        finally:
            await store.close()

    asyncio.run(body())


@pytest.mark.parametrize("backend", backends())
def test_entries_can_be_forgotten_and_the_rest_keeps_its_order(
    backend: str, tmp_path: Path
) -> None:
    async def body(store: Store) -> None:
        room = code()
        assert await store.create_room(room, False, LogEntry(0, 1.0, "created", {}))
        await store.append(room, [LogEntry(seq, 1.0, "refused", {"n": seq}) for seq in range(1, 6)])
        await store.forget_entries(room, [1, 2, 4])
        assert [entry.seq for entry in await store.load_log(room)] == [0, 3, 5]

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_an_append_whose_sequence_is_taken_is_refused_and_others_are_stored(
    backend: str, tmp_path: Path
) -> None:
    """Appends are conditional on the sequence: of two writers appending the same seq,
    the second is refused (LogConflict) and nothing diverges, while another room's append
    in the same batch is stored all the same."""

    async def body(store: Store) -> None:
        room, other = code(), code()
        for name in (room, other):
            assert await store.create_room(name, False, LogEntry(0, 1.0, "created", {}))
        mine = LogEntry(1, 2.0, "action", {"by": "first"})
        theirs = LogEntry(1, 2.0, "action", {"by": "second"})
        results = await asyncio.gather(
            store.append(room, [mine]),
            store.append(room, [theirs]),
            store.append(other, [LogEntry(1, 2.0, "action", {"n": 1})]),
            return_exceptions=True,
        )
        assert results[0] is None and results[2] is None
        assert isinstance(results[1], LogConflict)
        assert [entry.data for entry in await store.load_log(room)] == [{}, {"by": "first"}]
        assert len(await store.load_log(other)) == 2

    run(backend, tmp_path, body)
