"""SQL storage with SQLAlchemy 2 (async): SQLite by default, PostgreSQL by URL.

Appends from every room go through one writer task that commits them in batches (for
SQLite on a thread of its own, one hand-off per batch): a room
waits for its batch's commit before it tells anyone about the change, so the promise
"committed before shown" holds, while a busy server pays for one commit per batch instead
of one per action. SQLite runs in WAL mode with ``synchronous=NORMAL``, which survives a
crash of the server process (only a power cut could lose the last transactions).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    delete,
    event,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine, create_engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from dudo.store.base import LogConflict, LogEntry, StoreError, compact_json, hide_password
from dudo.store.schema import create_tables

log = logging.getLogger("dudo.store")
metadata = MetaData()
rooms = Table(
    "rooms",
    metadata,
    Column("code", String(8), primary_key=True),
    Column("created_at", Float, nullable=False),
    Column("public", Boolean, nullable=False, default=False),
    Column("closed", Boolean, nullable=False, default=False),
    # When the room closed (null while it is live, and for rooms closed before this
    # column existed): the retention policy and code reuse go by it.
    Column("closed_at", Float, nullable=True),
)
room_log = Table(
    "room_log",
    metadata,
    Column("code", String(8), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("at", Float, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("data", Text, nullable=False),
)
games = Table(
    "games",
    metadata,
    Column("game_id", String(40), primary_key=True),
    Column("code", String(8), nullable=False, index=True),
    Column("finished_at", Float, nullable=False),
    Column("record", Text, nullable=False),
)

BATCH = 256
CONNECT_TIMEOUT = 1.0  # seconds (PostgreSQL)
COMMAND_TIMEOUT = 3.0
BUSY_TIMEOUT = 5.0  # seconds a SQLite connection waits for another's lock
# The log's hot path on SQLite: one prepared statement through the driver's own
# executemany, which costs a few microseconds per batch where a Core insert() costs tens.
INSERT_LOG = "INSERT INTO room_log (code, seq, at, kind, data) VALUES (?, ?, ?, ?, ?)"


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")
    _use_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    # No checkpoint inside a commit: the WalCheckpointer's thread does them, so a room never
    # waits for the WAL to be copied into the database file and synced.
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


def _use_wal(cursor: Any) -> None:
    """Put the database file in WAL mode, waiting for the other processes that open it.

    WAL is a property of the file: once one connection has switched it, the others find it
    so and take no lock. The switch needs the file to itself, and SQLite does not run the
    busy handler for it: with several servers opening one fresh file at once (a cluster's
    nodes starting together), one failed at once with "database is locked". So it is tried
    again, with a growing pause, for as long as the busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT
    pause = 0.005
    while True:
        try:
            if _pragma(cursor, "journal_mode") == "wal":
                return
            if _pragma(cursor, "journal_mode=WAL") == "wal":
                return
            # Refused without an error (another connection was reading): try again.
        except Exception as error:  # sqlite3's OperationalError, or the async driver's
            if "database is locked" not in str(error) or time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise sqlite3.OperationalError("database is locked: could not switch to WAL")
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def _pragma(cursor: Any, pragma: str) -> str:
    cursor.execute(f"PRAGMA {pragma}")
    return str(cursor.fetchone()[0]).lower()


def _make_tables(connection: Any) -> None:
    metadata.create_all(connection)
    _add_missing_columns(connection)


def _add_missing_columns(connection: Any) -> None:
    """Bring a database made by an older version up to this schema (columns added since
    are nullable, so adding them is all it takes). Rooms closed before ``closed_at``
    existed count as closed now: the retention clock starts at the upgrade."""
    present = {column["name"] for column in inspect(connection).get_columns("rooms")}
    if "closed_at" not in present:
        connection.execute(text("ALTER TABLE rooms ADD COLUMN closed_at FLOAT"))
        connection.execute(
            update(rooms).where(rooms.c.closed.is_(True)).values(closed_at=time.time())
        )


