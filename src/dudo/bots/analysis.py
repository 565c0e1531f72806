"""After the game: every decision weighed from the seat that made it.

:func:`analyze` replays a finished game's record through the engine (``Game`` and the one
door, :func:`dudo.view.view`) and, before every bid and call, looks at the table as that
seat saw it: its own dice, the dice counts and the public bids, never the other cups. For
each decision it gives

- the chance that the standing bid was true *from that seat* (and, for a bid, that the new
  bid is; for a calza, that the count is exact): the binomial over the dice the seat could
  not see, each counting with chance 1/3 for a face other than one while ones are wild,
  else 1/6 (:func:`dudo.bots.base.bid_odds`, the odds the normal bot plays by);
- what the hard bot would have done on that very view, one hard bot per seat that has seen
  the game as that seat saw it (so it has learnt from the same reveals);
- a simple expected value: the dice the seat should expect to lose (points to take, in a
  points race) if this action is the one judged, a call at once and a bid when the next
  player calls it, with an exact calza's die back counted as a gain;
- marks for clear mistakes (:data:`BAD_CALL`, :data:`LONG_SHOT`) and bluffs (:data:`BLUFF`).
  A move hard would make on that view (its choice, or one it plays at least
  :data:`HARD_PLAUSIBLE` of the time) is never marked a mistake: the analysis never calls
  wrong what it offers as the move to make.

The per-player summary counts calls right and wrong, bluffs made and caught, the average
risk taken and how often the seat chose what hard would have. The chances are what the
seat could know; the outcome is what the cups held: a good call can lose, and the analysis
says both.

A game of Common Hand (``bids: poker``) is weighed the same way with the exact odds of
hands (:func:`dudo.bots.poker.view_odds`): ``own`` is then how many of the seat's dice the
hand uses, ``p`` the chance of one unseen die showing a named face, and there is no count
(``standing_count`` and ``after.count`` are ``null``) and no calza.

This is the bots layer: it reads a record (a plain dict) and returns plain data; the server
(``GET /api/games/{id}/analysis``) and ``dudo analyze`` only carry it.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dudo.bids import Bid
from dudo.bots.base import bid_odds, exact_odds, exactly, match_chance, own_matches, quantity_bid
from dudo.bots.hard import HardBot
from dudo.bots.poker import view_odds
from dudo.bots.registry import make_bot
from dudo.dice import ScriptedDice
from dudo.game import (
    CALZA,
    DUDO,
    Action,
    AnyBid,
    Call,
    Game,
    Phase,
    PlayerOut,
    Revealed,
    action_to_json,
    bid_to_json,
)
from dudo.hands import Hand
from dudo.rules import Rules
from dudo.scenario import MOVED_BY, ScenarioError, parse_action, replay, start_game
from dudo.view import SeatView, view

FORMAT = 1
"""The version of the analysis's JSON form (``"format"`` in it)."""
BAD_CALL = 0.8
"""Calling "liar" on a bid at least this likely to hold, from the caller's own view, is
marked as a mistake."""
LONG_SHOT = 0.2
"""A bid less likely than this to hold, from the bidder's own view, is marked as a mistake
when another choice was at hand that was at least :data:`LONG_SHOT_MARGIN` likelier to
win (a raise or a call): a long shot taken with nothing better is no clear mistake."""
LONG_SHOT_MARGIN = 0.25
BLUFF = 0.5
"""A bid less likely than this to hold, from the bidder's own view, counts as a bluff."""
MISTAKES = ("call_on_likely_bid", "long_shot")
"""Every code a decision's ``mistake`` can have. The JSON gives each with its parameters
(``params``: ``holds``, the chance the called bid or the new bid held from the seat; for
``long_shot`` also ``best``, the best other choice's chance), so a page can say it in
its language (``rp.mistake.<code>`` in the web page's locales); ``text`` is the sentence
in English, for anything that does not know the code."""
HARD_PLAUSIBLE = 0.05
"""A move hard plays at least this often on the same view (its ``hard.share``) is one hard
would make, and so never marked a mistake, whichever move hard drew this time."""
HARD_SEED = 20240613
"""Hard picks by a weighted draw: a fixed seed makes the analysis of a record the same
every time it is made."""


