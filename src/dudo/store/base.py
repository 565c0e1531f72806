"""The storage interface and its in-memory implementation."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

PASSWORD_SHOWN = "***"
# user:password@ in any URL, up to the last "@" before the host, and a password=...
# parameter. A valid URL percent-encodes a "/", a space or an "@" in its password, but the
# URL printed may be the one a person typed ("user:sec ret@", "user:p/w@"): so the password
# runs to the line's last "@" that does not lie in another URL or past a double quote (a
# JSON log line's fields end there), hiding too much rather than too little. A scheme starts
# where no scheme character precedes it, so a long word is tried once, not from every letter.
URL_PASSWORD = re.compile(
    r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)(?:(?!://)[^\n\"])+(@)"
)
PASSWORD_PARAMETER = re.compile(r"((?:^|[?&\s])password=)[^&\s\"']+", re.IGNORECASE)


def hide_password(text: str) -> str:
    """A URL, or any text quoting URLs, fit to print: the password of each
    ``user:password@`` and of each ``password=`` parameter replaced by ``***`` (database
    and Redis URLs carry them). By the URL's shape, so it hides a password nobody told
    it about, and leaves alone the same word elsewhere (CI's password is "dudo")."""
    text = URL_PASSWORD.sub(rf"\1{PASSWORD_SHOWN}\2", text)
    return PASSWORD_PARAMETER.sub(rf"\1{PASSWORD_SHOWN}", text)


class StoreError(RuntimeError):
    """The store cannot do what was asked (bad URL, missing room, broken database)."""


class LogConflict(StoreError):
    """An append's sequence number is taken: another writer appended to this room's log
    first. Appends are conditional on the sequence, so two processes that both think they
    hold a room can never both write; the one refused must let the room go."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One entry of a room's log. ``at`` is a wall-clock time (seconds since the epoch)."""

    seq: int
    at: float
    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def data_json(self) -> str:
        return compact_json(self.data)


def compact_json(data: Any) -> str:
    """``data`` as compact JSON, as stored: with orjson (every log entry is encoded once on
    its way to the database, one per action). Strings stay UTF-8, not ``\\u`` escapes;
    ``json.loads`` reads either the same."""
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:  # what orjson refuses (an integer over 64 bits)
        return json.dumps(data, separators=(",", ":"))


class Store(Protocol):
    """What the server needs from storage. Every method is safe to call concurrently."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def create_room(
        self, code: str, public: bool, entry: LogEntry, reuse_closed_before: float | None = None
    ) -> bool:
        """Create a room with its first log entry; False if the code is taken.

        A code whose room was closed before ``reuse_closed_before`` (a wall-clock time) is
        free again: that room's log is deleted and the code starts a new room. Finished
        games keep their records (they have ids of their own).
        """
        ...

    async def append(self, code: str, entries: list[LogEntry]) -> None:
        """Append entries to a room's log; returns once they are durably committed.
        Raises :class:`LogConflict` if an entry's sequence number is already taken."""
        ...

    async def load_log(self, code: str) -> list[LogEntry]:
        """A room's whole log, in order."""
        ...

    async def live_rooms(self) -> list[str]:
        """Codes of rooms that are not closed (to rebuild after a restart)."""
        ...

    async def is_live(self, code: str) -> bool:
        """Whether a room with this code exists and is not closed (a node of a cluster
        asks before it takes over a room nobody holds)."""
        ...

    async def close_room(self, code: str) -> None:
        """Mark a room closed: it is no longer rebuilt after a restart."""
        ...

    async def forget_entries(self, code: str, seqs: list[int]) -> None:
        """Delete these entries of a room's log. Only for entries that change nothing on
        replay (stored refusals, kept for exactly-once answers): the rest of the log
        replays the same without them."""
        ...

    async def purge_closed_rooms(self, closed_before: float) -> int:
        """Delete rooms closed before ``closed_before`` with their logs (the retention
        policy: game records are kept); returns how many rooms went."""
        ...

    async def save_game(self, game_id: str, code: str, record: dict[str, Any]) -> None:
        """Keep a finished game's full record; a second save of the same game id keeps
        the first (idempotent, so a room replayed after a crash may save again)."""
        ...

    async def load_game(self, game_id: str) -> dict[str, Any] | None:
        """A finished game's record, or None."""
        ...


class MemoryStore:
    """Everything in dictionaries: for unit tests and throwaway servers."""

    def __init__(self) -> None:
        self.logs: dict[str, list[LogEntry]] = {}
        self.closed: dict[str, float] = {}  # code -> when it closed
        self.games: dict[str, dict[str, Any]] = {}

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def create_room(
        self, code: str, public: bool, entry: LogEntry, reuse_closed_before: float | None = None
    ) -> bool:
        if code in self.logs:
            closed_at = self.closed.get(code)
            if closed_at is None or reuse_closed_before is None or closed_at >= reuse_closed_before:
                return False
            del self.closed[code]
        self.logs[code] = [entry]
        return True

    async def append(self, code: str, entries: list[LogEntry]) -> None:
        log = self.logs.get(code)
        if log is None:
            raise StoreError(f"no room {code!r}")
        taken = {entry.seq for entry in log}
        if any(entry.seq in taken for entry in entries):
            raise LogConflict(
                f"room {code}: another writer took sequence "
                f"{min(e.seq for e in entries if e.seq in taken)}"
            )
        log.extend(entries)

    async def load_log(self, code: str) -> list[LogEntry]:
        return list(self.logs.get(code, []))

    async def live_rooms(self) -> list[str]:
        return [code for code in self.logs if code not in self.closed]

    async def is_live(self, code: str) -> bool:
        return code in self.logs and code not in self.closed

    async def close_room(self, code: str) -> None:
        self.closed.setdefault(code, time.time())

    async def forget_entries(self, code: str, seqs: list[int]) -> None:
        dropped = set(seqs)
        self.logs[code] = [entry for entry in self.logs.get(code, []) if entry.seq not in dropped]

    async def purge_closed_rooms(self, closed_before: float) -> int:
        gone = [code for code, at in self.closed.items() if at < closed_before]
        for code in gone:
            del self.closed[code]
            del self.logs[code]
        return len(gone)

    async def save_game(self, game_id: str, code: str, record: dict[str, Any]) -> None:
        self.games.setdefault(game_id, json.loads(json.dumps(record)))

    async def load_game(self, game_id: str) -> dict[str, Any] | None:
        return self.games.get(game_id)
