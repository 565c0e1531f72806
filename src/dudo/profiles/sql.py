"""The profile book in the game store's own SQL database (SQLite or PostgreSQL): tables of
its own, made when the server starts (an older database gets them then), shared by the
nodes of a cluster as the rooms are."""

from __future__ import annotations

import json
from typing import Any

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

from dudo.profiles.book import (
    TRANSFERS_KEPT,
    FinishedGame,
    Profile,
    TransferRefused,
    rated_seats,
)
from dudo.profiles.rating import rate
from dudo.store.schema import create_tables

metadata = MetaData()
profiles = Table(
    "profiles",
    metadata,
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
    "profile_keys",
    metadata,
    Column("key_hash", String(64), primary_key=True),
    Column("profile_id", String(32), nullable=False, index=True),
)
transfer_codes = Table(
    "transfer_codes",
    metadata,
    Column("code_hash", String(64), primary_key=True),
    Column("profile_id", String(32), nullable=False, index=True),
    Column("expires_at", Float, nullable=False),
    Column("used", Boolean, nullable=False, default=False),
)
finished_games = Table(
    "finished_games",
    metadata,
    Column("game_id", String(40), primary_key=True),
    Column("room", String(8), nullable=False, index=True),
    Column("series", Float, nullable=False),
    Column("finished_at", Float, nullable=False),
    Column("names", Text, nullable=False),
    Column("winners", Text, nullable=False),
    Column("places", Text, nullable=False),
)
profile_games = Table(
    "profile_games",
    metadata,
    Column("game_id", String(40), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("profile_id", String(32), nullable=False, index=True),
    Column("finished_at", Float, nullable=False),
)


def _profile(row: Any) -> Profile:
    return Profile(
        id=row.id,
        name=row.name,
        avatar=row.avatar,
        created_at=row.created_at,
        leaderboard=bool(row.leaderboard),
        mu=row.mu,
        sigma=row.sigma,
        rated_games=row.rated_games,
    )


class SqlProfiles:
    """The book in the game store's own database (SQLite or PostgreSQL): a cluster's nodes
    share it as they share the rooms."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def open(self) -> None:
        await create_tables(self.engine, metadata.create_all)

    def _insert(self, table: Table) -> Any:
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        return dialect.insert(table)

    async def create(self, key_hash: str, profile: Profile) -> Profile:
        async with self.engine.begin() as connection:
            added = await connection.execute(
                self._insert(profile_keys)
                .values(key_hash=key_hash, profile_id=profile.id)
                .on_conflict_do_nothing()
            )
            if added.rowcount == 0:
                owner = (
                    await connection.execute(
                        select(profile_keys.c.profile_id).where(profile_keys.c.key_hash == key_hash)
                    )
                ).scalar_one()
                row = (
                    await connection.execute(select(profiles).where(profiles.c.id == owner))
                ).first()
                if row is not None:
                    return _profile(row)
                # A key left behind by a profile that is gone: it is this one's now.
                await connection.execute(
                    update(profile_keys)
                    .where(profile_keys.c.key_hash == key_hash)
                    .values(profile_id=profile.id)
                )
            await connection.execute(
                insert(profiles).values(
                    id=profile.id,
                    name=profile.name,
                    avatar=profile.avatar,
                    created_at=profile.created_at,
                    leaderboard=profile.leaderboard,
                    mu=profile.mu,
                    sigma=profile.sigma,
                    rated_games=profile.rated_games,
                )
            )
        return profile

    async def by_key(self, key_hash: str) -> Profile | None:
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(profiles)
                    .join(profile_keys, profile_keys.c.profile_id == profiles.c.id)
                    .where(profile_keys.c.key_hash == key_hash)
                )
            ).first()
        return None if row is None else _profile(row)

    async def by_id(self, profile_id: str) -> Profile | None:
        async with self.engine.connect() as connection:
            row = (
                await connection.execute(select(profiles).where(profiles.c.id == profile_id))
            ).first()
        return None if row is None else _profile(row)

    async def edit(
        self, profile_id: str, name: str | None = None, leaderboard: bool | None = None
    ) -> Profile | None:
        values: dict[str, Any] = {}
        if name is not None:
            values["name"] = name
        if leaderboard is not None:
            values["leaderboard"] = leaderboard
        if values:
            async with self.engine.begin() as connection:
                await connection.execute(
                    update(profiles).where(profiles.c.id == profile_id).values(**values)
                )
        return await self.by_id(profile_id)

    async def add_transfer(
        self, code_hash: str, profile_id: str, expires_at: float, now: float
    ) -> None:
        async with self.engine.begin() as connection:
            # The profile's row locked (PostgreSQL; SQLite's first write below takes the
            # database's write lock): two codes made at once still leave TRANSFERS_KEPT.
            await connection.execute(
                select(profiles.c.id).where(profiles.c.id == profile_id).with_for_update()
            )
            mine = transfer_codes.c.profile_id == profile_id
            await connection.execute(
                delete(transfer_codes).where(mine & (transfer_codes.c.expires_at < now))
            )
            newest = await connection.execute(
                select(transfer_codes.c.code_hash)
                .where(mine)
                .order_by(transfer_codes.c.expires_at.desc(), transfer_codes.c.code_hash)
            )
            replaced = list(newest.scalars())[TRANSFERS_KEPT - 1 :]
            if replaced:
                await connection.execute(
                    delete(transfer_codes).where(transfer_codes.c.code_hash.in_(replaced))
                )
            await connection.execute(
                insert(transfer_codes).values(
                    code_hash=code_hash, profile_id=profile_id, expires_at=expires_at, used=False
                )
            )

    async def purge_transfers(self, now: float) -> int:
        async with self.engine.begin() as connection:
            gone = await connection.execute(
                delete(transfer_codes).where(transfer_codes.c.expires_at < now)
            )
        return int(gone.rowcount or 0)

    async def take_transfer(self, code_hash: str, key_hash: str, now: float) -> Profile:
        async with self.engine.begin() as connection:
            row = (
                await connection.execute(
                    select(transfer_codes).where(transfer_codes.c.code_hash == code_hash)
                )
            ).first()
            if row is None:
                raise TransferRefused("unknown")
            if row.used:
                raise TransferRefused("used")
            if row.expires_at < now:
                raise TransferRefused("expired")
            holder = (
                await connection.execute(
                    select(profile_keys.c.profile_id).where(profile_keys.c.key_hash == key_hash)
                )
            ).scalar()
            if holder is not None and holder != row.profile_id:
                raise TransferRefused("taken")  # before the code is spent
            # Conditional on still unused: of two devices racing with one code, one wins.
            taken = await connection.execute(
                update(transfer_codes)
                .where((transfer_codes.c.code_hash == code_hash) & transfer_codes.c.used.is_(False))
                .values(used=True)
            )
            if taken.rowcount != 1:
                raise TransferRefused("used")
            found = (
                await connection.execute(select(profiles).where(profiles.c.id == row.profile_id))
            ).first()
            if found is None:
                raise TransferRefused("unknown")
            await connection.execute(
                self._insert(profile_keys)
                .values(key_hash=key_hash, profile_id=row.profile_id)
                .on_conflict_do_nothing()
            )
        return _profile(found)

    async def enter_game(self, game: FinishedGame) -> bool:
        async with self.engine.begin() as connection:
            entered = await connection.execute(
                self._insert(finished_games)
                .values(
                    game_id=game.game_id,
                    room=game.room,
                    series=game.series,
                    finished_at=game.finished_at,
                    names=json.dumps(game.names),
                    winners=json.dumps(game.winners),
                    places=json.dumps(game.places),
                )
                .on_conflict_do_nothing()
            )
            if entered.rowcount == 0:
                return False
            wanted = {profile for profile in game.profiles if profile is not None}
            if not wanted:
                return True
            # Locked for the update (PostgreSQL): two games ending at once with the same
            # player must not both start from the old rating.
            rows = {
                row.id: row
                for row in await connection.execute(
                    select(profiles)
                    .where(profiles.c.id.in_(sorted(wanted)))
                    .order_by(profiles.c.id)
                    .with_for_update()
                )
            }
            seats = rated_seats(game, set(rows))
            for seat, profile in seats:
                await connection.execute(
                    insert(profile_games).values(
                        game_id=game.game_id,
                        seat=seat,
                        profile_id=profile,
                        finished_at=game.finished_at,
                    )
                )
            if len(seats) >= 2:
                players = [rows[profile] for _, profile in seats]
                new = rate(
                    [(row.mu, row.sigma) for row in players],
                    [game.places[seat] for seat, _ in seats],
                )
                for row, (mu, sigma) in zip(players, new, strict=True):
                    await connection.execute(
                        update(profiles)
                        .where(profiles.c.id == row.id)
                        .values(mu=mu, sigma=sigma, rated_games=profiles.c.rated_games + 1)
                    )
        return True

    async def games_of(self, profile_id: str, limit: int = 500) -> list[tuple[str, int, float]]:
        async with self.engine.connect() as connection:
            result = await connection.execute(
                select(profile_games.c.game_id, profile_games.c.seat, profile_games.c.finished_at)
                .where(profile_games.c.profile_id == profile_id)
                .order_by(profile_games.c.finished_at.desc())
                .limit(limit)
            )
            return [(game_id, seat, at) for game_id, seat, at in result]

    async def series(self, room: str) -> list[FinishedGame]:
        async with self.engine.connect() as connection:
            latest = (
                await connection.execute(
                    select(finished_games.c.series)
                    .where(finished_games.c.room == room)
                    .order_by(finished_games.c.series.desc())
                    .limit(1)
                )
            ).scalar()
            if latest is None:
                return []
            result = await connection.execute(
                select(finished_games)
                .where((finished_games.c.room == room) & (finished_games.c.series == latest))
                .order_by(finished_games.c.finished_at)
            )
            return [
                FinishedGame(
                    row.game_id,
                    row.room,
                    row.series,
                    row.finished_at,
                    json.loads(row.names),
                    json.loads(row.winners),
                    json.loads(row.places),
                )
                for row in result
            ]

    async def leaderboard(self, limit: int = 50) -> list[Profile]:
        async with self.engine.connect() as connection:
            result = await connection.execute(
                select(profiles)
                .where(profiles.c.leaderboard.is_(True) & (profiles.c.rated_games > 0))
                .order_by((profiles.c.mu - 3 * profiles.c.sigma).desc())
                .limit(limit)
            )
            return [_profile(row) for row in result]

    async def forget(self, profile_id: str) -> bool:
        async with self.engine.begin() as connection:
            gone = await connection.execute(delete(profiles).where(profiles.c.id == profile_id))
            for table in (profile_keys, transfer_codes, profile_games):
                await connection.execute(delete(table).where(table.c.profile_id == profile_id))
        return bool(gone.rowcount)