class AnalysisError(ValueError):
    """The record cannot be analysed (it is not a game that replays); one line."""


@dataclass(frozen=True, slots=True)
class Odds:
    """How a bid looked from one seat: own dice counting for it, unseen dice, each unseen
    die's chance to count, and the chance the bid holds (``holds``) or is exact."""

    own: int
    unseen: int
    chance: float
    holds: float
    exact: float

    def to_json(self) -> dict[str, Any]:
        return {
            "own": self.own,
            "unseen": self.unseen,
            "p": round(self.chance, 6),
            "holds": round(self.holds, 6),
            "exact": round(self.exact, 6),
        }


def odds(seat_view: SeatView, bid: AnyBid) -> Odds:
    """The odds of ``bid`` from ``seat_view``'s own dice, the others' dice unseen."""
    if isinstance(bid, Hand):
        used = sum(min(k, seat_view.dice.count(face)) for face, k in bid.needs())
        return Odds(
            own=used,
            unseen=seat_view.dice_in_play - len(seat_view.dice),
            chance=len(bid.needs()) / 6,
            holds=view_odds(bid, seat_view.dice, seat_view.dice_in_play),
            exact=0.0,
        )
    return Odds(
        own=own_matches(seat_view.dice, bid.face, seat_view.wild),
        unseen=seat_view.dice_in_play - len(seat_view.dice),
        chance=match_chance(bid.face, seat_view.wild),
        holds=bid_odds(seat_view, bid),
        exact=exact_odds(seat_view, bid),
    )


def count_distribution(seat_view: SeatView, face: int) -> list[float]:
    """P(the table's count for ``face`` is k), k = 0..dice in play, from this seat's view."""
    have = own_matches(seat_view.dice, face, seat_view.wild)
    unseen = seat_view.dice_in_play - len(seat_view.dice)
    chance = match_chance(face, seat_view.wild)
    return [exactly(k - have, unseen, chance) for k in range(seat_view.dice_in_play + 1)]


def expected_change(seat_view: SeatView, action: Action | None) -> float:
    """The dice ``seat_view``'s seat should expect to gain (negative: lose) if ``action`` is
    judged: a call at once, a bid when the next player calls it. In a points race, minus
    the points to take. ``None`` (letting a calza chance go by) changes nothing."""
    seat = seat_view.seat
    assert seat is not None
    rules = seat_view.rules
    points = rules.format == "points"
    held = seat_view.dice_counts[seat]

    def loss(amount: int) -> int:
        return amount if points else min(amount, held)

    def by_difference(count: int, quantity: int) -> int:
        return max(1, abs(count - quantity)) if rules.loss_by_difference else 1

    if action is None:
        return 0.0
    if isinstance(seat_view.standing, Hand) or isinstance(action, Hand):
        if action is DUDO:  # the caller loses when the hand holds
            assert seat_view.standing is not None
            return -odds(seat_view, seat_view.standing).holds * loss(1)
        assert isinstance(action, Hand)
        return -(1 - odds(seat_view, action).holds) * loss(1)
    if action is CALZA:
        standing = quantity_bid(seat_view.standing)
        assert standing is not None
        exact = exact_odds(seat_view, standing)
        gain = 0 if points or held >= rules.starting_dice else 1
        return exact * gain - (1 - exact) * loss(1)
    bid = seat_view.standing if action is DUDO else action
    assert isinstance(bid, Bid)
    distribution = count_distribution(seat_view, bid.face)
    if action is DUDO:  # the caller loses when the bid holds
        losing = range(bid.quantity, len(distribution))
    else:  # the bidder loses when it is called and falls short
        losing = range(min(bid.quantity, len(distribution)))
    return -sum(distribution[k] * loss(by_difference(k, bid.quantity)) for k in losing)


