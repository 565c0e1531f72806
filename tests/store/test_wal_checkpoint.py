"""SQLite's write-ahead log is copied by the checkpointer's thread, never inside a commit."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from dudo.store import sql
from dudo.store.base import LogEntry
from dudo.store.sql import SqlStore, WalCheckpointer

ROOM = "WALT"


def entries(start: int, stop: int) -> list[LogEntry]:
    return [
        LogEntry(seq, 1000.0 + seq, "action", {"seat": seq % 4, "bid": [seq % 9, 5]})
        for seq in range(start, stop)
    ]


def checkpoint_every(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Make the store's own checkpointer run every ``seconds``."""
    monkeypatch.setattr(sql, "WalCheckpointer", functools.partial(WalCheckpointer, every=seconds))


async def fill(store: SqlStore, count: int) -> None:
    assert await store.create_room(ROOM, False, LogEntry(0, 1000.0, "created", {"seats": 4}))
    await asyncio.gather(
        *(store.append(ROOM, entries(seq, seq + 10)) for seq in range(1, count, 10))
    )


async def wait_for(condition: Callable[[], bool], limit: float = 10.0) -> None:
    """Poll until ``condition`` holds; the limit only guards against hanging."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting"
        await asyncio.sleep(0.01)


def test_every_connection_has_wal_and_no_autocheckpoint(tmp_path: Path) -> None:
    """The writer's, the async driver's and the checkpointer's connections skip autocheckpoint."""
    path = tmp_path / "pragmas.db"

    async def scenario() -> None:
        store = SqlStore(f"sqlite:///{path}")
        await store.open()
        try:
            assert store._sync_engine is not None and store.engine is not None
            raw = store._sync_engine.raw_connection()
            try:
                cursor = raw.cursor()
                assert cursor.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
                assert cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
                assert cursor.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
            finally:
                raw.close()
            async with store.engine.connect() as connection:
                result = await connection.exec_driver_sql("PRAGMA wal_autocheckpoint")
                assert result.scalar() == 0
        finally:
            await store.close()

    asyncio.run(scenario())
    plain = sqlite3.connect(path)
    try:  # WAL mode is kept in the file itself
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert plain.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # not ours
    finally:
        plain.close()


def test_the_checkpointer_copies_the_log_into_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Passive checkpoints run on their own thread; close() leaves the WAL truncated."""
    checkpoint_every(monkeypatch, 0.05)
    path = tmp_path / "busy.db"
    wal = Path(f"{path}-wal")

    async def scenario() -> WalCheckpointer:
        store = SqlStore(f"sqlite:///{path}")
        await store.open()
        checkpointer = store._checkpointer
        try:
            assert checkpointer is not None and checkpointer.every == 0.05
            assert checkpointer._thread.name == "dudo-checkpoint"
            await wait_for(lambda: checkpointer.checkpoints > 0)
            schema_only = path.stat().st_size
            await fill(store, 400)
            assert store.appended == 400
            after_appends = checkpointer.checkpoints
            await wait_for(lambda: checkpointer.checkpoints >= after_appends + 2)
            assert path.stat().st_size > schema_only  # the rows reached the database file
            plain = sqlite3.connect(path)
            try:
                rows = plain.execute(
                    "SELECT seq FROM room_log WHERE code = ? ORDER BY seq", (ROOM,)
                ).fetchall()
            finally:
                plain.close()
            assert [seq for (seq,) in rows] == list(range(401))
        finally:
            await store.close()
        return checkpointer

    checkpointer = asyncio.run(scenario())
    assert checkpointer.checkpoints > 0
    assert not checkpointer._thread.is_alive()
    assert not wal.exists() or wal.stat().st_size == 0
    assert "dudo-checkpoint" not in {thread.name for thread in threading.enumerate()}


def test_close_runs_a_final_truncate_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no passive round due, the log stays in the WAL until close() checkpoints it once."""
    checkpoint_every(monkeypatch, 3600)
    path = tmp_path / "quiet.db"
    wal = Path(f"{path}-wal")

    async def scenario() -> WalCheckpointer:
        store = SqlStore(f"sqlite:///{path}")
        await store.open()
        checkpointer = store._checkpointer
        assert checkpointer is not None
        try:
            await fill(store, 300)
            assert checkpointer.checkpoints == 0
            assert wal.stat().st_size > 0  # the commits only appended to the log
            before_close = path.stat().st_size
        finally:
            await store.close()
        assert path.stat().st_size > before_close  # copied in by the final checkpoint
        return checkpointer

    checkpointer = asyncio.run(scenario())
    assert checkpointer.checkpoints == 1  # the TRUNCATE at stop()
    assert not wal.exists() or wal.stat().st_size == 0


def test_appends_commit_in_order_and_survive_a_reopen(tmp_path: Path) -> None:
    """Every appended entry is loaded back, in order, by a store opened on the same file."""
    url = f"sqlite:///{tmp_path / 'reopen.db'}"

    async def scenario() -> None:
        store = SqlStore(url)
        await store.open()
        try:
            await fill(store, 250)
            await store.append(ROOM, entries(251, 260))
            assert [entry.seq for entry in await store.load_log(ROOM)] == list(range(260))
        finally:
            await store.close()

        again = SqlStore(url)
        await again.open()
        try:
            log = await again.load_log(ROOM)
            assert [entry.seq for entry in log] == list(range(260))
            assert log[0] == LogEntry(0, 1000.0, "created", {"seats": 4})
            assert log[7] == entries(7, 8)[0]
            assert await again.live_rooms() == [ROOM]
        finally:
            await again.close()

    asyncio.run(scenario())
