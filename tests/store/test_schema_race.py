"""Servers starting together on one fresh database all start (dudo.store.schema).

The nodes of a cluster, or several replicas of a container, often start at the same moment
on an empty database. Each makes the tables it misses; before the fix two that looked at
the same moment both created a table and the second failed to start ("table rooms already
exists": seen with three nodes in bench/chaos.py). Here eight processes open the store and
the profile book on one fresh database at the same instant, several times over, on SQLite
and (when ``DUDO_TEST_POSTGRES`` is set, as CI does) on PostgreSQL in a schema of its own.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from dudo.store import schema

POSTGRES = os.environ.get("DUDO_TEST_POSTGRES")

OPEN_AT = """
import asyncio, sys, time
from dudo.profiles.book import open_book
from dudo.store import open_store

async def main(url: str, at: float) -> None:
    time.sleep(max(0.0, at - time.time()))
    store = open_store(url)
    await store.open()
    try:
        await open_book(store)
    finally:
        await store.close()

asyncio.run(main(sys.argv[1], float(sys.argv[2])))
"""


def databases() -> list[str]:
    names = ["sqlite"]
    if POSTGRES or os.environ.get("CI"):
        names.append("postgresql")
    return names


def fresh_url(kind: str, folder: Path) -> str:
    if kind == "sqlite":
        return f"sqlite:///{folder / 'fresh.db'}"
    assert POSTGRES, "CI must provide a PostgreSQL server in DUDO_TEST_POSTGRES"
    separator = "&" if "?" in POSTGRES else "?"
    return f"{POSTGRES}{separator}schema=dudo_race_{secrets.token_hex(4)}"


@pytest.mark.parametrize("kind", databases())
def test_eight_servers_opening_one_fresh_database_at_once_all_open(
    kind: str, tmp_path: Path
) -> None:
    for attempt in range(3):
        folder = tmp_path / str(attempt)
        folder.mkdir()
        url = fresh_url(kind, folder)
        at = time.time() + 2.0  # every process imported and waiting by then
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_AT, url, str(at)],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for _ in range(8)
        ]
        outputs = [process.communicate(timeout=120)[0] for process in processes]
        failed = [
            out for process, out in zip(processes, outputs, strict=True) if process.returncode
        ]
        assert not failed, f"attempt {attempt}: {len(failed)} of 8 failed:\n{failed[0][-3000:]}"


def test_a_start_that_lost_the_race_tries_again_and_another_error_is_not_retried() -> None:
    calls: list[int] = []

    def lost_once(connection: object) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError(
                "CREATE TABLE rooms", {}, Exception("table rooms already exists")
            )

    def broken(connection: object) -> None:
        calls.append(1)
        raise OperationalError("CREATE TABLE rooms", {}, Exception("disk I/O error"))

    async def scenario() -> None:
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine("sqlite+aiosqlite://")
        try:
            await schema.create_tables(engine, lost_once)
            assert len(calls) == 2
            calls.clear()
            with pytest.raises(OperationalError, match="disk I/O error"):
                await schema.create_tables(engine, broken)
            assert len(calls) == 1
        finally:
            await engine.dispose()

    asyncio.run(scenario())


def open_at_once(path: Path, connections: int) -> list[str]:
    """``connections`` threads open ``path`` and run the store's SQLite set-up together;
    what went wrong, one line each."""
    import sqlite3
    import threading

    from dudo.store.sql import _sqlite_pragmas

    start = threading.Barrier(connections)
    errors: list[str] = []

    def open_one() -> None:
        connection = sqlite3.connect(path, check_same_thread=False)
        try:
            start.wait()
            _sqlite_pragmas(connection, None)
            mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
            if mode != "wal":
                errors.append(f"journal mode {mode}")
        except sqlite3.Error as error:
            errors.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=open_one) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return errors


def test_sixteen_connections_switching_one_fresh_file_to_wal_at_once_all_open(
    tmp_path: Path,
) -> None:
    """The switch to WAL takes no busy timeout from SQLite: before the fix about one round in
    fifteen failed one connection with "database is locked" (what failed the test above
    once, in CI). Threads make the race tight enough to show it in a few seconds."""
    for round_ in range(60):
        errors = open_at_once(tmp_path / f"fresh{round_}.db", 16)
        assert not errors, f"round {round_}: {errors}"