def risk(seat_view: SeatView, action: Action | None) -> float:
    """The chance ``action`` loses (a call at once, a bid if it is called)."""
    if action is None:
        return 0.0
    if isinstance(seat_view.standing, Hand) or isinstance(action, Hand):
        if action is DUDO:
            assert seat_view.standing is not None
            return odds(seat_view, seat_view.standing).holds
        assert isinstance(action, Hand)
        return 1 - odds(seat_view, action).holds
    standing = quantity_bid(seat_view.standing)
    if action is DUDO:
        assert standing is not None
        return bid_odds(seat_view, standing)
    if action is CALZA:
        assert standing is not None
        return 1 - exact_odds(seat_view, standing)
    assert isinstance(action, Bid)
    return 1 - bid_odds(seat_view, action)


def _action_json(action: Action | None) -> dict[str, Any] | None:
    if action is None:
        return None
    return action_to_json(action)


def _bid_json(bid: AnyBid | None) -> list[int] | dict[str, Any] | None:
    """A quantity bid as ``[q, f]``, a hand as its object (``{"hand": ...}``)."""
    return None if bid is None else bid_to_json(bid)


@dataclass
class Decision:
    """One bid or call, weighed from the seat that made it."""

    round: int
    index: int
    seat: int
    action: Action
    kind: str  # "open", "raise", "dudo" or "calza"
    standing: AnyBid | None
    standing_odds: Odds | None
    bid_odds: Odds | None
    risk: float
    ev: float
    hard: Action | None
    hard_ev: float
    best_alternative: float
    # The chance hard plays this very move on the view (None: not known: no hard asked,
    # or Common Hand, where hard's choice is not broken down).
    hard_share: float | None
    # What the cups held (the engine's count) and what the step left standing.
    standing_count: int | None
    after: AnyBid | None
    after_count: int | None
    wild_after: bool
    bluff: bool = False
    caught: bool = False
    mistake: str | None = None
    outcome: str | None = None  # for calls: "right" or "wrong"
    # Who made it when the seat's player did not: "timer" or "stand_in" (a bot either way).
    by: str | None = None

    @property
    def agrees(self) -> bool:
        return self.hard == self.action

    @property
    def hard_would(self) -> bool:
        """Whether hard would make this move: its choice, or one it plays at least
        :data:`HARD_PLAUSIBLE` of the time on this view."""
        return self.agrees or (self.hard_share is not None and self.hard_share >= HARD_PLAUSIBLE)

    def mistake_params(self) -> dict[str, float] | None:
        """The numbers the mistake's sentence says (chances, 0 to 1)."""
        if self.mistake == "call_on_likely_bid":
            assert self.standing_odds is not None
            return {"holds": round(self.standing_odds.holds, 6)}
        if self.mistake == "long_shot":
            assert self.bid_odds is not None
            return {
                "holds": round(self.bid_odds.holds, 6),
                "best": round(self.best_alternative, 6),
            }
        return None

    def mistake_text(self) -> str | None:
        if self.mistake == "call_on_likely_bid":
            assert self.standing_odds is not None
            return (
                f"called Liar! on a bid that was {self.standing_odds.holds:.0%} likely to hold "
                "from this seat"
            )
        if self.mistake == "long_shot":
            assert self.bid_odds is not None
            return (
                f"bid at {self.bid_odds.holds:.0%} when another choice had "
                f"{self.best_alternative:.0%}"
            )
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "index": self.index,
            "seat": self.seat,
            "action": _action_json(self.action),
            "kind": self.kind,
            "standing": _bid_json(self.standing),
            "standing_holds": None
            if self.standing_odds is None
            else round(self.standing_odds.holds, 6),
            "standing_odds": None if self.standing_odds is None else self.standing_odds.to_json(),
            "bid_holds": None if self.bid_odds is None else round(self.bid_odds.holds, 6),
            "bid_odds": None if self.bid_odds is None else self.bid_odds.to_json(),
            "risk": round(self.risk, 6),
            "ev": round(self.ev, 6),
            "hard": {
                "action": _action_json(self.hard),
                "ev": round(self.hard_ev, 6),
                "same": self.agrees,
                "share": None if self.hard_share is None else round(self.hard_share, 6),
            },
            "best_alternative": round(self.best_alternative, 6),
            "standing_count": self.standing_count,
            "after": {
                "standing": _bid_json(self.after),
                "count": self.after_count,
                "wild": self.wild_after,
            },
            "bluff": self.bluff,
            "caught": self.caught,
            "mistake": None
            if self.mistake is None
            else {
                "code": self.mistake,
                "params": self.mistake_params(),
                "text": self.mistake_text(),
            },
            "outcome": self.outcome,
            "by": self.by,
        }


