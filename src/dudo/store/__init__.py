"""Where rooms and games live: one interface, several backends chosen by URL.

A room is its log (a game is its log): an ordered list of entries (created,
joined, started, rolled, action, ...) that rebuilds the room when replayed. The server
appends entries and is told only once they are committed, so nothing a player was shown
can be lost by a crash. Finished games are also kept whole, as records for replay,
statistics and ``dudo verify``.

``open_store("sqlite:///dudo.db")`` (the default), ``"postgresql://..."`` or
``"memory://"`` (tests).
"""

from __future__ import annotations

from dudo.store.base import (
    LogConflict,
    LogEntry,
    MemoryStore,
    Store,
    StoreError,
    hide_password,
)


def open_store(url: str) -> Store:
    """A store for ``url``: ``memory://``, ``sqlite:///path.db`` or ``postgresql://...``."""
    if url.startswith("memory:"):
        return MemoryStore()
    if url.startswith(("sqlite", "postgres")):
        from dudo.store.sql import SqlStore

        return SqlStore(url)
    raise StoreError(
        f"unknown database URL {hide_password(url)!r}: use sqlite:///FILE, "
        "postgresql://... or memory://"
    )


__all__ = [
    "LogConflict",
    "LogEntry",
    "MemoryStore",
    "Store",
    "StoreError",
    "hide_password",
    "open_store",
]
