"""The ladder: many bots, rated against each other, with the habits that explain the rating.

``dudo arena --ladder`` plays either a **heads-up round-robin** (every pair of entrants, game
``g`` played by pair ``g mod P`` of the ``P`` pairs, so the pairs share the games evenly) or
**mixed tables** of ``seats`` bots (each game draws ``seats`` entrants from the pool, all of
them when the pool is that size). Seating is shuffled game by game from the run's seed, and
each game's dice and each bot's seed come from the arena's one-way hashes
(:func:`dudo.bots.arena.dice_seed`, :func:`dudo.bots.arena.bot_seed`), so a run replays
exactly from its seed (and dice key) whatever the number of worker processes.

Ratings are OpenSkill's (the ``openskill`` package, Weng-Lin Plackett-Luce model), updated
game by game in game order from each table's finishing order: the winner first, then the
players in reverse order of elimination (in a points race: by points, ties sharing a place).
The bots do not change during a run, so the model's drift term ``tau`` is 0 and ``sigma``
only shrinks as evidence comes in. Each rating is reported as ``mu``, ``sigma``, the interval
``mu ± 2 sigma`` and OpenSkill's conservative ``ordinal`` (``mu - 3 sigma``), by which the
table is sorted.

What each bot did, counted from the game's events:

- **call accuracy**: the share of its calls that were right, "dudo" on a bid that failed and
  "calza" on an exact one (both also reported apart);
- **bluff rate**: the share of its bids whose quantity exceeds what its own cup holds for
  the face plus the expected count among the dice it cannot see (unseen dice times 1/3 for
  a face other than ones while ones are wild, else 1/6): bids its own dice made unlikely,
  whatever the bids before them said (a bot that reads the others' bids raises past its
  own cup on their word, so its rate is high without any lying; the rate among its opening
  bids, made before anyone has said anything, is reported apart);
- **dice lost by cause**: calling a bid that held (``calling``), its own bid called and
  false (``called``), a calza that was not exact (``calza``); in a points race the same
  causes count penalty points. The causes add up to ``total``, which is counted apart from
  each game's end (dice it started with plus dice won back on calzas minus dice it ended
  with; in a points race its final points).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import partial
from itertools import combinations
from typing import Any

from dudo.bots.arena import (
    BATCH,
    Standing,
    _derive,
    bot_seed,
    dice_seed,
    play_in_processes,
)
from dudo.bots.base import quantity_bid
from dudo.bots.poker import view_odds
from dudo.bots.registry import make_bot
from dudo.bots.table import play_bot_game
from dudo.dice import SeededDice
from dudo.game import CALZA, DUDO, BidPlaced, Event, Game, PlayerOut, Revealed
from dudo.hands import Hand
from dudo.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

MAX_ENTRANTS = 16
"""The largest pool a ladder takes (a table seats at most ``MAX_PLAYERS`` of them)."""
INTERVAL_Z = 2.0
"""The reported interval is ``mu ± INTERVAL_Z * sigma``."""


class LadderError(ValueError):
    """Entrants or a table size a ladder cannot be played with; the message says why."""


@dataclass(slots=True)
class BotStats:
    """What one entrant did over a run (or one game): results, calls, bids and losses."""

    games: int = 0
    wins: float = 0.0
    places: int = 0
    dudo_calls: int = 0
    dudo_right: int = 0
    calza_calls: int = 0
    calza_right: int = 0
    calza_gained: int = 0
    bids: int = 0
    bluffs: int = 0
    openings: int = 0
    opening_bluffs: int = 0
    lost_calling: int = 0
    lost_called: int = 0
    lost_calza: int = 0
    lost_total: int = 0

    def add(self, other: BotStats) -> None:
        for item in fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))

    @property
    def calls(self) -> int:
        return self.dudo_calls + self.calza_calls

    @property
    def call_accuracy(self) -> float | None:
        """The share of its calls (dudo and calza) that were right; ``None`` with no call."""
        return (self.dudo_right + self.calza_right) / self.calls if self.calls else None

    @property
    def bluff_rate(self) -> float | None:
        """The share of its bids that were bluffs (see the module's docstring)."""
        return self.bluffs / self.bids if self.bids else None

    @property
    def opening_bluff_rate(self) -> float | None:
        """The share of its opening bids (the first bid of a round) that were bluffs."""
        return self.opening_bluffs / self.openings if self.openings else None

    @property
    def lost_by_cause(self) -> dict[str, int]:
        return {"calling": self.lost_calling, "called": self.lost_called, "calza": self.lost_calza}

    def habits_json(self) -> dict[str, Any]:
        """What the entrant did, as ``dudo arena --json`` (with or without ``--ladder``)
        reports it: place, calls, bids and bluffs, dice lost by cause."""
        return {
            "mean_place": self.places / self.games if self.games else None,
            "calls": {
                "dudo": self.dudo_calls,
                "dudo_right": self.dudo_right,
                "calza": self.calza_calls,
                "calza_right": self.calza_right,
            },
            "call_accuracy": self.call_accuracy,
            "bids": self.bids,
            "bluffs": self.bluffs,
            "bluff_rate": self.bluff_rate,
            "openings": self.openings,
            "opening_bluffs": self.opening_bluffs,
            "opening_bluff_rate": self.opening_bluff_rate,
            "dice_lost": {"total": self.lost_total, **self.lost_by_cause},
            "dice_won_on_calza": self.calza_gained,
        }


@dataclass(frozen=True, slots=True)
class GameResult:
    """One ladder game: who sat where (entrant indices by seat), finishing places (1 is
    the winner), each seat's win share and what each seat did."""

    number: int
    entrants: tuple[int, ...]
    places: tuple[int, ...]
    shares: tuple[float, ...]
    stats: tuple[BotStats, ...]


@dataclass(frozen=True, slots=True)
class Rating:
    """One entrant's OpenSkill rating after a run."""

    mu: float
    sigma: float

    @property
    def low(self) -> float:
        return self.mu - INTERVAL_Z * self.sigma

    @property
    def high(self) -> float:
        return self.mu + INTERVAL_Z * self.sigma

    @property
    def ordinal(self) -> float:
        """OpenSkill's conservative estimate, ``mu - 3 sigma``."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class Entry:
    """A row of the ladder: an entrant, its rating and its habits."""

    player: str
    rating: Rating
    stats: BotStats

    @property
    def standing(self) -> Standing:
        return Standing(self.player, self.stats.wins, self.stats.games)


@dataclass(frozen=True, slots=True)
class PairResult:
    """Heads-up round-robin: one pair's games and each one's wins."""

    players: tuple[str, str]
    games: int
    wins: tuple[float, float]


@dataclass(frozen=True, slots=True)
class LadderReport:
    """A whole run: its settings, the rows best first, and (heads-up) each pair's score."""

    games: int
    seats: int
    seed: int
    rules: Rules
    entries: tuple[Entry, ...]
    pairs: tuple[PairResult, ...] = ()
    dice_key: str = ""

    @property
    def mode(self) -> str:
        return "heads-up" if self.seats == 2 else "table"

    def to_json(self) -> dict[str, Any]:
        """The ``--ladder --json`` shape (documented in docs/benchmarks.md)."""

        def number(value: float) -> float | int:
            return int(value) if float(value).is_integer() else value

        players = []
        for entry in self.entries:
            stats, rating = entry.stats, entry.rating
            low, high = entry.standing.interval()
            players.append(
                {
                    "player": entry.player,
                    "rating": {
                        "mu": rating.mu,
                        "sigma": rating.sigma,
                        "low": rating.low,
                        "high": rating.high,
                        "ordinal": rating.ordinal,
                    },
                    "games": stats.games,
                    "wins": number(stats.wins),
                    "win_rate": entry.standing.rate,
                    "win_interval": [low, high],
                    **stats.habits_json(),
                }
            )
        data: dict[str, Any] = {
            "ladder": self.mode,
            "seats": self.seats,
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules.to_overrides(),
            "rating_model": "openskill PlackettLuce (tau 0), interval mu ± 2 sigma, "
            "ordinal mu - 3 sigma",
            "players": players,
        }
        if self.pairs:
            data["pairs"] = [
                {
                    "players": list(pair.players),
                    "games": pair.games,
                    "wins": [number(wins) for wins in pair.wins],
                }
                for pair in self.pairs
            ]
        if self.dice_key:
            data["dice_key"] = self.dice_key
        return data


def check_entrants(entrants: Sequence[str], seats: int) -> None:
    """Raise :class:`LadderError` unless ``entrants`` and ``seats`` make a ladder."""
    if not 2 <= len(entrants) <= MAX_ENTRANTS:
        raise LadderError(f"a ladder needs 2 to {MAX_ENTRANTS} entrants, not {len(entrants)}")
    repeated = sorted({name for name in entrants if entrants.count(name) > 1})
    if repeated:
        raise LadderError(
            f"a ladder rates each entrant once; {', '.join(repeated)} is listed more than once"
        )
    if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise LadderError(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {seats}")
    if seats > len(entrants):
        raise LadderError(f"tables of {seats} need at least {seats} entrants, not {len(entrants)}")


def pairings(count: int) -> list[tuple[int, int]]:
    """The pairs of a heads-up round-robin among ``count`` entrants, in play order."""
    return list(combinations(range(count), 2))


def seating(count: int, seats: int, seed: int, number: int) -> list[int]:
    """Entrant indices by seat for game ``number``: shuffled, and in a heads-up
    round-robin the pair ``number mod P``."""
    rng = random.Random(_derive("dudo-ladder-seats", seed, number))
    if seats == 2:
        pairs = pairings(count)
        table = list(pairs[number % len(pairs)])
        rng.shuffle(table)
        return table
    return rng.sample(range(count), seats)


def _expected_unseen(game: Game, seat: int, face: int) -> float:
    unseen = sum(game.dice_counts) - len(game.cups[seat])
    return unseen * (1 / 3 if game.wild and face != 1 else 1 / 6)


def is_bluff(game: Game, seat: int, quantity: int, face: int) -> bool:
    """Whether a bid of ``quantity`` ``face`` by ``seat`` exceeds what the seat's own cup
    holds for the face plus the expected count among the dice it cannot see."""
    wild = game.wild and face != 1
    own = sum(1 for die in game.cups[seat] if die == face or (wild and die == 1))
    return quantity > own + _expected_unseen(game, seat, face)


def is_hand_bluff(game: Game, seat: int, hand: Hand) -> bool:
    """The Common Hand form of :func:`is_bluff`: a hand that the seat's own cup makes less
    likely than not (the exact odds, every other die unseen)."""
    return view_odds(hand, game.cups[seat], sum(game.dice_counts)) < 0.5


def count_events(
    game: Game, stats: Sequence[BotStats], events: list[Event], out: list[int]
) -> None:
    """Count into ``stats`` (one per seat) what ``events`` show each seat did: bids and
    bluffs, calls and whether they were right, dice lost by cause; seats that went out are
    appended to ``out`` in order. Called as the game goes (``play_bot_game``'s
    ``on_events``), while the game still holds the round the events come from."""
    rules = game.rules
    for event in events:
        if isinstance(event, BidPlaced):
            # The round of the bid is still the game's round: its cups and dice counts.
            bidder = stats[event.seat]
            if isinstance(event.bid, Hand):
                bluff = is_hand_bluff(game, event.seat, event.bid)
            else:
                bid = quantity_bid(event.bid)
                bluff = is_bluff(game, event.seat, bid.quantity, bid.face)
            bidder.bids += 1
            bidder.bluffs += bluff
            if len(game.bids) == 1:
                bidder.openings += 1
                bidder.opening_bluffs += bluff
        elif isinstance(event, Revealed):
            caller = stats[event.caller]
            if event.call is DUDO:
                caller.dudo_calls += 1
                caller.dudo_right += event.outcome == "fails"
            else:
                caller.calza_calls += 1
                caller.calza_right += event.outcome == "exact"
            if event.loser is None:
                if event.call is CALZA and rules.format == "elimination":
                    caller.calza_gained += event.change
                continue
            loser = stats[event.loser]
            if event.call is CALZA:
                loser.lost_calza += event.change
            elif event.loser == event.caller:
                loser.lost_calling += event.change
            else:
                loser.lost_called += event.change
        elif isinstance(event, PlayerOut):
            out.append(event.seat)


def play_ladder_game(
    entrants: Sequence[str],
    rules: Rules,
    seed: int,
    number: int,
    seats: int,
    dice_key: str = "",
    budget_ms: float | None = None,
) -> GameResult:
    """Play game ``number`` of a ladder run and count what each seat did (``budget_ms``:
    each bot's decision budget, as in :func:`~dudo.bots.arena.run_arena`)."""
    table = seating(len(entrants), seats, seed, number)
    bots = [
        make_bot(entrants[entrant], seed=bot_seed(seed, number, seat), budget_ms=budget_ms)
        for seat, entrant in enumerate(table)
    ]
    game = Game(rules, seats, dice=SeededDice(dice_seed(seed, number, dice_key)))
    stats = [BotStats(games=1) for _ in table]
    out: list[int] = []

    def seen(events: list[Event]) -> None:
        count_events(game, stats, events, out)

    winners = play_bot_game(game, bots, on_events=seen)
    places, shares = final_counts(game, stats, winners, out)
    return GameResult(number, tuple(table), tuple(places), tuple(shares), tuple(stats))


def final_counts(
    game: Game, stats: Sequence[BotStats], winners: Sequence[int], out: Sequence[int]
) -> tuple[list[int], list[float]]:
    """At a game's end: each seat's place and share of the win, counted into ``stats``
    with its dice lost in all (in a points race: its points)."""
    rules, seats = game.rules, game.players
    if rules.format == "points":
        points = game.points
        places = [1 + sum(1 for other in points if other < mine) for mine in points]
        for seat, mine in enumerate(points):
            stats[seat].lost_total = mine
    else:
        order = {seat: index for index, seat in enumerate(out)}  # first out: index 0
        places = [1 if seat in winners else seats - order[seat] for seat in range(seats)]
        for seat, seat_stats in enumerate(stats):
            seat_stats.lost_total = (
                rules.starting_dice + seat_stats.calza_gained - game.dice_counts[seat]
            )
    shares = [1 / len(winners) if seat in winners else 0.0 for seat in range(seats)]
    for seat, seat_stats in enumerate(stats):
        seat_stats.wins = shares[seat]
        seat_stats.places = places[seat]
    return places, shares


def _play_batch(
    entrants: Sequence[str],
    rules: Rules,
    seed: int,
    numbers: Sequence[int],
    seats: int,
    dice_key: str,
    budget_ms: float | None = None,
) -> list[GameResult]:
    return [
        play_ladder_game(entrants, rules, seed, number, seats, dice_key, budget_ms)
        for number in numbers
    ]


def rate(count: int, results: Sequence[GameResult]) -> list[Rating]:
    """OpenSkill ratings of ``count`` entrants from ``results``, taken in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    ratings = [model.rating() for _ in range(count)]
    for result in results:
        teams = [[ratings[entrant]] for entrant in result.entrants]
        updated = model.rate(teams, ranks=list(result.places))
        for entrant, (rating,) in zip(result.entrants, updated, strict=True):
            ratings[entrant] = rating
    return [Rating(rating.mu, rating.sigma) for rating in ratings]


def run_ladder(
    entrants: Sequence[str],
    games: int,
    rules: Rules,
    seats: int = 2,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    dice_key: str = "",
    budget_ms: float | None = None,
) -> LadderReport:
    """Play a ladder run of ``games`` games and rate the entrants (``budget_ms``: each
    bot's decision budget, as in :func:`~dudo.bots.arena.run_arena`)."""
    check_entrants(entrants, seats)
    if seats == 2 and games < len(pairings(len(entrants))):
        raise LadderError(
            f"a heads-up round-robin of {len(entrants)} entrants has "
            f"{len(pairings(len(entrants)))} pairs: --games must be at least that"
        )
    chunks = [list(range(start, min(start + BATCH, games))) for start in range(0, games, BATCH)]
    results: list[GameResult] = []

    if jobs <= 1:
        for chunk in chunks:
            results.extend(_play_batch(entrants, rules, seed, chunk, seats, dice_key, budget_ms))
            if progress is not None:
                progress(len(chunk))
    else:
        play = partial(
            _play_batch, entrants, rules, seed, seats=seats, dice_key=dice_key, budget_ms=budget_ms
        )
        for batch in play_in_processes(jobs, play, chunks, progress):
            results.extend(batch)
    totals = [BotStats() for _ in entrants]
    pair_games: dict[tuple[int, int], list[float]] = {}
    for result in results:
        for entrant, stats in zip(result.entrants, result.stats, strict=True):
            totals[entrant].add(stats)
        if seats == 2:
            first, second = sorted(result.entrants)
            score = pair_games.setdefault((first, second), [0, 0.0, 0.0])
            score[0] += 1
            for entrant, share in zip(result.entrants, result.shares, strict=True):
                score[1 if entrant == first else 2] += share
    ratings = rate(len(entrants), results)
    entries = sorted(
        (
            Entry(name, rating, stats)
            for name, rating, stats in zip(entrants, ratings, totals, strict=True)
        ),
        key=lambda entry: -entry.rating.ordinal,
    )
    pairs = tuple(
        PairResult((entrants[first], entrants[second]), int(score[0]), (score[1], score[2]))
        for (first, second), score in sorted(pair_games.items())
    )
    return LadderReport(games, seats, seed, rules, tuple(entries), pairs, dice_key)