@dataclass
class RoundAnalysis:
    number: int
    opener: int
    palifico: bool
    wild: bool
    dice_counts: tuple[int, ...]
    cups: tuple[tuple[int, ...], ...]
    decisions: list[Decision] = field(default_factory=list)
    reveal: Revealed | None = None
    out: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        reveal = None
        if self.reveal is not None:
            reveal = self.reveal.to_json()
            del reveal["event"]
            reveal.update(loser=self.reveal.loser, change=self.reveal.change, wild=self.reveal.wild)
        return {
            "number": self.number,
            "opener": self.opener,
            "palifico": self.palifico,
            "wild": self.wild,
            "dice_counts": list(self.dice_counts),
            "dice": [list(cup) for cup in self.cups],
            "steps": [decision.to_json() for decision in self.decisions],
            "reveal": reveal,
            "out": self.out,
        }


@dataclass
class PlayerSummary:
    seat: int
    name: str
    bot: bool
    decisions: int = 0
    bids: int = 0
    dudo_right: int = 0
    dudo_wrong: int = 0
    calza_right: int = 0
    calza_wrong: int = 0
    bluffs: int = 0
    bluffs_caught: int = 0
    mistakes: int = 0
    agreed_with_hard: int = 0
    total_risk: float = 0.0
    ev: float = 0.0
    hard_ev: float = 0.0
    # Moves a bot made for this seat (its timer ran out, or it stood in): the bot's, so
    # they are counted here and in no other number of the player's.
    by_bot: int = 0

    @property
    def calls_right(self) -> int:
        return self.dudo_right + self.calza_right

    @property
    def calls_wrong(self) -> int:
        return self.dudo_wrong + self.calza_wrong

    @property
    def average_risk(self) -> float | None:
        return self.total_risk / self.decisions if self.decisions else None

    def add(self, decision: Decision) -> None:
        self.decisions += 1
        self.total_risk += decision.risk
        self.ev += decision.ev
        self.hard_ev += decision.hard_ev
        self.agreed_with_hard += decision.agrees
        self.mistakes += decision.mistake is not None
        if isinstance(decision.action, Bid | Hand):
            self.bids += 1
            self.bluffs += decision.bluff
        elif decision.action is DUDO:
            if decision.outcome == "right":
                self.dudo_right += 1
            else:
                self.dudo_wrong += 1
        elif decision.outcome == "right":
            self.calza_right += 1
        else:
            self.calza_wrong += 1

    def to_json(self) -> dict[str, Any]:
        average = self.average_risk
        return {
            "seat": self.seat,
            "name": self.name,
            "bot": self.bot,
            "decisions": self.decisions,
            "bids": self.bids,
            "calls": {
                "right": self.calls_right,
                "wrong": self.calls_wrong,
                "dudo": {"right": self.dudo_right, "wrong": self.dudo_wrong},
                "calza": {"right": self.calza_right, "wrong": self.calza_wrong},
            },
            "bluffs": self.bluffs,
            "bluffs_caught": self.bluffs_caught,
            "mistakes": self.mistakes,
            "agreed_with_hard": self.agreed_with_hard,
            "average_risk": None if average is None else round(average, 6),
            "ev": round(self.ev, 6),
            "hard_ev": round(self.hard_ev, 6),
            "by_bot": self.by_bot,
        }


@dataclass
class Analysis:
    """A whole game weighed decision by decision; :meth:`to_json` is the API's answer."""

    rules: Rules
    players: int
    names: list[str]
    bots: list[int]
    game_id: str | None
    rounds: list[RoundAnalysis]
    summary: list[PlayerSummary]
    winners: tuple[int, ...]

    @property
    def decisions(self) -> list[Decision]:
        return [decision for entry in self.rounds for decision in entry.decisions]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game_id": self.game_id,
            "players": self.players,
            "names": self.names,
            "bots": self.bots,
            "rules": self.rules.to_json(),
            "rules_overrides": self.rules.to_overrides(),
            "winners": list(self.winners),
            "thresholds": {
                "bad_call": BAD_CALL,
                "long_shot": LONG_SHOT,
                "long_shot_margin": LONG_SHOT_MARGIN,
                "bluff": BLUFF,
            },
            "rounds": [entry.to_json() for entry in self.rounds],
            "summary": [player.to_json() for player in self.summary],
        }


