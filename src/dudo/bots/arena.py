"""The arena: many games among bots, seats rotated, win rates with confidence intervals.

Seats rotate from game to game (game ``g`` seats entrant ``i`` at ``(i + g) mod n``), so no
entrant keeps an advantage of position. Each game has its own seed derived from the arena
seed, so a run replays exactly and splits across processes without changing its results.

A bot's own seed and the game's dice seed come from separate one-way hashes, so a bot
cannot work back from its seed to the dice. That alone is not enough against a bot written
to cheat: arena seeds are small numbers it could simply try. So when a run has bots from
outside the project, the dice also depend on a secret *dice key* drawn for the run
(``dice_key``; printed so the run can still be replayed), which no bot ever sees.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence, Sized
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from dudo.bots.registry import make_bot
from dudo.bots.table import play_bot_game
from dudo.dice import SeededDice
from dudo.game import Game
from dudo.rules import Rules

if TYPE_CHECKING:
    from dudo.bots.ladder import BotStats


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's result: wins (shared wins of a tied points race count in part)."""

    player: str
    wins: float
    games: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """The Wilson score interval for the win rate (95% by default)."""
        if not self.games:
            return (0.0, 1.0)
        n, p = self.games, self.rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))


def _derive(label: str, *parts: object) -> int:
    text = "|".join([label, *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def dice_seed(seed: int, number: int, dice_key: str = "") -> int:
    """The dice seed of game ``number`` of an arena run with ``seed`` (and ``dice_key``)."""
    return _derive("dudo-arena-dice", dice_key, seed, number)


def bot_seed(seed: int, number: int, seat: int) -> int:
    """The seed handed to the bot in ``seat`` of game ``number``."""
    return _derive("dudo-arena-bot", seed, number, seat)


def play_one(
    entrants: Sequence[str],
    rules: Rules,
    seed: int,
    number: int,
    dice_key: str = "",
    budget_ms: float | None = None,
) -> list[float]:
    """Play game ``number``; returns each entrant's share of the win (in entrant order)."""
    return play_counted(entrants, rules, seed, number, dice_key, budget_ms)[0]


def play_counted(
    entrants: Sequence[str],
    rules: Rules,
    seed: int,
    number: int,
    dice_key: str = "",
    budget_ms: float | None = None,
) -> tuple[list[float], list[BotStats]]:
    """Play game ``number``; returns each entrant's share of the win and what it did
    (calls, bluffs, dice lost: the ladder's :class:`~dudo.bots.ladder.BotStats`), in
    entrant order. ``budget_ms`` is every bot's decision budget (see
    :func:`~dudo.bots.registry.make_bot`; ``None``: none, and the run replays exactly)."""
    from dudo.bots.ladder import BotStats, count_events, final_counts

    players = len(entrants)
    shift = number % players
    seating = [(index + shift) % players for index in range(players)]  # entrant -> seat
    by_seat = [""] * players
    for entrant, seat in enumerate(seating):
        by_seat[seat] = entrants[entrant]
    bots = [
        make_bot(spec, seed=bot_seed(seed, number, seat), budget_ms=budget_ms)
        for seat, spec in enumerate(by_seat)
    ]
    game = Game(rules, players, dice=SeededDice(dice_seed(seed, number, dice_key)))
    stats = [BotStats(games=1) for _ in range(players)]
    out: list[int] = []
    winners = play_bot_game(
        game, bots, on_events=lambda events: count_events(game, stats, events, out)
    )
    final_counts(game, stats, winners, out)
    shares = [0.0] * players
    for entrant, seat in enumerate(seating):
        if seat in winners:
            shares[entrant] = 1 / len(winners)
    return shares, [stats[seat] for seat in seating]


BATCH = 5
"""Games per task of a run: small, so the progress bar moves every few seconds even for
the hard bot (about a third of a second a game), and big enough to keep the overhead of
handing work to other processes small."""


def _play_batch(
    entrants: Sequence[str],
    rules: Rules,
    seed: int,
    numbers: Sequence[int],
    dice_key: str = "",
    budget_ms: float | None = None,
) -> list[tuple[list[float], list[BotStats]]]:
    return [play_counted(entrants, rules, seed, number, dice_key, budget_ms) for number in numbers]


Played = TypeVar("Played", bound=Sized)


def play_in_processes(
    jobs: int,
    play: Callable[[list[int]], Played],
    chunks: Sequence[list[int]],
    progress: Callable[[int], None] | None = None,
) -> list[Played]:
    """``play(chunk)`` for every chunk of game numbers, in ``jobs`` processes; the results
    in the chunks' order, and ``progress`` told the games of each chunk as it finishes.

    An exception (Ctrl-C, a bot that failed) stops the run at once: every chunk not started
    is cancelled, and only those being played finish. Each future is cancelled here, as
    ``shutdown(cancel_futures=True)`` alone does not do it: the pool's manager thread
    cancels them only if it still finds the executor, and once the caller has let go of it
    (the exception on its way up) the workers went on to play every queued game, minutes of
    processor behind a run that had already returned.
    """
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures: list[Future[Played]] = []
        try:
            futures.extend(pool.submit(play, chunk) for chunk in chunks)
            for future in as_completed(futures):  # the bar moves as games finish ...
                if progress is not None:
                    progress(len(future.result()))
        except BaseException:
            for future in futures:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        return [future.result() for future in futures]  # ... the results in game order


def run_arena(
    entrants: Sequence[str],
    games: int,
    rules: Rules,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    dice_key: str = "",
    habits: list[BotStats] | None = None,
    budget_ms: float | None = None,
) -> list[Standing]:
    """Play ``games`` games and return one :class:`Standing` per entrant, in order.

    ``budget_ms`` is each bot's decision budget in milliseconds (the hard bot's, and a
    plug-in's that takes one); ``None`` gives none, so the run replays exactly.

    ``habits``, if given (an empty list), receives one :class:`BotStats` per entrant: its
    calls, bluffs and dice lost by cause over the run, as the ladder counts them.
    """
    from dudo.bots.ladder import BotStats

    totals = [0.0] * len(entrants)
    counted = [BotStats() for _ in entrants]
    chunks = [list(range(start, min(start + BATCH, games))) for start in range(0, games, BATCH)]

    def add(results: list[tuple[list[float], list[BotStats]]]) -> None:
        for shares, stats in results:
            for entrant, share in enumerate(shares):
                totals[entrant] += share
            for entrant, seat_stats in enumerate(stats):
                counted[entrant].add(seat_stats)

    if jobs <= 1:
        for chunk in chunks:
            add(_play_batch(entrants, rules, seed, chunk, dice_key, budget_ms))
            if progress is not None:
                progress(len(chunk))
    else:
        play = partial(_play_batch, entrants, rules, seed, dice_key=dice_key, budget_ms=budget_ms)
        for results in play_in_processes(jobs, play, chunks, progress):
            add(results)
    if habits is not None:
        habits[:] = counted
    return [Standing(player, wins, games) for player, wins in zip(entrants, totals, strict=True)]