class WalCheckpointer:
    """Copies SQLite's write-ahead log into the database file, from a thread of its own.

    By default SQLite checkpoints inside the commit that fills the log past 1,000 pages:
    that commit then copies the pages and syncs the file, and every room waiting for its
    batch waits too (at 2,000 busy rooms: every few seconds, a stall of up to 300 ms).
    A passive checkpoint on another connection runs alongside the writer instead.
    """

    def __init__(self, engine: Engine, every: float = 1.0) -> None:
        self.engine = engine
        self.every = every
        self.checkpoints = 0
        self.busy = 0  # checkpoints that could not finish
        self.failing = False  # the last one raised (said once, not every second)
        self.slowest = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dudo-checkpoint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        connection = None
        while connection is None:
            try:
                connection = self.engine.raw_connection()
            except Exception:  # the log keeps growing meanwhile: say so, and try again
                log.exception("the checkpointer cannot open the database")
                if self._stop.wait(self.every):
                    return
        try:
            while not self._stop.wait(self.every):
                self.checkpoint(connection, "PASSIVE")
            self.checkpoint(connection, "TRUNCATE")  # leave a short log behind
        finally:
            connection.close()

    def checkpoint(self, connection: Any, mode: str) -> bool:
        """One checkpoint; False if it could not finish (a reader or writer was in the
        way: the next one carries on where it stopped)."""
        started = time.perf_counter()
        cursor = connection.cursor()
        try:
            busy, _log_pages, _copied = cursor.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        except Exception as error:
            if not self.failing:  # once per run of failures (a full disk: every second)
                log.warning("checkpoint failed: %s (not said again until one works)", error)
            self.failing = True
            return False
        finally:
            cursor.close()
        if self.failing:
            log.warning("checkpoints work again")
            self.failing = False
        self.slowest = max(self.slowest, time.perf_counter() - started)
        if busy:
            self.busy += 1
            return False
        self.checkpoints += 1
        return True

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


def error_reason(error: BaseException) -> str:
    """What went wrong, in the driver's own words on one short line: SQLAlchemy's wrapper
    (its SQL, its parameters, its link to a web page) taken off, and no password in it."""
    root: BaseException = getattr(error, "orig", None) or error
    if isinstance(root, OSError) and root.errno and root.errno > 0:
        reason = os.strerror(root.errno)  # "Connection refused", not asyncio's wording
    elif isinstance(root, OSError) and root.strerror:
        reason = root.strerror  # a host name that does not resolve
    elif isinstance(root, TimeoutError):
        reason = "no answer (timed out)"
    else:
        reason = (str(root).strip().splitlines() or [type(root).__name__])[0]
    reason = reason.split(" (Background on this error at:")[0]
    return hide_password(reason)[:300]


def async_url(url: str) -> str:
    """Pick the async driver for a plain database URL."""
    if url.startswith("sqlite:"):
        return url.replace("sqlite:", "sqlite+aiosqlite:", 1)
    if url.startswith("postgresql:") or url.startswith("postgres:"):
        return "postgresql+asyncpg:" + url.split(":", 1)[1]
    return url


