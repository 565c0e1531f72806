"""The room sweeper in a database outage longer than its interval: one warning per outage
and one line when it is over, never an error line or a traceback; a bug is still an error."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import Any

import pytest
from sqlalchemy import exc as sql_errors

from dudo.rules import Rules
from dudo.server.outage import store_outage
from dudo.server.site.lobby import Lobby
from dudo.server.site.sweeper import sweep_forever
from dudo.store.base import MemoryStore, StoreError
from serverkit import FakeClock, fast_config

SWEEP = 0.02  # seconds between sweeps (DUDO_SWEEP_INTERVAL), for the outage to outlast


class FlakyStore(MemoryStore):
    """A store whose closing and purging fail with ``failure`` while it is set."""

    def __init__(self) -> None:
        super().__init__()
        self.failure: BaseException | None = None
        self.calls = 0

    async def close_room(self, code: str) -> None:
        self.calls += 1
        if self.failure is not None:
            raise self.failure
        await super().close_room(code)

    async def purge_closed_rooms(self, closed_before: float) -> int:
        self.calls += 1
        if self.failure is not None:
            raise self.failure
        return await super().purge_closed_rooms(closed_before)


async def sweeping(lobby: Lobby, store: FlakyStore, failure: BaseException, sweeps: int) -> None:
    """Let the sweeper try the failing store at least ``sweeps`` times."""
    store.failure = failure
    task = asyncio.create_task(sweep_forever(lobby, SWEEP))
    try:
        start = store.calls
        for _ in range(2000):
            if store.calls - start >= sweeps:
                break
            await asyncio.sleep(SWEEP / 2)
        assert store.calls - start >= sweeps
        store.failure = None  # the database is back
        for _ in range(2000):
            if not lobby.rooms:
                break
            await asyncio.sleep(SWEEP / 2)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def idle_lobby() -> tuple[Lobby, FlakyStore]:
    clock = FakeClock()
    store = FlakyStore()
    lobby = Lobby(store, fast_config(close_empty_lobby=300), clock=clock)
    await lobby.create("Ana", rules=Rules.preset("perudo"), seats=2, bots=[], timer=0, public=False)
    clock.advance(1000)  # nobody sat down: the room is due to close
    return lobby, store


def test_a_store_outage_longer_than_the_sweep_interval_logs_one_warning_and_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        lobby, store = await idle_lobby()
        refused = ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")
        await sweeping(lobby, store, refused, sweeps=10)  # 10 sweeps: the outage outlasts 9
        assert not lobby.rooms  # closed once the database was back...
        assert await store.live_rooms() == []  # ...in the store too: not rebuilt at a restart
        assert lobby.health.outages == 1 and not lobby.health.down
        await lobby.close()

    with caplog.at_level(logging.DEBUG):
        asyncio.run(scenario())
    events = [getattr(record, "fields", {}).get("event") for record in caplog.records]
    assert events.count("store_unavailable") == 1, events
    assert events.count("store_recovered") == 1, events
    assert events.index("store_unavailable") < events.index("store_recovered")
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not [record for record in caplog.records if record.exc_info]
    assert "Traceback" not in caplog.text


def test_a_bug_in_a_sweep_is_still_logged_as_an_error_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        lobby, store = await idle_lobby()
        await sweeping(lobby, store, KeyError("a bug, not an outage"), sweeps=3)
        assert lobby.health.outages == 0  # no outage was reported
        await lobby.close()

    with caplog.at_level(logging.DEBUG):
        asyncio.run(scenario())
    errors = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(errors) >= 3 and all(record.exc_info for record in errors)
    assert {record.getMessage() for record in errors} == {"sweeping rooms failed"}
    events = [getattr(record, "fields", {}).get("event") for record in caplog.records]
    assert "store_unavailable" not in events


@pytest.mark.parametrize(
    ("error", "outage"),
    [
        (ConnectionRefusedError(111, "refused"), True),
        (TimeoutError(), True),
        (StoreError("the store is not open"), True),
        (sql_errors.OperationalError("x", {}, sqlite3.OperationalError("locked")), True),
        (sql_errors.OperationalError("x", {}, sqlite3.OperationalError("disk I/O error")), True),
        (sql_errors.InterfaceError("x", {}, Exception("connection is closed")), True),
        (sql_errors.TimeoutError("QueuePool limit reached"), True),
        (sql_errors.ProgrammingError("x", {}, Exception("syntax error")), False),
        (sql_errors.IntegrityError("x", {}, Exception("duplicate key")), False),
        (KeyError("code"), False),
        (AttributeError("no such thing"), False),
    ],
)
def test_store_outages_are_told_from_bugs(error: Any, outage: bool) -> None:
    assert store_outage(error) is outage