def _best_alternative(seat_view: SeatView, action: Action) -> float:
    """The best chance to win among the seat's other choices: a raise holding, or a call
    of the standing bid being right."""
    best = 0.0
    if seat_view.rules.bids == "poker":
        if DUDO in seat_view.legal and action is not DUDO and seat_view.standing is not None:
            best = 1 - odds(seat_view, seat_view.standing).holds
        for hand in seat_view.legal.hands:
            if hand != action:
                best = max(best, odds(seat_view, hand).holds)
        return best
    standing = quantity_bid(seat_view.standing)
    if DUDO in seat_view.legal and action is not DUDO and standing is not None:
        best = 1 - bid_odds(seat_view, standing)
    if CALZA in seat_view.legal and action is not CALZA and standing is not None:
        best = max(best, exact_odds(seat_view, standing))
    for bid in seat_view.legal.bids:
        if bid != action:
            best = max(best, bid_odds(seat_view, bid))
            if best >= 1.0:
                break
    return best


def _names(record: Mapping[str, Any], players: int) -> list[str]:
    names = record.get("names")
    if (
        isinstance(names, list)
        and len(names) == players
        and all(isinstance(name, str) for name in names)
    ):
        return list(names)
    return [f"Player {seat + 1}" for seat in range(players)]


def _seed(game_id: str | None, seat: int) -> int:
    return HARD_SEED + zlib.crc32(f"{game_id or ''}|{seat}".encode())


def analyze(record: Mapping[str, Any], *, hard: bool = True) -> Analysis:
    """Weigh every decision of a game record (or any scenario that replays without an
    illegal action). ``hard=False`` leaves out what hard would have done (much faster).
    Raises :class:`AnalysisError` for a record that does not replay."""
    if not isinstance(record, Mapping):
        raise AnalysisError("a game record is a JSON object")
    scenario = {
        key: record[key] for key in ("rules", "players", "start", "rounds") if key in record
    }
    try:
        final = replay(scenario)  # every check of scenario files, and every action legal
    except ScenarioError as error:
        raise AnalysisError(str(error)) from None
    rules = final.rules
    players = final.players
    game = start_game(rules, players, scenario.get("start", {}), ScriptedDice([]))
    raw_bots = record.get("bots", [])
    bot_seats = (
        sorted({seat for seat in raw_bots if type(seat) is int})
        if isinstance(raw_bots, list)
        else []
    )
    game_id = record.get("game_id") if isinstance(record.get("game_id"), str) else None
    names = _names(record, players)
    summary = [PlayerSummary(seat, names[seat], seat in bot_seats) for seat in range(players)]
    hard_bots = {seat: make_bot("hard", seed=_seed(game_id, seat)) for seat in range(players)}
    rounds: list[RoundAnalysis] = []
    for number, entry in enumerate(scenario["rounds"], start=1):
        header = game.round_header()
        cups = tuple(tuple(cup) for cup in entry["dice"])
        game.roll(cups)
        current = RoundAnalysis(
            number, header.opener, header.palifico, header.wild, header.dice_counts, cups
        )
        rounds.append(current)
        for index, raw in enumerate(entry.get("actions", [])):
            seat, action = parse_action(raw, players)
            seen = view(game, seat)
            decision = _weigh(
                seen, number, index, seat, action, game, hard_bots[seat] if hard else None
            )
            events = game.apply(seat, action)
            decision.after = game.standing if game.phase is Phase.BIDDING else None
            decision.after_count = (
                game.count(decision.after.face) if isinstance(decision.after, Bid) else None
            )
            decision.wild_after = game.wild
            for event in events:
                if isinstance(event, Revealed):
                    current.reveal = event
                    decision.wild_after = event.wild
                    _judge_call(current, decision, event, summary)
                elif isinstance(event, PlayerOut):
                    current.out.append(event.seat)
            by = raw.get("by") if isinstance(raw, dict) else None
            decision.by = by if by in MOVED_BY else None
            current.decisions.append(decision)
            if decision.by is None:
                summary[seat].add(decision)
            else:
                summary[seat].by_bot += 1
    return Analysis(rules, players, names, bot_seats, game_id, rounds, summary, final.winners)


