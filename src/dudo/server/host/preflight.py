"""What ``dudo serve`` checks before it starts, so that every way it cannot start is one
line that says what to do, never a traceback inside a log line.

A bad URL is bad input (exit 2); a missing driver, a database or Redis that does not
answer, a SQLite file that cannot be written are the machine's state (exit 1). No message
carries a password: URLs are shown through :func:`~dudo.store.base.hide_password` and the
drivers' own words are scrubbed of the passwords the URLs hold.
"""

from __future__ import annotations

import asyncio
import importlib
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

from dudo.store import StoreError, open_store
from dudo.store.base import hide_password

SQLITE_SCHEMES = ("sqlite",)
POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+asyncpg")
DRIVERS = {"postgres": ("asyncpg", "postgres")}  # kind -> (module, the extra that installs it)


class StartError(Exception):
    """The server cannot start: ``str(error)`` is the line to print, ``exit_code`` 2 for
    bad input and 1 for a machine that is not ready."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _scrub(text: str) -> str:
    """A driver's words on one line, without a URL's password."""
    return hide_password(" ".join(text.split()))


def database_kind(url: str) -> str:
    """``memory``, ``sqlite`` or ``postgres`` for a ``--database`` URL, or StartError
    (exit 2) for one that is none of them or does not parse."""
    shown = hide_password(url)
    if url.startswith("memory:"):
        return "memory"
    try:
        open_store(url)
    except StoreError as error:
        raise StartError(_scrub(str(error)), 2) from None
    scheme = url.partition(":")[0].lower()
    if scheme not in SQLITE_SCHEMES + POSTGRES_SCHEMES:
        raise StartError(
            f"--database {shown}: use sqlite:///FILE or postgresql://USER:"
            "PASSWORD@HOST:PORT/DATABASE",
            2,
        )
    try:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        urlsplit(url).port  # noqa: B018 - raises ValueError for a bad port
    except Exception as error:
        raise StartError(
            f"--database is not a valid URL ({shown}): {_scrub(str(error))}", 2
        ) from None
    if scheme in SQLITE_SCHEMES:
        if not parsed.database or parsed.database == ":memory:":
            raise StartError(
                f"--database {shown} names no file: use sqlite:///FILE (or "
                "memory:// for a throwaway server)",
                2,
            )
        return "sqlite"
    return "postgres"


def check_driver(kind: str) -> None:
    """The database driver is installed, or StartError naming the extra that installs it."""
    if kind not in DRIVERS:
        return
    module, extra = DRIVERS[kind]
    try:
        importlib.import_module(module)
    except ImportError:
        raise StartError(
            f"PostgreSQL needs the {module} driver, which is not installed: "
            f"pip install 'dudo[{extra}]'",
            1,
        ) from None


def sqlite_file(url: str) -> Path:
    """The file of a ``sqlite:///FILE`` URL."""
    from sqlalchemy.engine import make_url

    return Path(str(make_url(url).database))


def check_sqlite(url: str) -> None:
    """The SQLite file can be opened and written (made if it is missing, as the server
    would): a missing directory, a read-only one or a file that is not a database is
    StartError. Plain sqlite3, so a failure leaves no driver thread behind."""
    path = sqlite_file(url)
    if not path.parent.is_dir():
        raise StartError(
            f"cannot open the database {path}: the directory {path.parent} does not exist", 1
        )
    try:
        connection = sqlite3.connect(path, timeout=5)
        try:
            connection.execute("PRAGMA schema_version").fetchone()  # reads the header
            connection.execute("BEGIN IMMEDIATE")  # takes the write lock
            connection.rollback()
        finally:
            connection.close()
    except sqlite3.Error as error:
        hint = (
            ": can this user write that directory?"
            if "readonly" in str(error) or "unable to open" in str(error)
            else ""
        )
        raise StartError(f"cannot open the database {path}: {error}{hint}", 1) from None


async def _open_and_close(url: str) -> None:
    store = open_store(url)
    await store.open()
    await store.close()


def check_database(url: str, timeout: float = 10.0) -> None:
    """The database answers and holds (or takes) dudo's tables, or StartError."""
    kind = database_kind(url)
    check_driver(kind)
    if kind == "memory":
        return
    if kind == "sqlite":
        check_sqlite(url)
        return

    async def attempt() -> None:
        async with asyncio.timeout(timeout):
            await _open_and_close(url)

    try:
        asyncio.run(attempt())
    except StoreError as error:
        message = str(error).replace("cannot open database", "cannot reach the database", 1)
        raise StartError(_scrub(message), 1) from None
    except TimeoutError:
        raise StartError(
            f"cannot reach the database {hide_password(url)}: no answer in {timeout:g} s", 1
        ) from None


def check_redis(url: str, timeout: float = 5.0) -> None:
    """Redis (``--cluster``) answers a PING, or StartError."""
    import redis
    from redis.exceptions import RedisError

    shown = hide_password(url)
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    except (ValueError, TypeError) as error:
        raise StartError(
            f"--cluster is not a valid Redis URL ({shown}): {_scrub(str(error))}", 2
        ) from None
    try:
        client.ping()
    except (RedisError, OSError) as error:
        reason = _scrub(str(error) or type(error).__name__)
        raise StartError(f"cannot reach Redis at {shown}: {reason}", 1) from None
    finally:
        client.close()
