"""Making the tables when the server starts, safe when several servers start at once.

The nodes of a cluster (and ``docker compose up`` with several replicas) often start
together on a fresh database. Each one checks which tables exist and creates the missing
ones; two that check at the same moment both try to create the same table, and the second
fails ("table rooms already exists"), so that node does not start. On PostgreSQL the
creation is serialised by an advisory lock held for its transaction; on SQLite, which has
no such lock, a start that lost the race tries again and then finds the tables made.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

# pg_advisory_xact_lock's key for making dudo's tables ("dudo" in ASCII).
SCHEMA_LOCK = 0x6475646F
ATTEMPTS = 5


def lost_a_race(error: BaseException) -> bool:
    """Whether ``error`` says another process made the same thing first."""
    words = str(error).lower()
    return "already exists" in words or "duplicate" in words


async def create_tables(
    engine: AsyncEngine, setup: Callable[[Any], None], schema: str | None = None
) -> None:
    """Run ``setup`` (``metadata.create_all`` and any upgrades, given a synchronous
    connection) in one transaction, in ``schema`` (made if missing) on PostgreSQL."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            async with engine.begin() as connection:
                if engine.dialect.name == "postgresql":
                    await connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK}
                    )
                if schema is not None:
                    await connection.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
                await connection.run_sync(setup)
            return
        except SQLAlchemyError as error:
            if attempt == ATTEMPTS or not lost_a_race(error):
                raise
            await asyncio.sleep(0.05 * attempt)
