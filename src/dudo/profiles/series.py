"""An evening's series: the standings across a room's rematches, and what the book is
told when a game ends.

A room's games since it was created are one series (a code used again later, after the
room closed, starts another). Standings go by the names at the table, as the finished
records show them: wins first, then the better average place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dudo.profiles.book import FinishedGame, ProfileBook
from dudo.profiles.stats import game_story, places


def finished_game(
    record: Mapping[str, Any], profiles: Sequence[str | None], series: float, finished_at: float
) -> FinishedGame:
    """The book's entry for a finished game's record (winners and places replayed)."""
    story = game_story(record)
    winners: list[int] = []
    for event in story:
        if event["event"] == "game_over":
            winners = list(event["winners"])
    return FinishedGame(
        game_id=str(record["game_id"]),
        room=str(record.get("room", "")),
        series=series,
        finished_at=finished_at,
        names=[str(name) for name in record.get("names", [])],
        winners=winners,
        places=places(record, story),
        profiles=list(profiles),
    )


def game_recorder(book: Callable[[], ProfileBook], clock: Callable[[], float] = time.time) -> Any:
    """The rooms' ``after_game`` hook: enter each finished game in the book (once)."""

    async def after_game(
        record: Mapping[str, Any], profiles: Sequence[str | None], series: float
    ) -> None:
        await book().enter_game(finished_game(record, profiles, series, clock()))

    return after_game


def standings(games: Sequence[FinishedGame]) -> dict[str, Any]:
    """``{"games": N, "rows": [{"name", "games", "wins", "average_place"}, ...],
    "results": [{"game_id", "winners": [names]}, ...]}``, best first."""
    rows: dict[str, dict[str, Any]] = {}
    for game in games:
        for seat, name in enumerate(game.names):
            if not name:
                continue
            row = rows.setdefault(name, {"name": name, "games": 0, "wins": 0, "places": 0})
            row["games"] += 1
            row["wins"] += seat in game.winners
            row["places"] += game.places[seat] if seat < len(game.places) else len(game.names)
    table = []
    for row in rows.values():
        average = round(row.pop("places") / row["games"], 2)
        table.append({**row, "average_place": average})
    table.sort(key=lambda row: (-row["wins"], row["average_place"], row["name"]))
    return {
        "games": len(games),
        "rows": table,
        "results": [
            {
                "game_id": game.game_id,
                "winners": [game.names[seat] for seat in game.winners if seat < len(game.names)],
            }
            for game in games
        ],
    }
