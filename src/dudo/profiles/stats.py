"""A player's numbers, read from the finished games' records (the records the replay page
``/g/{id}`` shows): nothing is counted as it happens, so the stats can always be made
again from what is kept, and forgetting a profile leaves no counters behind.

Words of the game (docs/rules-spec.md): a *call* is a dudo (the standing bid is false) or a calza
(it is exact). A call is *right* when the reveal proves it (dudo: the bid fails; calza:
the count is exact). A *bluff caught* is one of the player's bids doubted with a dudo and
failing; a *bluff survived* is one of the player's bids doubted with a dudo and holding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dudo.rules import Rules, RulesError
from dudo.scenario import ScenarioError, run_scenario


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One finished game from a player's side: the seat they held and the record."""

    game_id: str
    seat: int
    finished_at: float
    record: Mapping[str, Any]


def game_story(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The record's events (reveals, seats going out, the end), as docs/rules-spec.md prints them;
    an unreadable record tells nothing (an empty story)."""
    try:
        return run_scenario(record)
    except (ScenarioError, KeyError, TypeError, ValueError):
        return []


def places(record: Mapping[str, Any], story: list[dict[str, Any]] | None = None) -> list[int]:
    """Each seat's place in the game, 1 for the winners: the later a seat went out, the
    better its place; seats neither winning nor out (a points race) share the next place.
    ``story``: the record's :func:`game_story`, if already told."""
    players = int(record.get("players", 0))
    out: list[int] = []
    winners: list[int] = []
    for event in game_story(record) if story is None else story:
        if event["event"] == "out":
            out.append(event["seat"])
        elif event["event"] == "game_over":
            winners = list(event["winners"])
    ranks = [0] * players
    for seat in winners:
        ranks[seat] = 1
    rest = [seat for seat in range(players) if seat not in winners and seat not in out]
    for seat in rest:
        ranks[seat] = 2
    next_place = 2 + (1 if rest else 0)
    for seat in reversed(out):
        if seat not in winners:
            ranks[seat] = next_place
            next_place += 1
    return ranks


def preset_of(record: Mapping[str, Any]) -> str:
    """The preset a game's rules start from (house rules count with their preset)."""
    try:
        return str(
            Rules.from_json(record.get("rules") or {}).to_overrides().get("preset", "custom")
        )
    except RulesError:
        return "custom"


def _empty() -> dict[str, int]:
    return {
        "games": 0,
        "wins": 0,
        "rounds": 0,
        "calls_right": 0,
        "calls_wrong": 0,
        "bluffs_caught": 0,
        "bluffs_survived": 0,
        "calza_right": 0,
        "calza_wrong": 0,
        "best_streak": 0,
    }


def profile_stats(games: Iterable[PlayedGame]) -> dict[str, Any]:
    """Totals, the same per preset, and one point per game for the plots (oldest first):
    ``{"total": {...}, "presets": {"perudo": {...}}, "timeline": [{...}, ...]}``."""
    total = _empty()
    presets: dict[str, dict[str, int]] = {}
    timeline: list[dict[str, Any]] = []
    streak: dict[str, int] = {}
    for game in sorted(games, key=lambda played: played.finished_at):
        record, seat = game.record, game.seat
        preset = preset_of(record)
        counts = _empty()
        counts["games"] = 1
        won = False
        for cups in (entry.get("dice", []) for entry in record.get("rounds", [])):
            counts["rounds"] += seat < len(cups) and bool(cups[seat])
        for event in game_story(record):
            kind = event["event"]
            if kind == "game_over":
                won = seat in event["winners"]
            if kind != "reveal":
                continue
            call, outcome = event["call"], event["outcome"]
            if event["caller"] == seat:
                if call == "dudo":
                    counts["calls_right" if outcome == "fails" else "calls_wrong"] += 1
                else:
                    counts["calza_right" if outcome == "exact" else "calza_wrong"] += 1
            if event["bidder"] == seat and call == "dudo":
                counts["bluffs_caught" if outcome == "fails" else "bluffs_survived"] += 1
        counts["wins"] = int(won)
        for key, into in (("total", total), (preset, presets.setdefault(preset, _empty()))):
            for name, value in counts.items():
                if name != "best_streak":
                    into[name] += value
            streak[key] = streak.get(key, 0) + 1 if won else 0
            into["best_streak"] = max(into["best_streak"], streak[key])
        timeline.append(
            {
                "game_id": game.game_id,
                "at": game.finished_at,
                "won": won,
                "preset": preset,
                "calls_right": counts["calls_right"],
                "calls_wrong": counts["calls_wrong"],
            }
        )
    return {"total": total, "presets": presets, "timeline": timeline}
