"""Hard: reads the table, weighs every option by the chance it costs a die, and cannot be read.

What sets it apart from the normal bot:

1. **A belief over each opponent's dice that reads bid quantities.** For every opponent it
   keeps a probability over all hands that player could hold (multisets of their dice),
   starts from the dice's own odds and updates by Bayes on each of their bids this round.
   The model of a bidder: among the raises open to them, they pick by how likely each looks
   *from their own cup* (mostly the safest; almost never one their cup makes hopeless),
   except for a share of bluffs, which are mostly cheap raises. So a forced small raise says
   little, a jump to a big quantity says "I hold many of them", and a hand that makes the bid
   look hopeless becomes unlikely.
2. **The chance of losing a die, option by option, from the next player's side.** Calling
   loses when the standing bid holds. A raise loses when the next player calls it and it is
   false, and it can still lose later when they raise instead. Whether they call depends on
   their own cup, and so does whether our raise is true: for every hand the next player
   might hold, the bot weighs "they call" against "it holds given that hand", so a raise
   that only a hand which would call it makes false is seen for what it is. It never calls
   a bid its own dice already make true.
3. **It learns each opponent.** After every round the cups are shown. For every decision an
   opponent made, it sees how likely the bid they faced looked from their cup and whether
   they called, and fits when that player calls; for every bid they made, it weighs whether
   their cup backed it or it was a bluff, and fits how often they bluff.
4. **Mixed play.** It picks by a softmax over those chances, so equal options are played
   unpredictably. In heads-up endgames small enough to solve (every 1v1 round, under any
   rules; :mod:`dudo.bots.solved`) it plays the CFR equilibrium strategy instead: shipped
   for the presets, solved on first use and cached on disk for other rules; and in the
   heads-up rounds of up to four dice in play, a strategy solved the same way for a memory
   of the last three or four bids (:mod:`dudo.bots.window`, near equilibrium). Made with
   ``wait_for_solves=False`` (the server, the terminal game) it never waits for a solve:
   until the strategy is ready it plays its heuristic, and it starts the solves in the
   background when it first sees the rules.

It sees only its seat's view: the bids are public, the belief is its own inference.

In Common Hand (``bids: poker``) it plays as :mod:`dudo.bots.poker_hard` describes.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations_with_replacement
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from dudo.bids import Bid, Ladder, Order, ladder, quantity_limits
from dudo.bots import solved
from dudo.bots.base import Persona, SeededBot, quantity_bid
from dudo.bots.endgame import Strategy, endgame_policy
from dudo.bots.poker_hard import PokerPlayer
from dudo.game import CALZA, DUDO, Action, Revealed
from dudo.rules import Rules
from dudo.view import SeatView

FaceCounts = NDArray[np.int64]
Weights = NDArray[np.float64]

# The bidder model (the belief's likelihood). Parameters were chosen on arena seed 1000
# against the opponents in bench/opponents/ (tavern and perudo, heads-up and a five-player
# table); docs/benchmarks.md reports them on other seeds.
CHOICE = 8.0
LOG_CHOICE = 1.0
"""A bidder picks among the raises open to them with weight
``exp(CHOICE * (s - 1)) * s ** LOG_CHOICE``, ``s`` being the chance the raise holds from their
own cup: mostly the safest, and almost never one their cup makes hopeless. The ``s`` factor
is what reads a jump: without it a hand with nothing is nearly as likely to jump to a big
quantity as to raise by one, so the jump said little (issue 11's "under-reads big raises").
A further term that took a share of bids as picked evenly among all raises the cup backs
read jumps harder but cost 6 points against ``bayes``, so it was dropped."""
BLUFF = 0.15
"""The share of bids assumed to say nothing about the bidder's hand (learned per opponent)."""
BLUFF_SPREAD = 3.0
"""A bluff is mostly a cheap raise: its chance falls off geometrically, by ``e`` every this
many steps up the ladder, so a big jump is seldom taken for one."""
OPTIONS = 20
"""How many of the cheapest raises a bidder is assumed to choose among."""
BLUFF_PRIOR = 10.0
"""Learning an opponent's share of bluffs from the reveals starts from :data:`BLUFF` as if
it had seen this many bids."""
CALL_AT = 0.3
"""The next player is assumed to call a raise about as often as not when, from their own
cup, it holds with this chance (learned per opponent from the reveals)."""
CALL_SHARPNESS = 10.0
"""How sharply their inclination to call rises as a raise looks unlikely to them."""
LATER_HEADS_UP = (0.25, 0.20)
"""When the next player raises instead of calling, the chance we still lose the die this
round: ``base + slope * P(our raise was true)`` heads-up (a false raise that is raised over
tends to be followed by a false bid we can call)."""
LATER_TABLE = (0.12, 0.10)
"""The same at a table of three or more, where the die may be lost by someone else."""
CALZA_CAUTION = 0.2
"""Calza needs the exact count, which the belief reads least well: its expected gain must
clear this margin (measured: without it, calzas were right only 41% of the time)."""
LEARN = True
"""Learn each opponent from the reveals (off only to measure what it is worth)."""
PER_HAND = True
"""Read "they call" and "it holds" per hand of the next player (off only to measure it: then
they are taken as independent, as the hard bot before issue 11 did)."""
TEMPERATURE = 0.02
"""Softmax temperature over the chances of losing: lower plays more greedily."""
CANDIDATES = 60
"""How many of the cheapest legal raises are weighed."""
BUDGET_MS = 20.0
"""The decision budget the server gives its hard bots (``DUDO_BOT_BUDGET_MS``), in
milliseconds of wall clock from the start of a decision. Once a budget is spent, the raises of
faces not yet weighed are left out (the calls and the raises of the face with the cheapest
raise are always weighed). At 6 players x 5 dice a decision takes about 1 ms
(docs/benchmarks.md), so 20 ms binds only on a stalled machine. A bot has no budget unless
it is given one (``budget_ms=``; ``dudo arena --budget-ms``): a budget that binds makes
play depend on the machine's speed, and arena runs and analyses must replay exactly."""


# -- hands and odds ------------------------------------------------------------------------


@cache
def hands(dice: int) -> tuple[FaceCounts, Weights]:
    """Every hand of ``dice`` dice as face counts (rows, columns faces 1..6), with its
    probability under fair dice."""
    rows = []
    probabilities = []
    for hand in combinations_with_replacement(range(6), dice):
        counts = [0] * 6
        for face in hand:
            counts[face] += 1
        ways = math.factorial(dice)
        for count in counts:
            ways //= math.factorial(count)
        rows.append(counts)
        probabilities.append(ways / 6**dice)
    return np.array(rows, dtype=np.int64).reshape(-1, 6), np.array(probabilities)


@cache
def matches(dice: int, wild: bool) -> FaceCounts:
    """For every hand of ``dice`` dice, how many count for each face (columns 1..6)."""
    counts, _ = hands(dice)
    if not wild:
        return counts
    result = counts.copy()
    result[:, 1:] += counts[:, :1]
    return result


@cache
def _tail_table(unseen: int, chance: float) -> Weights:
    """``table[k]`` = P(at least k of ``unseen`` dice match), for k = 0..unseen + 1."""
    exact = np.array(
        [math.comb(unseen, k) * chance**k * (1 - chance) ** (unseen - k) for k in range(unseen + 1)]
    )
    tail: Weights = np.minimum(np.concatenate([np.cumsum(exact[::-1])[::-1], [0.0]]), 1.0)
    return tail


def _tail(distribution: Weights) -> Weights:
    """``tail[k]`` = P(count >= k) for k = 0..len, from P(count = k)."""
    return np.concatenate([np.cumsum(distribution[::-1])[::-1], [0.0]])


def _lookup(tail: Weights, needed: NDArray[np.int64]) -> Weights:
    """``tail[needed]`` with ``needed`` clipped to the table (below 0 holds surely)."""
    return tail[np.clip(needed, 0, len(tail) - 1)]


def _own(dice: tuple[int, ...], face: int, wild: bool) -> int:
    counts = wild and face != 1
    return sum(1 for die in dice if die == face or (counts and die == 1))


class RoundShape(Protocol):
    """What the legal raises of a round depend on (a :class:`SeatView` has it all)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def dice_counts(self) -> tuple[int, ...]: ...
    @property
    def palifico(self) -> bool: ...
    @property
    def dice_in_play(self) -> int: ...


@dataclass(frozen=True)
class _PastRound:
    """The shape of a round that has been revealed."""

    rules: Rules
    dice_counts: tuple[int, ...]
    palifico: bool

    @property
    def dice_in_play(self) -> int:
        return sum(self.dice_counts)


def _orders(view: RoundShape) -> tuple[Ladder, Ladder]:
    """The round's (opening, raising) ladders, as the engine sets them up."""
    rules = view.rules
    face_limit, ones_limit = quantity_limits(view.dice_in_play, rules.cap_at_dice_in_play)
    never = rules.ones_bids == "never"
    if view.palifico:
        raises = Order.NO_ONES if never else Order.PLAIN
        opening = Order.PLAIN if rules.palifico_open_on_ones and not never else Order.NO_ONES
    else:
        raises = {"never": Order.NO_ONES, "halve": Order.HALVE}.get(rules.ones_bids, Order.PLAIN)
        opening = Order.NO_ONES if rules.ones_bids in ("never", "halve") else Order.PLAIN
    return (ladder(opening, face_limit, ones_limit), ladder(raises, face_limit, ones_limit))


def raise_options(view: RoundShape, standing: Bid | None, seat: int) -> list[Bid]:
    """The cheapest bids ``seat`` could make over ``standing`` this round."""
    opening, raises = _orders(view)
    if standing is None:
        return list(opening[:OPTIONS])
    if view.palifico and not (
        view.rules.palifico_one_die_may_change_face and view.dice_counts[seat] == 1
    ):
        column = raises.column(standing.face)
        return list(column[standing.quantity : standing.quantity + OPTIONS])
    start = raises.above(standing)
    return list(raises[start : start + OPTIONS])


def raise_distance(view: RoundShape, standing: Bid | None, bid: Bid) -> int:
    """How many legal raises over ``standing`` are cheaper than ``bid`` (0: the cheapest)."""
    opening, raises = _orders(view)
    if standing is None:
        return opening.positions.get(bid, OPTIONS)
    if bid.face == standing.face and (view.palifico or bid.face == 1):
        return max(0, bid.quantity - standing.quantity - 1)
    position = raises.positions.get(bid)
    return OPTIONS if position is None else max(0, position - raises.above(standing))


# -- what the bot learns about each opponent -----------------------------------------------


@dataclass
class Profile:
    """What the reveals showed about one opponent: from how sure their own cup made them
    of the bids they faced, when they called; and how often they bid what it did not back.

    Their calls are a logistic in that sureness with a threshold ``call_at``, fitted online
    (one gradient step per decision seen, starting from :data:`CALL_AT`)."""

    call_at: float = field(default_factory=lambda: CALL_AT)
    bluff: float = field(default_factory=lambda: BLUFF)
    decisions: int = 0
    bids: int = 0

    def saw_decision(self, sureness: float, called: bool) -> None:
        """Facing a bid that held with chance ``sureness`` from their cup, they called
        (or raised)."""
        self.decisions += 1
        chance = 1 / (1 + math.exp(CALL_SHARPNESS * (sureness - self.call_at)))
        step = 1.5 / (self.decisions + 10)
        self.call_at = min(
            0.8, max(0.05, self.call_at + step * ((1.0 if called else 0.0) - chance))
        )

    def saw_bid(self, chosen: float, bluffed: float) -> None:
        """They made a bid that the bidder model gives chance ``chosen`` as an honest pick
        from their (now shown) cup and ``bluffed`` as a bluff: one EM step on the share of
        bluffs, the posterior chance it was one averaged in, with a prior worth
        :data:`BLUFF_PRIOR` bids."""
        honest = (1 - self.bluff) * chosen
        bluff = self.bluff * bluffed
        responsibility = bluff / (bluff + honest) if bluff + honest > 0 else self.bluff
        self.bids += 1
        self.bluff += (responsibility - self.bluff) / (self.bids + BLUFF_PRIOR)
        self.bluff = min(0.6, max(0.02, self.bluff))


def _bid_chances(
    shape: RoundShape, standing: Bid | None, seat: int, bid: Bid, cup: tuple[int, ...], wild: bool
) -> tuple[float, float]:
    """For a bid whose bidder's ``cup`` is known: the bidder model's chance of it as an honest
    pick, and as a bluff (the two parts of :meth:`Belief._update`, for one hand)."""
    options = raise_options(shape, standing, seat)
    if bid not in options:
        options.append(bid)
    scores = []
    for option in options:
        chance = _sureness(wild, shape.dice_in_play, cup, option)
        scores.append(math.exp(CHOICE * (chance - 1.0)) * (chance + 1e-4) ** LOG_CHOICE)
    distance = raise_distance(shape, standing, bid)
    bluffed = math.exp(-distance / BLUFF_SPREAD) * (1 - math.exp(-1 / BLUFF_SPREAD))
    return scores[options.index(bid)] / sum(scores), bluffed


def _sureness(rules_wild: bool, dice_in_play: int, cup: tuple[int, ...], bid: Bid) -> float:
    """P(``bid`` holds) as the owner of ``cup`` sees it, the other dice unseen."""
    wild = rules_wild and bid.face != 1
    mine = _own(cup, bid.face, rules_wild)
    unseen = dice_in_play - len(cup)
    table = _tail_table(unseen, 1 / 3 if wild else 1 / 6)
    return float(table[min(max(bid.quantity - mine, 0), len(table) - 1)])


# -- the belief ----------------------------------------------------------------------------


class Belief:
    """What the bot infers about every opponent's hand from the bids of this round."""

    def __init__(self, view: SeatView, profiles: dict[int, Profile] | None = None) -> None:
        assert view.seat is not None
        self.view = view
        self.profiles = profiles or {}
        self.weights: dict[int, Weights] = {}
        for seat, count in enumerate(view.dice_counts):
            if seat != view.seat and count:
                self.weights[seat] = hands(count)[1].copy()
        self._wild = view.rules.wild_ones and not view.palifico
        self._standing: Bid | None = None
        self._read = 0
        self.extend(view)

    def same_round(self, view: SeatView) -> bool:
        """Whether ``view`` is later in the round this belief was built for (so
        :meth:`extend` can bring it up to date instead of starting over)."""
        old = self.view
        return (
            view.seat == old.seat
            and view.round_number == old.round_number
            and view.dice == old.dice
            and view.dice_counts == old.dice_counts
            and view.bids[: self._read] == old.bids[: self._read]
            and len(view.bids) >= self._read
        )

    def extend(self, view: SeatView) -> None:
        """Read the bids of ``view`` not read yet (the same round, a later moment)."""
        self.view = view
        for seat, any_bid in view.bids[self._read :]:
            bid = quantity_bid(any_bid)
            if seat in self.weights:
                profile = self.profiles.get(seat)
                self._update(
                    seat, bid, self._standing, self._wild, profile.bluff if profile else BLUFF
                )
            self._standing = bid
            if bid.face == 1 and view.rules.ones_bids == "lock":
                self._wild = False
        self._read = len(view.bids)

    def _update(self, seat: int, bid: Bid, standing: Bid | None, wild: bool, bluff: float) -> None:
        """Bayes: weight each hand by the chance a player holding it picks this bid among
        the raises open to them."""
        view = self.view
        options = raise_options(view, standing, seat)
        if bid not in options:
            options.append(bid)
        dice = view.dice_counts[seat]
        unseen = view.dice_in_play - dice
        support = np.empty((len(self.weights[seat]), len(options)))
        for column, option in enumerate(options):
            counts_wild = wild and option.face != 1
            held = matches(dice, counts_wild)[:, option.face - 1]
            table = _tail_table(unseen, 1 / 3 if counts_wild else 1 / 6)
            support[:, column] = _lookup(table, option.quantity - held)
        column = options.index(bid)
        scores = np.exp(CHOICE * (support - 1.0)) * (support + 1e-4) ** LOG_CHOICE
        chosen = scores[:, column] / scores.sum(axis=1)
        # A bluff says nothing about the hand, and is mostly a cheap raise: its chance falls
        # off geometrically with how far up the ladder the bid goes.
        distance = raise_distance(view, standing, bid)
        bluffed = math.exp(-distance / BLUFF_SPREAD) * (1 - math.exp(-1 / BLUFF_SPREAD))
        posterior = self.weights[seat] * (bluff * bluffed + (1 - bluff) * chosen)
        total = posterior.sum()
        if total > 0:
            self.weights[seat] = posterior / total

    def count_distribution(self, face: int, wild: bool, skip: int | None = None) -> Weights:
        """P(total count for ``face`` under all cups = k), our own dice included, the cup
        of seat ``skip`` left out."""
        own = _own(self.view.dice, face, wild)
        total = np.zeros(own + 1)
        total[own] = 1.0
        counts_wild = wild and face != 1
        for seat, weights in self.weights.items():
            if seat == skip:
                continue
            counted = matches(self.view.dice_counts[seat], counts_wild)[:, face - 1]
            distribution = np.bincount(counted, weights=weights)
            total = np.convolve(total, distribution)
        return total


# -- the bot -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Weighed:
    """Hard's options on one view and the weight it draws each with (not normalised: the
    draw takes them as they are, so play is the same as when ``act`` drew them itself).
    ``drawn`` False: a fixed answer (off its turn, a calza or nothing), no draw made."""

    options: tuple[Action | None, ...]
    weights: tuple[float, ...]
    drawn: bool = True

    def share(self, action: Action | None) -> float:
        """The chance hard plays ``action`` on this view."""
        total = sum(self.weights)
        return sum(w for o, w in zip(self.options, self.weights, strict=True) if o == action) / (
            total or 1.0
        )


class HardBot(SeededBot):
    """Infers hands from bids, plays the option least likely to cost a die, mixes its play."""

    level = "hard"
    personas = (
        Persona("La Condesa", "hard", "Remembers every bid you made, and why you made it."),
        Persona("Viktor", "hard", "Cold, patient and impossible to read."),
        Persona("Dr. Okafor", "hard", "Plays the odds, then plays you."),
        Persona("El Capitán", "hard", "Sailed the Andes ports; lost only to the sea."),
        Persona("Mei", "hard", "Reads every raise like a confession."),
        Persona(
            "The Professor",
            "hard",
            "Has a table of probabilities and a poker face.",
            {"de": "Der Professor", "es": "El Profesor"},
        ),
    )

    def __init__(
        self,
        seed: int | None = None,
        name: str | None = None,
        budget_ms: float | None = None,
        wait_for_solves: bool = True,
    ) -> None:
        super().__init__(seed, name)
        if budget_ms is not None and not budget_ms >= 0:
            raise ValueError(f"a decision budget is a number of milliseconds >= 0, not {budget_ms}")
        self.budget_ms = budget_ms
        # Whether a heads-up round no shipped file covers is solved before deciding
        # (seconds, once per rules and machine; replays exactly) or in the background.
        self.wait_for_solves = wait_for_solves
        # Decisions weighed on the belief (not by the endgame table), and those the budget
        # cut short (some faces' raises left out).
        self.decisions = 0
        self.over_budget = 0
        self.profiles: dict[int, Profile] = {}
        self._seen_reveal: Revealed | None = None
        self._belief: Belief | None = None
        self._poker: PokerPlayer | None = None
        self._prefetched: Rules | None = None

    # -- learning from reveals -------------------------------------------------------------

    def _learn(self, view: SeatView) -> None:
        reveal = view.last_reveal
        if not LEARN or reveal is None or reveal is self._seen_reveal or view.seat is None:
            return
        self._seen_reveal = reveal
        rules = view.rules
        counts = tuple(len(cup) for cup in reveal.cups)
        in_play = sum(counts)
        lock = rules.ones_bids == "lock"
        ones_bid = any(quantity_bid(bid).face == 1 for _, bid in reveal.bids)
        palifico = (
            rules.palifico and rules.wild_ones and not reveal.wild and not (lock and ones_bid)
        )
        shape = _PastRound(rules, counts, palifico)
        wild = rules.wild_ones and not palifico
        standing: Bid | None = None
        for seat, any_bid in reveal.bids:
            bid = quantity_bid(any_bid)
            cup = reveal.cups[seat]
            if seat != view.seat and cup:
                profile = self.profiles.setdefault(seat, Profile())
                chosen, bluffed = _bid_chances(shape, standing, seat, bid, cup, wild)
                profile.saw_bid(chosen, bluffed)
                if standing is not None:
                    profile.saw_decision(_sureness(wild, in_play, cup, standing), called=False)
            standing = bid
            if bid.face == 1 and lock:
                wild = False
        caller = reveal.caller
        if caller != view.seat and reveal.call is DUDO and reveal.cups[caller]:
            profile = self.profiles.setdefault(caller, Profile())
            profile.saw_decision(
                _sureness(wild, in_play, reveal.cups[caller], quantity_bid(reveal.bid)), called=True
            )

    # -- the decision ----------------------------------------------------------------------

    def act(self, view: SeatView) -> Action | None:
        if view.rules.bids == "poker":
            if self._poker is None:
                self._poker = PokerPlayer(self.rng)
            return self._poker.act(view)
        return self.choose(self.weigh(view))

    def choose(self, weighed: Weighed) -> Action | None:
        """Draw from what :meth:`weigh` found (its one answer, if it is not a draw)."""
        if not weighed.drawn:
            return weighed.options[0]
        return self.rng.choices(weighed.options, weights=weighed.weights)[0]

    def weigh(self, view: SeatView) -> Weighed:
        """Every option hard considers on ``view`` and the weight it draws it with (the
        endgame strategy's probabilities, or the softmax over the chances of losing), or
        its one answer off its turn. Quantity bids only (Common Hand: see :meth:`act`)."""
        started = time.perf_counter()
        self._learn(view)
        legal = view.legal
        if not legal:
            return Weighed((None,), (1.0,), drawn=False)
        if not self.wait_for_solves and self._prefetched != view.rules:
            # the 1v1 rounds of these rules, solved in the background long before they come
            self._prefetched = view.rules
            solved.prefetch(view.rules)
        endgame = endgame_policy(view, self._endgame_table)
        if endgame:
            actions = list(endgame)
            return Weighed(tuple(actions), tuple(endgame[a] for a in actions))
        assert view.seat is not None
        belief = self._belief
        if belief is not None and belief.same_round(view):
            belief.extend(view)  # only this round's new bids: same answer, less work
        else:
            belief = self._belief = Belief(view, self.profiles)
        tails: dict[tuple[int, int | None], Weights] = {}

        def tail(face: int, skip: int | None = None) -> Weights:
            key = (face, skip)
            if key not in tails:
                tails[key] = _tail(belief.count_distribution(face, view.wild, skip))
            return tails[key]

        def holds(bid: Bid) -> float:
            table = tail(bid.face)
            return float(table[min(bid.quantity, len(table) - 1)])

        standing = quantity_bid(view.standing)
        options: list[Action] = []
        losses: list[float] = []
        if standing is not None and CALZA in legal:
            exact = holds(standing) - holds(Bid(standing.quantity + 1, standing.face))
            gain = self._calza_gain(view)
            value = exact * gain - (1 - exact) - CALZA_CAUTION
            if not view.my_turn:
                return Weighed((CALZA if value > 0 else None,), (1.0,), drawn=False)
            options.append(CALZA)
            losses.append(-value)
        if not view.my_turn:
            return Weighed((None,), (1.0,), drawn=False)
        if standing is not None and DUDO in legal:
            own = _own(view.dice, standing.face, view.wild)
            if own < standing.quantity or not legal.bids:  # never call what we can see holds
                options.append(DUDO)
                losses.append(holds(standing))
        bids = list(legal.bids[:CANDIDATES])
        self.decisions += 1
        if bids:
            deadline = None if self.budget_ms is None else started + self.budget_ms / 1000
            weighed = self._raise_losses(view, bids, belief, deadline)
            if len(weighed) < len(bids):
                self.over_budget += 1
            for index, bid in enumerate(bids):  # in ladder order, as the draw expects
                if index in weighed:
                    options.append(bid)
                    losses.append(weighed[index])
        best = min(losses)
        scaled = [math.exp((best - loss) / TEMPERATURE) for loss in losses]
        return Weighed(tuple(options), tuple(scaled))

    def _endgame_table(
        self, rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
    ) -> Strategy | None:
        """The solved strategy of a heads-up round: solved now if need be (seconds, once per
        rule set and machine: the disk cache keeps it), so play replays exactly; or, if the
        bot does not wait for solves, only if it is ready (else it is being solved in the
        background and the heuristic plays this decision)."""
        return solved.solved_table(
            rules, opener_dice, responder_dice, palifico, wait=self.wait_for_solves
        )

    @staticmethod
    def _calza_gain(view: SeatView) -> float:
        """What an exact calza is worth, in dice: one die back below the cap, else little."""
        assert view.seat is not None
        if view.rules.format == "points":
            return 0.0
        return 1.0 if view.dice_counts[view.seat] < view.rules.starting_dice else 0.1

    def _raise_losses(
        self, view: SeatView, bids: list[Bid], belief: Belief, deadline: float | None = None
    ) -> dict[int, float]:
        """For each raise (by its index in ``bids``), the chance it costs us a die: the next
        player calls it and it is false, or they raise and we lose later. Both sides of
        "they call" and "it holds" are read per hand the next player might hold.

        Raises are weighed a face at a time, the face of the cheapest raise first; past
        ``deadline`` (``time.perf_counter``) the faces not yet weighed are left out."""
        assert view.seat is not None
        alive = [seat for seat, count in enumerate(view.dice_counts) if count]
        next_seat = min((seat for seat in alive if seat > view.seat), default=alive[0])
        base, slope = LATER_HEADS_UP if len(alive) == 2 else LATER_TABLE
        their_dice = view.dice_counts[next_seat]
        unseen_by_them = view.dice_in_play - their_dice
        weights = belief.weights[next_seat]
        profile = self.profiles.get(next_seat)
        call_at = profile.call_at if profile else CALL_AT
        by_face: dict[int, list[int]] = {}
        for index, bid in enumerate(bids):
            by_face.setdefault(bid.face, []).append(index)
        losses: dict[int, float] = {}
        for face, indexes in by_face.items():
            if losses and deadline is not None and time.perf_counter() > deadline:
                break
            counts_wild = view.wild and face != 1
            held = matches(their_dice, counts_wild)[:, face - 1]  # (hands,)
            rest = _tail(belief.count_distribution(face, view.wild, skip=next_seat))
            quantities = np.array([bids[i].quantity for i in indexes])  # (bids,)
            needed = quantities[None, :] - held[:, None]  # (hands, bids)
            true = _lookup(rest, needed)  # P(the raise holds | their hand)
            seen = _lookup(
                _tail_table(unseen_by_them, 1 / 3 if counts_wild else 1 / 6), needed
            )  # how likely it looks to them
            called = 1 / (1 + np.exp(CALL_SHARPNESS * (seen - call_at)))
            later = base + slope * true
            if not PER_HAND:  # the old, independent reading (kept to measure the difference)
                called, true, later = (
                    np.broadcast_to(weights @ part, part.shape) for part in (called, true, later)
                )
            loss = weights @ (called * (1 - true) + (1 - called) * later)
            for column, index in enumerate(indexes):
                losses[index] = float(loss[column])
        return losses
