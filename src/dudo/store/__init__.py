"""Where rooms and games live: one interface, several backends chosen by URL.

A room is its log (DESIGN.md, "games are logs"): an ordered list of entries (created,
joined, started, rolled, action, ...) that rebuilds the room when replayed. The server
appends entries and is told only once they are committed, so nothing a player was shown
can be lost by a crash. Finished games are also kept whole, as records for replay,
statistics and ``dudo verify``.

``open_store("sqlite:///dudo.db")`` (the default), ``"postgresql://..."`` or
``"memory://"`` (tests).
"""

from __future__ import annotations

from dudo.store.base import LogEntry, Store, StoreError, open_store

__all__ = ["LogEntry", "Store", "StoreError", "open_store"]
