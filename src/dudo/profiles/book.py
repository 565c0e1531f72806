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

import json
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

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
    insert,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from dudo.profiles.rating import MU, SIGMA, rate


class TransferRefused(ValueError):
    """A transfer code that cannot be used: ``reason`` is ``unknown`` (never made here, or
    mistyped), ``expired`` or ``used``."""

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

        return {"id": self.id, "name": self.name, "avatar": self.avatar,
                "created_at": self.created_at, "leaderboard": self.leaderboard,
                "rating": {"mu": round(self.mu, 3), "sigma": round(self.sigma, 3),
                           "shown": shown(self.mu, self.sigma), "games": self.rated_games}}


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

    async def edit(self, profile_id: str, name: str | None = None,
                   leaderboard: bool | None = None) -> Profile | None: ...

    async def add_transfer(self, code_hash: str, profile_id: str, expires_at: float) -> None:
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

    async def edit(self, profile_id: str, name: str | None = None,
                   leaderboard: bool | None = None) -> Profile | None:
        found = self.profiles.get(profile_id)
        if found is None:
            return None
        changed = replace(found, name=found.name if name is None else name,
                          leaderboard=found.leaderboard if leaderboard is None else leaderboard)
        self.profiles[profile_id] = changed
        return changed

    async def add_transfer(self, code_hash: str, profile_id: str, expires_at: float) -> None:
        self.transfers[code_hash] = (profile_id, expires_at, False)

    async def take_transfer(self, code_hash: str, key_hash: str, now: float) -> Profile:
        found = self.transfers.get(code_hash)
        if found is None or found[0] not in self.profiles:
            raise TransferRefused("unknown")
        profile_id, expires_at, used = found
        if used:
            raise TransferRefused("used")
        if expires_at < now:
            raise TransferRefused("expired")
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
            new = rate([(p.mu, p.sigma) for p in players],
                       [game.places[seat] for seat, _ in seats])
            for player, (mu, sigma) in zip(players, new, strict=True):
                self.profiles[player.id] = replace(player, mu=mu, sigma=sigma,
                                                   rated_games=player.rated_games + 1)
        return True

    async def games_of(self, profile_id: str, limit: int = 500) -> list[tuple[str, int, float]]:
        return sorted(self.links.get(profile_id, []), key=lambda row: -row[2])[:limit]

    async def series(self, room: str) -> list[FinishedGame]:
        games = [game for game in self.games.values() if game.room == room]
        if not games:
            return []
        latest = max(game.series for game in games)
        return sorted((game for game in games if game.series == latest),
                      key=lambda game: game.finished_at)

    async def leaderboard(self, limit: int = 50) -> list[Profile]:
        from dudo.profiles.rating import shown

        chosen = [p for p in self.profiles.values() if p.leaderboard and p.rated_games]
        return sorted(chosen, key=lambda p: -shown(p.mu, p.sigma))[:limit]

    async def forget(self, profile_id: str) -> bool:
        if self.profiles.pop(profile_id, None) is None:
            return False
        self.keys = {key: owner for key, owner in self.keys.items() if owner != profile_id}
        self.transfers = {code: row for code, row in self.transfers.items()
                          if row[0] != profile_id}
        self.links.pop(profile_id, None)
        return True


