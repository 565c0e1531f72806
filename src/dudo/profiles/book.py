"""Where profiles live: the profile book, in memory or in the game store's SQL database.

A profile is a public id, a display name and an avatar seed; the device that holds it
keeps a random secret and the book keeps only the secret's hash (a *key*: a profile moved
to a second device has two). A finished game is entered once (its game id is the key in
``finished_games``): the seats held by profiles are linked to them, the room's series gets
a row, and, with two profiles or more at the table, their ratings move. Entering a game
again (a room rebuilt after a crash saves its game again) changes nothing, so ratings move
exactly once per game even on a cluster whose node died at the end of a game.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from dudo.profiles.rating import MU, SIGMA, rate

# Transfer codes one profile holds at most (live, or used and not yet expired): making one
# more replaces the oldest, which then no longer works (a device asking for codes again
# and again never grows the table). Expired codes, used or not, are deleted by the hourly
# purge (purge_transfers) and whenever their profile makes a new one.
TRANSFERS_KEPT = 3


class TransferRefused(ValueError):
    """A transfer code that cannot be used: ``reason`` is ``unknown`` (never made here, or
    mistyped), ``expired``, ``used``, or ``taken`` (the claiming secret already opens
    another profile: the code is left unused)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Profile:
    id: str
    name: str
    avatar: str
    created_at: float
    leaderboard: bool = False
    mu: float = MU
    sigma: float = SIGMA
    rated_games: int = 0

    def public(self) -> dict[str, Any]:
        from dudo.profiles.rating import shown

        return {
            "id": self.id,
            "name": self.name,
            "avatar": self.avatar,
            "created_at": self.created_at,
            "leaderboard": self.leaderboard,
            "rating": {
                "mu": round(self.mu, 3),
                "sigma": round(self.sigma, 3),
                "shown": shown(self.mu, self.sigma),
                "games": self.rated_games,
            },
        }


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What the book keeps of a finished game: no dice, nothing the record does not
    already make public, plus which seats profiles held (never shown to anyone else)."""

    game_id: str
    room: str
    series: float  # when the room was created: a room's rematches share it
    finished_at: float
    names: list[str]
    winners: list[int]
    places: list[int]
    profiles: list[str | None] = field(default_factory=list)


class ProfileBook(Protocol):
    async def open(self) -> None: ...

    async def create(self, key_hash: str, profile: Profile) -> Profile:
        """A new profile with its first key; a key already known gives its profile."""
        ...

    async def by_key(self, key_hash: str) -> Profile | None: ...

    async def by_id(self, profile_id: str) -> Profile | None: ...

    async def edit(
        self, profile_id: str, name: str | None = None, leaderboard: bool | None = None
    ) -> Profile | None: ...

    async def add_transfer(
        self, code_hash: str, profile_id: str, expires_at: float, now: float
    ) -> None:
        """A new transfer code for the profile. Its codes expired by ``now`` are deleted
        and, of the others, only the newest ``TRANSFERS_KEPT - 1`` are kept (the oldest
        are replaced)."""
        ...

    async def purge_transfers(self, now: float) -> int:
        """Delete every transfer code expired by ``now``, used or not; how many."""
        ...

    async def take_transfer(self, code_hash: str, key_hash: str, now: float) -> Profile:
        """Use a transfer code once: ``key_hash`` becomes a key of the code's profile.
        Raises :class:`TransferRefused`."""
        ...

    async def enter_game(self, game: FinishedGame) -> bool:
        """Enter a finished game; False (and nothing changes) if it was entered before."""
        ...

    async def games_of(self, profile_id: str, limit: int = 500) -> list[tuple[str, int, float]]:
        """(game id, seat, finished at) of the profile's games, newest first."""
        ...

    async def series(self, room: str) -> list[FinishedGame]:
        """The games of the room's latest series (its rematches), oldest first, without
        profiles."""
        ...

    async def leaderboard(self, limit: int = 50) -> list[Profile]: ...

    async def forget(self, profile_id: str) -> bool:
        """Delete the profile, its keys, transfer codes and links to games."""
        ...


def rated_seats(game: FinishedGame, known: set[str]) -> list[tuple[int, str]]:
    """(seat, profile) of the seats that count: a known profile's first seat at the table."""
    seen: set[str] = set()
    seats = []
    for seat, profile in enumerate(game.profiles):
        if profile is not None and profile in known and profile not in seen:
            seen.add(profile)
            seats.append((seat, profile))
    return seats


