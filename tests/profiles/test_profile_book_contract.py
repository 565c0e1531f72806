"""The profile book's contract on every backend: memory, SQLite, and PostgreSQL when
DUDO_TEST_POSTGRES is set (under CI it must be), in the game store's own database."""

from __future__ import annotations

import asyncio
import secrets
import sqlite3
import subprocess
from pathlib import Path

import pytest
from test_store_contract import POSTGRES, backends, store_for

from dudo.profiles.book import (
    TRANSFERS_KEPT,
    FinishedGame,
    Profile,
    ProfileBook,
    TransferRefused,
    open_book,
)
from dudo.store import Store, open_store


def run(backend: str, tmp_path: Path, body: object) -> None:
    async def scenario() -> None:
        store: Store = store_for(backend, tmp_path)
        await store.open()
        try:
            book = await open_book(store)
            await body(book)  # type: ignore[operator]
        finally:
            await store.close()

    asyncio.run(scenario())


def profile(name: str = "Ana") -> Profile:
    return Profile(id=secrets.token_hex(8), name=name, avatar="ab12cd34", created_at=1.0)


def key() -> str:
    return secrets.token_hex(32)


def game(
    profiles: list[str | None],
    room: str | None = None,
    series: float = 5.0,
    places: list[int] | None = None,
    at: float = 10.0,
) -> FinishedGame:
    seats = len(profiles)
    return FinishedGame(
        game_id=secrets.token_hex(16),
        room=room or secrets.token_hex(4),
        series=series,
        finished_at=at,
        names=[f"P{i}" for i in range(seats)],
        winners=[0],
        places=places or list(range(1, seats + 1)),
        profiles=profiles,
    )


@pytest.mark.parametrize("backend", backends())
def test_a_profile_is_found_by_its_keys_only(backend: str, tmp_path: Path) -> None:
    async def body(book: ProfileBook) -> None:
        first, made = key(), profile()
        assert await book.create(first, made) == made
        assert await book.create(first, profile("Other")) == made  # the key is taken
        assert await book.by_key(first) == made
        assert await book.by_key(key()) is None
        assert await book.by_id(made.id) == made
        edited = await book.edit(made.id, name="Ana B", leaderboard=True)
        assert edited is not None and edited.name == "Ana B" and edited.leaderboard
        assert await book.edit("nobody", name="X") is None

    run(backend, tmp_path, body)