metadata = MetaData()
profiles = Table(
    "profiles", metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("avatar", String(16), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("leaderboard", Boolean, nullable=False, default=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("rated_games", Integer, nullable=False, default=0),
)
profile_keys = Table(
    "profile_keys", metadata,
    Column("key_hash", String(64), primary_key=True),
    Column("profile_id", String(32), nullable=False, index=True),
)
transfer_codes = Table(
    "transfer_codes", metadata,
    Column("code_hash", String(64), primary_key=True),
    Column("profile_id", String(32), nullable=False, index=True),
    Column("expires_at", Float, nullable=False),
    Column("used", Boolean, nullable=False, default=False),
)
finished_games = Table(
    "finished_games", metadata,
    Column("game_id", String(40), primary_key=True),
    Column("room", String(8), nullable=False, index=True),
    Column("series", Float, nullable=False),
    Column("finished_at", Float, nullable=False),
    Column("names", Text, nullable=False),
    Column("winners", Text, nullable=False),
    Column("places", Text, nullable=False),
)
profile_games = Table(
    "profile_games", metadata,
    Column("game_id", String(40), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("profile_id", String(32), nullable=False, index=True),
    Column("finished_at", Float, nullable=False),
)


def _profile(row: Any) -> Profile:
    return Profile(id=row.id, name=row.name, avatar=row.avatar, created_at=row.created_at,
                   leaderboard=bool(row.leaderboard), mu=row.mu, sigma=row.sigma,
                   rated_games=row.rated_games)


class SqlProfiles:
    """The book in the game store's own database (SQLite or PostgreSQL): a cluster's nodes
    share it as they share the rooms."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def open(self) -> None:
        async with self.engine.begin() as connection:
            await connection.run_sync(metadata.create_all)

    def _insert(self, table: Table) -> Any:
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        return dialect.insert(table)

    async def create(self, key_hash: str, profile: Profile) -> Profile:
        async with self.engine.begin() as connection:
            added = await connection.execute(self._insert(profile_keys).values(
                key_hash=key_hash, profile_id=profile.id).on_conflict_do_nothing())
            if added.rowcount == 0:
                owner = (await connection.execute(select(profile_keys.c.profile_id).where(
                    profile_keys.c.key_hash == key_hash))).scalar_one()
                row = (await connection.execute(
                    select(profiles).where(profiles.c.id == owner))).first()
                if row is not None:
                    return _profile(row)
                # A key left behind by a profile that is gone: it is this one's now.
                await connection.execute(update(profile_keys).where(
                    profile_keys.c.key_hash == key_hash).values(profile_id=profile.id))
            await connection.execute(insert(profiles).values(
                id=profile.id, name=profile.name, avatar=profile.avatar,
                created_at=profile.created_at, leaderboard=profile.leaderboard,
                mu=profile.mu, sigma=profile.sigma, rated_games=profile.rated_games))
        return profile

    async def by_key(self, key_hash: str) -> Profile | None:
        async with self.engine.connect() as connection:
            row = (await connection.execute(select(profiles).join(
                profile_keys, profile_keys.c.profile_id == profiles.c.id).where(
                profile_keys.c.key_hash == key_hash))).first()
        return None if row is None else _profile(row)

    async def by_id(self, profile_id: str) -> Profile | None:
        async with self.engine.connect() as connection:
            row = (await connection.execute(
                select(profiles).where(profiles.c.id == profile_id))).first()
        return None if row is None else _profile(row)

    async def edit(self, profile_id: str, name: str | None = None,
                   leaderboard: bool | None = None) -> Profile | None:
        values: dict[str, Any] = {}
        if name is not None:
            values["name"] = name
        if leaderboard is not None:
            values["leaderboard"] = leaderboard
        if values:
            async with self.engine.begin() as connection:
                await connection.execute(
                    update(profiles).where(profiles.c.id == profile_id).values(**values))
        return await self.by_id(profile_id)

    async def add_transfer(self, code_hash: str, profile_id: str, expires_at: float) -> None:
        async with self.engine.begin() as connection:
            await connection.execute(insert(transfer_codes).values(
                code_hash=code_hash, profile_id=profile_id, expires_at=expires_at,
                used=False))

    async def take_transfer(self, code_hash: str, key_hash: str, now: float) -> Profile:
        async with self.engine.begin() as connection:
            row = (await connection.execute(select(transfer_codes).where(
                transfer_codes.c.code_hash == code_hash))).first()
            if row is None:
                raise TransferRefused("unknown")
            if row.used:
                raise TransferRefused("used")
            if row.expires_at < now:
                raise TransferRefused("expired")
            # Conditional on still unused: of two devices racing with one code, one wins.
            taken = await connection.execute(update(transfer_codes).where(
                (transfer_codes.c.code_hash == code_hash)
                & transfer_codes.c.used.is_(False)).values(used=True))
            if taken.rowcount != 1:
                raise TransferRefused("used")
            found = (await connection.execute(
                select(profiles).where(profiles.c.id == row.profile_id))).first()
            if found is None:
                raise TransferRefused("unknown")
            await connection.execute(self._insert(profile_keys).values(
                key_hash=key_hash, profile_id=row.profile_id).on_conflict_do_nothing())
        return _profile(found)

    async def enter_game(self, game: FinishedGame) -> bool:
        async with self.engine.begin() as connection:
            entered = await connection.execute(self._insert(finished_games).values(
                game_id=game.game_id, room=game.room, series=game.series,
                finished_at=game.finished_at, names=json.dumps(game.names),
                winners=json.dumps(game.winners), places=json.dumps(game.places),
            ).on_conflict_do_nothing())
            if entered.rowcount == 0:
                return False
            wanted = {profile for profile in game.profiles if profile is not None}
            if not wanted:
                return True
            # Locked for the update (PostgreSQL): two games ending at once with the same
            # player must not both start from the old rating.
            rows = {row.id: row for row in await connection.execute(
                select(profiles).where(profiles.c.id.in_(sorted(wanted)))
                .order_by(profiles.c.id).with_for_update())}
            seats = rated_seats(game, set(rows))
            for seat, profile in seats:
                await connection.execute(insert(profile_games).values(
                    game_id=game.game_id, seat=seat, profile_id=profile,
                    finished_at=game.finished_at))
            if len(seats) >= 2:
                players = [rows[profile] for _, profile in seats]
                new = rate([(row.mu, row.sigma) for row in players],
                           [game.places[seat] for seat, _ in seats])
                for row, (mu, sigma) in zip(players, new, strict=True):
                    await connection.execute(update(profiles).where(
                        profiles.c.id == row.id).values(
                        mu=mu, sigma=sigma, rated_games=profiles.c.rated_games + 1))
        return True

    async def games_of(self, profile_id: str, limit: int = 500) -> list[tuple[str, int, float]]:
        async with self.engine.connect() as connection:
            result = await connection.execute(
                select(profile_games.c.game_id, profile_games.c.seat,
                       profile_games.c.finished_at)
                .where(profile_games.c.profile_id == profile_id)
                .order_by(profile_games.c.finished_at.desc()).limit(limit))
            return [(game_id, seat, at) for game_id, seat, at in result]

    async def series(self, room: str) -> list[FinishedGame]:
        async with self.engine.connect() as connection:
            latest = (await connection.execute(select(finished_games.c.series).where(
                finished_games.c.room == room).order_by(finished_games.c.series.desc())
                .limit(1))).scalar()
            if latest is None:
                return []
            result = await connection.execute(select(finished_games).where(
                (finished_games.c.room == room) & (finished_games.c.series == latest))
                .order_by(finished_games.c.finished_at))
            return [FinishedGame(row.game_id, row.room, row.series, row.finished_at,
                                 json.loads(row.names), json.loads(row.winners),
                                 json.loads(row.places)) for row in result]

    async def leaderboard(self, limit: int = 50) -> list[Profile]:
        async with self.engine.connect() as connection:
            result = await connection.execute(select(profiles).where(
                profiles.c.leaderboard.is_(True) & (profiles.c.rated_games > 0))
                .order_by((profiles.c.mu - 3 * profiles.c.sigma).desc()).limit(limit))
            return [_profile(row) for row in result]

    async def forget(self, profile_id: str) -> bool:
        async with self.engine.begin() as connection:
            gone = await connection.execute(delete(profiles).where(profiles.c.id == profile_id))
            for table in (profile_keys, transfer_codes, profile_games):
                await connection.execute(delete(table).where(table.c.profile_id == profile_id))
        return bool(gone.rowcount)


async def open_book(store: Any) -> ProfileBook:
    """The book that goes with a game store: in its SQL database, or in memory."""
    engine = getattr(store, "engine", None)
    book: ProfileBook = (SqlProfiles(engine) if isinstance(engine, AsyncEngine)
                         else MemoryProfiles())
    await book.open()
    return book
