"""``dudo backup``: a consistent copy of a live SQLite database.

Copying ``dudo.db`` with ``cp`` while the server runs can catch the file between two
commits, and misses what is still in the write-ahead log beside it. SQLite's online backup
API copies the database as one read transaction sees it: every room's log up to a commit,
nothing half-written, and the server keeps writing meanwhile (WAL readers block no writer).

The copy is written to a hidden file in the target's directory and linked to the target's
name only when it is whole, so a failed backup leaves nothing behind, and an existing file
is never overwritten. The copy is a single self-contained file (rollback journal mode, no
``-wal`` beside it) that ``dudo serve --database sqlite:///COPY`` opens as it is.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path


class BackupError(Exception):
    """The backup cannot be made; nothing was written."""


@dataclass(frozen=True)
class BackupReport:
    """What the copy holds, to print and to check."""

    path: Path
    size: int  # bytes
    live_rooms: int
    games: int


def sqlite_database(url: str) -> Path:
    """The file of a ``sqlite:///FILE`` URL; BackupError for any other database."""
    if url.startswith(("postgresql:", "postgres:", "postgresql+")):
        raise BackupError(
            "dudo backup copies SQLite databases; back up PostgreSQL with "
            "its own tool: pg_dump --format=custom --file=dudo.dump DATABASE "
            "(pg_restore puts it back)"
        )
    if url.startswith("memory:"):
        raise BackupError("memory:// keeps nothing to back up")
    if not url.startswith("sqlite:///"):
        raise BackupError(f"--database must be sqlite:///FILE, not {url!r}")
    name = url[len("sqlite:///") :].partition("?")[0]
    if not name or name == ":memory:":
        raise BackupError(f"--database {url} names no file")
    return Path(name)


def check_target(target: Path) -> list[Path]:
    """The backup may be written at ``target``: nothing there yet (not even a broken
    link), in a directory this user can write or make. Returns the directories to make
    first, outermost first (``backups/`` for ``backups/dudo.db``, as the README's example
    writes it)."""
    if target.exists() or target.is_symlink():
        raise BackupError(
            f"{target} already exists: give the backup a new name (nothing was overwritten)"
        )
    missing: list[Path] = []
    directory = target.parent
    while not directory.exists() and not directory.is_symlink() and directory != directory.parent:
        missing.insert(0, directory)
        directory = directory.parent
    if not directory.is_dir():
        raise BackupError(f"cannot write {target}: {directory} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise BackupError(f"cannot write {target}: no permission to write in {directory}")
    return missing


def _make_directories(target: Path, missing: list[Path]) -> None:
    for directory in missing:
        try:
            directory.mkdir()
        except FileExistsError:  # made meanwhile (another backup): fine if a directory
            if not directory.is_dir():
                raise BackupError(
                    f"cannot write {target}: {directory} is not a directory"
                ) from None
        except OSError as error:
            raise BackupError(
                f"cannot write {target}: cannot make the directory {directory}: "
                f"{error.strerror or error}"
            ) from None


def _open_source(source: Path) -> sqlite3.Connection:
    if not source.is_file():
        raise BackupError(f"no database at {source}")
    try:
        # mode=rw: never create a file, and let SQLite read the write-ahead log the
        # server keeps beside it.
        connection = sqlite3.connect(f"{source.resolve().as_uri()}?mode=rw", uri=True, timeout=10)
        connection.execute("PRAGMA busy_timeout=10000")
        connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    except sqlite3.Error as error:
        raise BackupError(f"cannot read {source}: {error}") from None
    return connection


def _count(connection: sqlite3.Connection, query: str) -> int:
    try:
        row = connection.execute(query).fetchone()
    except sqlite3.Error:  # a database without dudo's tables (yet)
        return 0
    return int(row[0]) if row else 0


def backup_sqlite(source: Path, target: Path) -> BackupReport:
    """Copy the live SQLite database ``source`` to the new file ``target``."""
    missing = check_target(target)
    reader = _open_source(source)  # before any directory is made for a copy of nothing
    try:
        _make_directories(target, missing)
        handle, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".partial", dir=target.parent
        )
    except (OSError, BackupError) as error:
        reader.close()
        _remove_made(missing)
        if isinstance(error, BackupError):
            raise
        raise BackupError(f"cannot write {target}: {error.strerror or error}") from None
    os.close(handle)
    part = Path(temporary)
    with contextlib.suppress(OSError):  # the source's permissions, not mkstemp's 0600
        part.chmod(source.stat().st_mode & 0o777)
    try:
        try:
            writer = sqlite3.connect(part)
            try:
                reader.backup(writer)  # every page, in one step: one consistent snapshot
                writer.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
                verdict = writer.execute("PRAGMA quick_check").fetchone()[0]
                if verdict != "ok":
                    raise BackupError(f"the copy of {source} fails SQLite's check: {verdict}")
                live = _count(writer, "SELECT count(*) FROM rooms WHERE NOT closed")
                games = _count(writer, "SELECT count(*) FROM games")
            finally:
                writer.close()
        except sqlite3.Error as error:
            raise BackupError(f"cannot back up {source} to {target}: {error}") from None
        _publish(part, target)
    finally:
        reader.close()
        with contextlib.suppress(FileNotFoundError):
            part.unlink()
        if not target.exists():  # a copy that failed leaves no empty directory behind
            _remove_made(missing)
    return BackupReport(target, target.stat().st_size, live, games)


def _remove_made(made: list[Path]) -> None:
    """Remove the directories a failed backup made (innermost first), if still empty."""
    for directory in reversed(made):
        with contextlib.suppress(OSError):
            directory.rmdir()


def _publish(part: Path, target: Path) -> None:
    """Give the finished copy its name, never replacing a file that appeared meanwhile
    (a hard link fails if the name is taken; where links are not supported, a rename
    after a last look)."""
    try:
        os.link(part, target)
    except FileExistsError:
        raise BackupError(
            f"{target} already exists: give the backup a new name (nothing was overwritten)"
        ) from None
    except OSError:
        if target.exists():
            raise BackupError(f"{target} already exists (nothing was overwritten)") from None
        os.replace(part, target)
