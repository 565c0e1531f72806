"""One contract, every backend: the memory store, SQLite, and PostgreSQL when one is given.

PostgreSQL runs when ``DUDO_TEST_POSTGRES`` holds a URL (``.ci/run`` starts a server and sets
it); under CI its absence is a failure, not a skip.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from dudo.store import LogEntry, Store, open_store

POSTGRES = os.environ.get("DUDO_TEST_POSTGRES")


def backends() -> list[str]:
    names = ["memory", "sqlite"]
    if POSTGRES or os.environ.get("CI"):
        names.append("postgresql")
    return names


def store_for(backend: str, tmp_path: Path) -> Store:
    if backend == "memory":
        return open_store("memory://")
    if backend == "sqlite":
        return open_store(f"sqlite:///{tmp_path / 'contract.db'}")
    assert POSTGRES, "CI must provide a PostgreSQL server in DUDO_TEST_POSTGRES"
    return open_store(POSTGRES)


def run(backend: str, tmp_path: Path, body: Callable[[Store], Awaitable[None]]) -> None:
    async def scenario() -> None:
        store = store_for(backend, tmp_path)
        await store.open()
        try:
            await body(store)
        finally:
            await store.close()

    asyncio.run(scenario())


def code() -> str:
    return secrets.token_hex(3).upper()[:4]


@pytest.mark.parametrize("backend", backends())
def test_a_room_log_is_kept_in_order_and_codes_are_unique(backend: str, tmp_path: Path) -> None:
    async def body(store: Store) -> None:
        room = code()
        first = LogEntry(0, 1.5, "created", {"rules": {"preset": "perudo"}, "n": [1, 2]})
        assert await store.create_room(room, True, first)
        assert not await store.create_room(room, False, first)
        entries = [LogEntry(seq, 2.0 + seq, "action", {"seat": seq % 3, "text": "é✓"})
                   for seq in range(1, 40)]
        await asyncio.gather(store.append(room, entries[:20]), store.append(room, entries[20:]))
        log = await store.load_log(room)
        assert [entry.seq for entry in log] == list(range(40))
        assert log[0] == first
        assert log[5].data == {"seat": 2, "text": "é✓"}
        assert room in await store.live_rooms()
        await store.close_room(room)
        assert room not in await store.live_rooms()

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", backends())
def test_finished_games_are_kept_whole(backend: str, tmp_path: Path) -> None:
    async def body(store: Store) -> None:
        game_id = secrets.token_hex(16)
        record = {"rules": {"preset": "dudo"}, "players": 2,
                  "rounds": [{"dice": [[1, 2], [3]], "actions": [{"seat": 0, "bid": [2, 3]}]}],
                  "fairness": [{"round": 1, "server_seed": "ab" * 32}]}
        await store.save_game(game_id, code(), record)
        assert await store.load_game(game_id) == record
        assert await store.load_game(secrets.token_hex(16)) is None

    run(backend, tmp_path, body)