class MemoryProfiles:
    """The book in dictionaries (the memory store's companion: tests, throwaway servers)."""

    def __init__(self) -> None:
        self.profiles: dict[str, Profile] = {}
        self.keys: dict[str, str] = {}
        self.transfers: dict[str, tuple[str, float, bool]] = {}
        self.games: dict[str, FinishedGame] = {}
        self.links: dict[str, list[tuple[str, int, float]]] = {}

    async def open(self) -> None:
        return None

    async def create(self, key_hash: str, profile: Profile) -> Profile:
        if key_hash in self.keys:
            return self.profiles[self.keys[key_hash]]
        self.profiles[profile.id] = profile
        self.keys[key_hash] = profile.id
        return profile

    async def by_key(self, key_hash: str) -> Profile | None:
        found = self.keys.get(key_hash)
        return None if found is None else self.profiles.get(found)

    async def by_id(self, profile_id: str) -> Profile | None:
        return self.profiles.get(profile_id)

    async def edit(
        self, profile_id: str, name: str | None = None, leaderboard: bool | None = None
    ) -> Profile | None:
        found = self.profiles.get(profile_id)
        if found is None:
            return None
        changed = replace(
            found,
            name=found.name if name is None else name,
            leaderboard=found.leaderboard if leaderboard is None else leaderboard,
        )
        self.profiles[profile_id] = changed
        return changed

    async def add_transfer(
        self, code_hash: str, profile_id: str, expires_at: float, now: float
    ) -> None:
        kept = sorted(
            (
                (row[1], code)
                for code, row in self.transfers.items()
                if row[0] == profile_id and row[1] >= now
            ),
            reverse=True,
        )[: TRANSFERS_KEPT - 1]
        keep = {code for _, code in kept}
        self.transfers = {
            code: row
            for code, row in self.transfers.items()
            if row[0] != profile_id or code in keep
        }
        self.transfers[code_hash] = (profile_id, expires_at, False)

    async def purge_transfers(self, now: float) -> int:
        expired = [code for code, row in self.transfers.items() if row[1] < now]
        for code in expired:
            del self.transfers[code]
        return len(expired)

    async def take_transfer(self, code_hash: str, key_hash: str, now: float) -> Profile:
        found = self.transfers.get(code_hash)
        if found is None or found[0] not in self.profiles:
            raise TransferRefused("unknown")
        profile_id, expires_at, used = found
        if used:
            raise TransferRefused("used")
        if expires_at < now:
            raise TransferRefused("expired")
        if self.keys.get(key_hash, profile_id) != profile_id:
            raise TransferRefused("taken")
        self.transfers[code_hash] = (profile_id, expires_at, True)
        self.keys[key_hash] = profile_id
        return self.profiles[profile_id]

    async def enter_game(self, game: FinishedGame) -> bool:
        if game.game_id in self.games:
            return False
        self.games[game.game_id] = replace(game, profiles=[])
        seats = rated_seats(game, set(self.profiles))
        for seat, profile in seats:
            self.links.setdefault(profile, []).append((game.game_id, seat, game.finished_at))
        if len(seats) >= 2:
            players = [self.profiles[profile] for _, profile in seats]
            new = rate([(p.mu, p.sigma) for p in players], [game.places[seat] for seat, _ in seats])
            for player, (mu, sigma) in zip(players, new, strict=True):
                self.profiles[player.id] = replace(
                    player, mu=mu, sigma=sigma, rated_games=player.rated_games + 1
                )
        return True

    async def games_of(self, profile_id: str, limit: int = 500) -> list[tuple[str, int, float]]:
        return sorted(self.links.get(profile_id, []), key=lambda row: -row[2])[:limit]

    async def series(self, room: str) -> list[FinishedGame]:
        games = [game for game in self.games.values() if game.room == room]
        if not games:
            return []
        latest = max(game.series for game in games)
        return sorted(
            (game for game in games if game.series == latest), key=lambda game: game.finished_at
        )

    async def leaderboard(self, limit: int = 50) -> list[Profile]:
        from dudo.profiles.rating import shown

        chosen = [p for p in self.profiles.values() if p.leaderboard and p.rated_games]
        return sorted(chosen, key=lambda p: -shown(p.mu, p.sigma))[:limit]

    async def forget(self, profile_id: str) -> bool:
        if self.profiles.pop(profile_id, None) is None:
            return False
        self.keys = {key: owner for key, owner in self.keys.items() if owner != profile_id}
        self.transfers = {code: row for code, row in self.transfers.items() if row[0] != profile_id}
        self.links.pop(profile_id, None)
        return True


async def open_book(store: Any) -> ProfileBook:
    """The book that goes with a game store: in its SQL database, or in memory."""
    from sqlalchemy.ext.asyncio import AsyncEngine

    from dudo.profiles.sql import SqlProfiles

    engine = getattr(store, "engine", None)
    book: ProfileBook = SqlProfiles(engine) if isinstance(engine, AsyncEngine) else MemoryProfiles()
    await book.open()
    return book
