"""The storage interface and its in-memory implementation."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol


class StoreError(RuntimeError):
    """The store cannot do what was asked (bad URL, missing room, broken database)."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One entry of a room's log. ``at`` is a wall-clock time (seconds since the epoch)."""

    seq: int
    at: float
    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def data_json(self) -> str:
        return json.dumps(self.data, separators=(",", ":"))


class Store(Protocol):
    """What the server needs from storage. Every method is safe to call concurrently."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def create_room(self, code: str, public: bool, entry: LogEntry) -> bool:
        """Create a room with its first log entry; False if the code is taken."""
        ...

    async def append(self, code: str, entries: list[LogEntry]) -> None:
        """Append entries to a room's log; returns once they are durably committed."""
        ...

    async def load_log(self, code: str) -> list[LogEntry]:
        """A room's whole log, in order."""
        ...

    async def live_rooms(self) -> list[str]:
        """Codes of rooms that are not closed (to rebuild after a restart)."""
        ...

    async def close_room(self, code: str) -> None:
        """Mark a room closed: it is no longer rebuilt after a restart."""
        ...

    async def save_game(self, game_id: str, code: str, record: dict[str, Any]) -> None:
        """Keep a finished game's full record."""
        ...

    async def load_game(self, game_id: str) -> dict[str, Any] | None:
        """A finished game's record, or None."""
        ...


class MemoryStore:
    """Everything in dictionaries: for unit tests and throwaway servers."""

    def __init__(self) -> None:
        self.logs: dict[str, list[LogEntry]] = {}
        self.closed: set[str] = set()
        self.games: dict[str, dict[str, Any]] = {}

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def create_room(self, code: str, public: bool, entry: LogEntry) -> bool:
        if code in self.logs:
            return False
        self.logs[code] = [entry]
        return True

    async def append(self, code: str, entries: list[LogEntry]) -> None:
        if code not in self.logs:
            raise StoreError(f"no room {code!r}")
        self.logs[code].extend(entries)

    async def load_log(self, code: str) -> list[LogEntry]:
        return list(self.logs.get(code, []))

    async def live_rooms(self) -> list[str]:
        return [code for code in self.logs if code not in self.closed]

    async def close_room(self, code: str) -> None:
        self.closed.add(code)

    async def save_game(self, game_id: str, code: str, record: dict[str, Any]) -> None:
        self.games[game_id] = json.loads(json.dumps(record))

    async def load_game(self, game_id: str) -> dict[str, Any] | None:
        return self.games.get(game_id)