def _weigh(
    seen: SeatView, number: int, index: int, seat: int, action: Action, game: Game, hard_bot: Any
) -> Decision:
    standing = seen.standing
    standing_odds = odds(seen, standing) if standing is not None else None
    bid_view = odds(seen, action) if isinstance(action, Bid | Hand) else None
    kind = action.value if isinstance(action, Call) else "raise" if standing else "open"
    chosen: Action | None = None
    share: float | None = None
    if isinstance(hard_bot, HardBot) and seen.rules.bids != "poker":
        weighed = hard_bot.weigh(seen)  # what act would do, and the chance of every move
        chosen = hard_bot.choose(weighed)
        share = weighed.share(action)
    elif hard_bot is not None:
        chosen = hard_bot.act(seen)
    decision = Decision(
        round=number,
        index=index,
        seat=seat,
        action=action,
        kind=kind,
        standing=standing,
        standing_odds=standing_odds,
        bid_odds=bid_view,
        risk=risk(seen, action),
        ev=expected_change(seen, action),
        hard=chosen,
        hard_ev=expected_change(seen, chosen) if hard_bot is not None else 0.0,
        best_alternative=_best_alternative(seen, action),
        hard_share=share,
        standing_count=game.count(standing.face) if isinstance(standing, Bid) else None,
        after=None,
        after_count=None,
        wild_after=seen.wild,
    )
    if bid_view is not None:
        decision.bluff = bid_view.holds < BLUFF
    if hard_bot is None or not decision.hard_would:
        decision.mistake = _mistake(action, standing_odds, bid_view, decision.best_alternative)
    return decision


def _mistake(
    action: Action, standing_odds: Odds | None, bid_odds: Odds | None, best_alternative: float
) -> str | None:
    """The clear mistake the plain odds see in ``action``, if any (see :data:`MISTAKES`).

    The analysis asks this only of a move hard would not make on the same view (its choice,
    or a move it plays at least :data:`HARD_PLAUSIBLE` of the time): hard reads the bids (a
    jump says "I hold many"), which the plain odds from the seat's own cup ignore, so a
    raise that looks like a long shot from the cup alone can be hard's own choice, and a
    move the analysis offers as what to do instead is never called a mistake.
    """
    if action is DUDO and standing_odds is not None and standing_odds.holds >= BAD_CALL:
        return "call_on_likely_bid"
    if (
        bid_odds is not None
        and bid_odds.holds < LONG_SHOT
        and best_alternative >= bid_odds.holds + LONG_SHOT_MARGIN
    ):
        return "long_shot"
    return None


def _judge_call(
    current: RoundAnalysis, decision: Decision, reveal: Revealed, summary: Sequence[PlayerSummary]
) -> None:
    """The call's outcome, and whether the bid it called was a bluff that was caught."""
    if reveal.call is DUDO:
        decision.outcome = "right" if reveal.outcome == "fails" else "wrong"
        if reveal.outcome == "fails":
            # The called bid is the last bid of the round: its bidder's decision.
            for earlier in reversed(current.decisions):
                if isinstance(earlier.action, Bid | Hand):
                    if earlier.bluff:
                        earlier.caught = True
                        if earlier.by is None:  # a bot's bluff is not the player's
                            summary[earlier.seat].bluffs_caught += 1
                    break
    else:
        decision.outcome = "right" if reveal.outcome == "exact" else "wrong"


__all__ = [
    "BAD_CALL",
    "BLUFF",
    "HARD_PLAUSIBLE",
    "LONG_SHOT",
    "MISTAKES",
    "Analysis",
    "AnalysisError",
    "Decision",
    "Odds",
    "PlayerSummary",
    "analyze",
    "count_distribution",
    "expected_change",
    "odds",
    "risk",
]