def run_alone(backend: str, tmp_path: Path, body: object) -> None:
    """As :func:`run`, but a PostgreSQL schema of this test's own (dropped after), for a
    test that deletes across profiles (a shared database holds other runs' codes)."""
    if backend != "postgresql":
        run(backend, tmp_path, body)
        return
    assert POSTGRES
    schema = f"dudo_book_{secrets.token_hex(4)}"
    separator = "&" if "?" in POSTGRES else "?"

    async def scenario() -> None:
        store = open_store(f"{POSTGRES}{separator}schema={schema}")
        await store.open()
        try:
            await body(await open_book(store))  # type: ignore[operator]
        finally:
            await store.close()

    try:
        asyncio.run(scenario())
    finally:
        subprocess.run(
            ["psql", POSTGRES, "-q", "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
            capture_output=True,
            timeout=30,
        )


@pytest.mark.parametrize("backend", backends())
def test_a_profile_holds_few_transfer_codes_and_the_oldest_is_replaced(
    backend: str, tmp_path: Path
) -> None:
    """Codes made one after another: only the newest TRANSFERS_KEPT are kept (the oldest
    no longer works, as if never made); a used one counts until it expires, and the codes
    of another profile are left alone."""

    async def body(book: ProfileBook) -> None:
        ana, ben = profile("Ana"), profile("Ben")
        await book.create(key(), ana)
        await book.create(key(), ben)
        bens = secrets.token_hex(32)
        await book.add_transfer(bens, ben.id, expires_at=1000.0, now=0.0)
        codes = [secrets.token_hex(32) for _ in range(TRANSFERS_KEPT + 2)]
        for made, code in enumerate(codes):
            await book.add_transfer(code, ana.id, expires_at=600.0 + made, now=float(made))
        for code in codes[:2]:
            with pytest.raises(TransferRefused) as refused:
                await book.take_transfer(code, key(), now=10.0)
            assert refused.value.reason == "unknown"
        newest = codes[2:]
        assert (await book.take_transfer(newest[0], key(), now=10.0)).id == ana.id
        # Used, not yet expired: still kept (a second device is told it was used) and
        # still one of the three, the oldest, so the next code replaces it.
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(newest[0], key(), now=11.0)
        assert refused.value.reason == "used"
        await book.add_transfer(extra := secrets.token_hex(32), ana.id, 700.0, now=20.0)
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(newest[0], key(), now=21.0)
        assert refused.value.reason == "unknown"
        for code in (*newest[1:], extra):
            assert (await book.take_transfer(code, key(), now=21.0)).id == ana.id
        assert (await book.take_transfer(bens, key(), now=21.0)).id == ben.id

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_expired_and_used_transfer_codes_are_purged(backend: str, tmp_path: Path) -> None:
    """The hourly purge deletes every code expired by then, used or not (a used code is
    told apart from an unknown one until then); a live one stays and still works. Making
    a new code deletes its profile's expired ones too."""

    async def body(book: ProfileBook) -> None:
        ana, ben = profile("Ana"), profile("Ben")
        await book.create(key(), ana)
        await book.create(key(), ben)
        used, stale, live = (secrets.token_hex(32) for _ in range(3))
        await book.add_transfer(used, ana.id, expires_at=600.0, now=0.0)
        await book.add_transfer(stale, ana.id, expires_at=650.0, now=50.0)
        await book.add_transfer(live, ben.id, expires_at=2000.0, now=1400.0)
        await book.take_transfer(used, key(), now=10.0)
        assert await book.purge_transfers(now=100.0) == 0
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(used, key(), now=100.0)
        assert refused.value.reason == "used"
        assert await book.purge_transfers(now=1500.0) == 2
        assert await book.purge_transfers(now=1500.0) == 0
        for code in (used, stale):
            with pytest.raises(TransferRefused) as refused:
                await book.take_transfer(code, key(), now=1500.0)
            assert refused.value.reason == "unknown"
        assert (await book.take_transfer(live, key(), now=1500.0)).id == ben.id
        # A new code of Ana's deletes her expired one on its way in.
        await book.add_transfer(old := secrets.token_hex(32), ana.id, 2100.0, now=1500.0)
        await book.add_transfer(secrets.token_hex(32), ana.id, 2800.0, now=2200.0)
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(old, key(), now=2000.0)
        assert refused.value.reason == "unknown"

    run_alone(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_a_transfer_code_works_once_and_not_after_it_expires(backend: str, tmp_path: Path) -> None:
    async def body(book: ProfileBook) -> None:
        made = profile()
        await book.create(key(), made)
        code = secrets.token_hex(32)
        await book.add_transfer(code, made.id, expires_at=100.0, now=0.0)
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(secrets.token_hex(32), key(), now=50.0)
        assert refused.value.reason == "unknown"
        late = secrets.token_hex(32)
        await book.add_transfer(late, made.id, expires_at=100.0, now=0.0)
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(late, key(), now=100.5)
        assert refused.value.reason == "expired"
        second = key()
        assert (await book.take_transfer(code, second, now=50.0)).id == made.id
        assert (await book.by_key(second)) == made
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(code, key(), now=51.0)
        assert refused.value.reason == "used"

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_a_secret_that_opens_another_profile_cannot_claim_and_leaves_the_code(
    backend: str, tmp_path: Path
) -> None:
    """Every backend alike (SQL used to spend the code and keep the key where it was)."""

    async def body(book: ProfileBook) -> None:
        mine, theirs = profile("Mine"), profile("Theirs")
        my_key, their_key = key(), key()
        await book.create(my_key, mine)
        await book.create(their_key, theirs)
        code = secrets.token_hex(32)
        await book.add_transfer(code, theirs.id, expires_at=100.0, now=0.0)
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(code, my_key, now=50.0)
        assert refused.value.reason == "taken"
        assert (await book.by_key(my_key)) == mine
        # the code is still good, for a fresh secret or for one of its own profile's
        assert (await book.take_transfer(code, their_key, now=51.0)).id == theirs.id
        with pytest.raises(TransferRefused) as refused:
            await book.take_transfer(code, key(), now=52.0)
        assert refused.value.reason == "used"

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_a_finished_game_moves_ratings_exactly_once(backend: str, tmp_path: Path) -> None:
    async def body(book: ProfileBook) -> None:
        ana, ben = profile("Ana"), profile("Ben")
        await book.create(key(), ana)
        await book.create(key(), ben)
        played = game([ana.id, None, ben.id], places=[1, 2, 3])
        # Entered from two places at once (a node rebuilding the room, say): one counts.
        entered = await asyncio.gather(*(book.enter_game(played) for _ in range(4)))
        assert sorted(entered) == [False, False, False, True]
        assert not await book.enter_game(played)
        after_ana, after_ben = await book.by_id(ana.id), await book.by_id(ben.id)
        assert after_ana is not None and after_ben is not None
        assert after_ana.rated_games == after_ben.rated_games == 1
        assert after_ana.mu > 25.0 > after_ben.mu
        assert [row[:2] for row in await book.games_of(ana.id)] == [(played.game_id, 0)]
        assert [row[:2] for row in await book.games_of(ben.id)] == [(played.game_id, 2)]

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_one_profile_alone_or_twice_at_a_table_is_not_rated(backend: str, tmp_path: Path) -> None:
    async def body(book: ProfileBook) -> None:
        ana = profile()
        await book.create(key(), ana)
        assert await book.enter_game(game([ana.id, None]))
        twice = game([ana.id, ana.id, "unknown-profile"])
        assert await book.enter_game(twice)
        found = await book.by_id(ana.id)
        assert found is not None and found.rated_games == 0 and found.mu == 25.0
        assert len(await book.games_of(ana.id)) == 2  # one seat per game counts

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_a_rooms_series_is_its_latest_run_of_games(backend: str, tmp_path: Path) -> None:
    async def body(book: ProfileBook) -> None:
        room = secrets.token_hex(4).upper()
        old = game([None, None], room=room, series=1.0, at=2.0)
        first = game([None, None], room=room, series=9.0, at=11.0)
        second = game([None, None], room=room, series=9.0, at=12.0)
        for played in (second, old, first):
            await book.enter_game(played)
        series = await book.series(room)
        assert [g.game_id for g in series] == [first.game_id, second.game_id]
        assert series[0].names == ["P0", "P1"] and series[0].winners == [0]
        assert series[0].profiles == []  # who held a profile is not part of a series
        assert await book.series("NONE") == []

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_the_leaderboard_lists_only_who_chose_it_and_forget_removes_all(
    backend: str, tmp_path: Path
) -> None:
    async def body(book: ProfileBook) -> None:
        ana, ben, cho = profile("Ana"), profile("Ben"), profile("Cho")
        ana_key = key()
        for made, secret in ((ana, ana_key), (ben, key()), (cho, key())):
            await book.create(secret, made)
        await book.edit(ana.id, leaderboard=True)
        await book.edit(ben.id, leaderboard=True)
        await book.enter_game(game([ana.id, ben.id, cho.id], places=[1, 2, 3]))
        ours = {ana.id, ben.id, cho.id}  # a shared PostgreSQL holds other runs' too

        async def listed() -> list[str]:
            return [p.name for p in await book.leaderboard(10_000) if p.id in ours]

        assert await listed() == ["Ana", "Ben"]
        await book.add_transfer(secrets.token_hex(32), ana.id, 1e12, now=0.0)
        assert await book.forget(ana.id)
        assert not await book.forget(ana.id)
        assert await book.by_key(ana_key) is None and await book.by_id(ana.id) is None
        assert await book.games_of(ana.id) == []
        assert await listed() == ["Ben"]

    run(backend, tmp_path, body)


def test_a_database_made_before_profiles_gets_their_tables(tmp_path: Path) -> None:
    """An older dudo.db (rooms and games only) opens, and the profile tables are added."""
    path = tmp_path / "contract.db"
    connection = sqlite3.connect(path)
    connection.execute(
        "CREATE TABLE games (game_id VARCHAR(40) PRIMARY KEY, code VARCHAR(8) "
        "NOT NULL, finished_at FLOAT NOT NULL, record TEXT NOT NULL)"
    )
    connection.commit()
    connection.close()

    async def body(book: ProfileBook) -> None:
        made = profile()
        await book.create(key(), made)
        assert await book.by_id(made.id) == made

    run("sqlite", tmp_path, body)
    tables = {
        name
        for (name,) in sqlite3.connect(path).execute(
            "SELECT name FROM sqlite_master WHERE type='table'"
        )
    }
    assert {
        "profiles",
        "profile_keys",
        "transfer_codes",
        "finished_games",
        "profile_games",
        "games",
        "rooms",
    } <= tables