def split_schema(url: str) -> tuple[str, str | None]:
    """A PostgreSQL URL's ``schema`` parameter (``postgresql://.../db?schema=NAME``: the
    tables live in that schema, so sites or test runs can share one database) and the URL
    without it."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((value for key, value in query if key == "schema"), None)
    if schema is None or not url.startswith(("postgresql:", "postgres:")):
        return url, None
    if not schema.replace("_", "").isalnum():
        raise StoreError(f"schema must be letters, digits and _, not {schema!r}")
    rest = urlencode([(key, value) for key, value in query if key != "schema"])
    return urlunsplit(parts._replace(query=rest)), schema


class SqlStore:
    """The :class:`~dudo.store.base.Store` on a SQL database."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine | None = None
        self._queue: asyncio.Queue[tuple[str, list[LogEntry], asyncio.Future[None]]] | None = None
        self._writer: asyncio.Task[None] | None = None
        # SQLite: the log's batches are written by one thread with a plain connection, one
        # hand-off per batch instead of several per statement through the async driver.
        self._sync_engine: Engine | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._thread_connection: Any = None  # the writer thread's own DB-API connection
        self._checkpointer: WalCheckpointer | None = None
        self.commits = 0
        self.appended = 0
        self.slowest_commit = 0.0
        self.slow_commits = 0

    async def open(self) -> None:
        url, schema = split_schema(self.url)
        options: dict[str, Any] = {}
        if url.startswith(("postgresql:", "postgres:")):
            # A database that refuses or drops connections fails a write in about a
            # second, not asyncpg's default minute: rooms answer 'unavailable' and back
            # off (dudo.server.outage). A statement stuck on a dead link ends too.
            connect: dict[str, Any] = {
                "timeout": CONNECT_TIMEOUT,
                "command_timeout": COMMAND_TIMEOUT,
            }
            if schema is not None:
                connect["server_settings"] = {"search_path": schema}
            options["connect_args"] = connect
        try:
            engine = create_async_engine(async_url(url), **options)
        except Exception as error:  # a malformed URL or missing driver
            raise StoreError(
                f"cannot use database {hide_password(self.url)}: {error_reason(error)}"
            ) from error
        if engine.dialect.name == "sqlite":
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
            self._sync_engine = create_engine(self.url)
            event.listen(self._sync_engine, "connect", _sqlite_pragmas)
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dudo-log")
            self._checkpointer = WalCheckpointer(self._sync_engine)
        self.engine = engine
        try:
            await create_tables(engine, _make_tables, schema)
        except BaseException as error:
            # Let go of what was set up (the SQLite thread, the engines' pools), so that a
            # failed start leaves no thread behind to outlive its event loop.
            await self.close()
            if not isinstance(error, Exception):
                raise  # cancelled (a caller's timeout): no reason to give
            raise StoreError(
                f"cannot open database {hide_password(self.url)}: {error_reason(error)}"
            ) from error
        self._queue = asyncio.Queue()
        if self._checkpointer is not None:
            self._checkpointer.start()
        self._writer = asyncio.create_task(self._write_batches(), name="dudo-store-writer")

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
        if self.engine is not None:
            await self.engine.dispose()
        if self._thread is not None:
            if self._thread_connection is not None:
                self._thread.submit(self._thread_connection.close).result()
                self._thread_connection = None
            self._thread.shutdown(wait=True)
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        if self._sync_engine is not None:
            self._sync_engine.dispose()

    def _engine(self) -> AsyncEngine:
        if self.engine is None:
            raise StoreError("the store is not open")
        return self.engine

    async def create_room(
        self, code: str, public: bool, entry: LogEntry, reuse_closed_before: float | None = None
    ) -> bool:
        try:
            async with self._engine().begin() as connection:
                if reuse_closed_before is not None:
                    # A code closed long enough ago is free again: its old log goes first,
                    # in the same transaction (a live room's code is never touched).
                    await self._purge(
                        connection,
                        (rooms.c.code == code) & (rooms.c.closed_at < reuse_closed_before),
                    )
                await connection.execute(
                    insert(rooms).values(
                        code=code, created_at=time.time(), public=public, closed=False
                    )
                )
                await connection.execute(
                    insert(room_log).values(
                        code=code,
                        seq=entry.seq,
                        at=entry.at,
                        kind=entry.kind,
                        data=entry.data_json(),
                    )
                )
        except IntegrityError:
            return False
        return True

    @staticmethod
    async def _purge(connection: Any, which: Any) -> int:
        """Delete the closed rooms matching ``which`` and their logs; how many went."""
        codes = [
            code
            for (code,) in await connection.execute(
                select(rooms.c.code).where(rooms.c.closed.is_(True) & which)
            )
        ]
        for start in range(0, len(codes), 500):
            chunk = codes[start : start + 500]
            await connection.execute(delete(room_log).where(room_log.c.code.in_(chunk)))
            await connection.execute(delete(rooms).where(rooms.c.code.in_(chunk)))
        return len(codes)

    async def forget_entries(self, code: str, seqs: list[int]) -> None:
        async with self._engine().begin() as connection:
            await connection.execute(
                delete(room_log).where((room_log.c.code == code) & room_log.c.seq.in_(seqs))
            )

    async def purge_closed_rooms(self, closed_before: float) -> int:
        async with self._engine().begin() as connection:
            return await self._purge(connection, rooms.c.closed_at < closed_before)

    async def append(self, code: str, entries: list[LogEntry]) -> None:
        await self.submit(code, entries)

    def submit(self, code: str, entries: list[LogEntry]) -> asyncio.Future[None]:
        """Queue ``entries`` for the writer's next batch; the future is done once they are
        committed (or holds why not). What :meth:`append` awaits, for a caller that waits
        with a timeout of its own without making a task per append (the rooms' journal)."""
        if self._queue is None:
            raise StoreError("the store is not open")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((code, entries, done))
        return done

    async def _write_batches(self) -> None:
        """Commit whatever is waiting in one transaction, then release the waiters."""
        assert self._queue is not None
        while True:
            first = await self._queue.get()
            batch = [first]
            while len(batch) < BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            started = time.perf_counter()
            rows = [
                (code, entry.seq, entry.at, entry.kind, entry.data_json())
                for code, entries, _ in batch
                for entry in entries
            ]
            try:
                await self._write(rows)
            except Exception:
                # Something in the batch was refused: write each append on its own, so that
                # only the one that failed (a sequence number another writer took, say)
                # fails, and the other rooms' entries are stored all the same.
                await self._write_one_by_one(batch)
                continue
            self.commits += 1
            self.appended += len(rows)
            took = time.perf_counter() - started
            self.slowest_commit = max(self.slowest_commit, took)
            self.slow_commits += took > 0.05
            for _, _, done in batch:
                if not done.done():
                    done.set_result(None)

    async def _write(self, rows: list[tuple[str, int, float, str, str]]) -> None:
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._write_rows, rows)
            return
        async with self._engine().begin() as connection:
            await connection.execute(
                insert(room_log),
                [
                    {"code": code, "seq": seq, "at": at, "kind": kind, "data": data}
                    for code, seq, at, kind, data in rows
                ],
            )

    async def _write_one_by_one(
        self, batch: list[tuple[str, list[LogEntry], asyncio.Future[None]]]
    ) -> None:
        broken: StoreError | None = None
        for code, entries, done in batch:
            rows = [(code, entry.seq, entry.at, entry.kind, entry.data_json()) for entry in entries]
            if broken is not None:  # the database itself failed: the rest would too
                if not done.done():
                    done.set_exception(broken)
                continue
            try:
                await self._write(rows)
            except (IntegrityError, sqlite3.IntegrityError) as error:
                failure: StoreError = LogConflict(
                    f"room {code}: another writer took sequence {entries[0].seq} ({error})"
                )
            except Exception as error:
                failure = broken = StoreError(f"could not store the log: {error}")
            else:
                self.commits += 1
                self.appended += len(rows)
                if not done.done():
                    done.set_result(None)
                continue
            if not done.done():
                done.set_exception(failure)

    def _write_rows(self, rows: list[tuple[str, int, float, str, str]]) -> None:
        """One transaction for a batch of log rows (runs on the writer thread, which keeps
        one pooled connection for itself)."""
        assert self._sync_engine is not None
        if self._thread_connection is None:
            self._thread_connection = self._sync_engine.raw_connection()
        connection = self._thread_connection
        try:
            connection.cursor().executemany(INSERT_LOG, rows)
            connection.commit()
        except Exception:
            connection.rollback()
            raise

    async def load_log(self, code: str) -> list[LogEntry]:
        async with self._engine().connect() as connection:
            result = await connection.execute(
                select(room_log.c.seq, room_log.c.at, room_log.c.kind, room_log.c.data)
                .where(room_log.c.code == code)
                .order_by(room_log.c.seq)
            )
            return [LogEntry(seq, at, kind, json.loads(data)) for seq, at, kind, data in result]

    async def live_rooms(self) -> list[str]:
        async with self._engine().connect() as connection:
            result = await connection.execute(
                select(rooms.c.code).where(rooms.c.closed.is_(False)).order_by(rooms.c.created_at)
            )
            return [code for (code,) in result]

    async def is_live(self, code: str) -> bool:
        async with self._engine().connect() as connection:
            result = await connection.execute(
                select(rooms.c.code).where((rooms.c.code == code) & rooms.c.closed.is_(False))
            )
            return result.first() is not None

    async def close_room(self, code: str) -> None:
        async with self._engine().begin() as connection:
            await connection.execute(
                update(rooms)
                .where((rooms.c.code == code) & rooms.c.closed.is_(False))
                .values(closed=True, closed_at=time.time())
            )

    async def save_game(self, game_id: str, code: str, record: dict[str, Any]) -> None:
        """Keep a record; saving one that is already kept changes nothing (a room rebuilt
        after a crash may not know whether its record made it before the crash)."""
        engine = self._engine()
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        statement = (
            dialect.insert(games)
            .values(
                game_id=game_id,
                code=code,
                finished_at=time.time(),
                record=compact_json(record),
            )
            .on_conflict_do_nothing(index_elements=[games.c.game_id])
        )
        async with engine.begin() as connection:
            await connection.execute(statement)

    async def load_game(self, game_id: str) -> dict[str, Any] | None:
        async with self._engine().connect() as connection:
            result = await connection.execute(
                select(games.c.record).where(games.c.game_id == game_id)
            )
            row = result.first()
        return None if row is None else json.loads(row[0])
