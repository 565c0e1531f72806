"""A self-play value-network opponent, in the manner of dudo.ai (Thomas Ahle's liars-dice).

Public design followed (``thomasahle/liars-dice``, read, not copied; written here on numpy):
one small network per pair of dice counts, ``V(own hand, public round) -> expected outcome``
for the holder of the hand, and a policy over the *children*: at a state the regret of an
action is ``V(hand, child) - V(hand, state)``. Ahle plays by regret matching (each action in
proportion to its positive regret, uniformly if none is positive); his code keeps Hedge,
``exp(rate * regret)``, as the alternative. Both are here (:func:`policy`); the committed
model is trained with Hedge at rate 10 (and plays at :data:`PLAY_HEDGE`), because on the one
round we can measure exactly (1 die each, ``valuenet_check.py``) regret matching trained the
same way settled on nearly pure strategies, exploitability 0.56 to 0.71, against 0.13 to
0.28 for Hedge (uniform play: 0.78).
The networks are trained by self-play (``train_valuenet.py`` beside this file).

What is ours rather than Ahle's:

- the pair is ``(opener's dice, responder's dice)`` and a round's outcome is worth what it
  does to the *game*: the loser opens the next round, so losing a die at ``(a, b)`` leads to
  ``(a - 1, b)`` or ``(b - 1, a)``, and the target is the game's value there (``2 P(win) -
  1``, from the smaller pairs trained first) instead of a flat +-1;
- the inputs add features a small network would otherwise have to find: the standing bid's
  face and quantity, how many of one's own dice support it, and its binomial chance from the
  own cup alone; the public history is, as in Ahle's encoding, which bids each player made;
- training targets are lambda-returns that bootstrap on the network's own child values.

Rules: a model is trained for one :class:`Scheme`, the raise order and wildness of a heads-up
round with bids capped at the dice in play (no calza, no palifico heads-up), up to 5 dice
each. ``models/valuenet.npz`` is for the rules the outside check used (ones the lowest face
of the plain order, wild: ``--rules no-wilds --set wild_ones=true``); ``valuenet-perudo.npz``
for Perudo's halving order, ``valuenet-tavern.npz`` for ones never bid. The bot picks the
model of its table's scheme; for a scheme without one it scores the legal bids with the
plain model (approximate play), and where no network applies (more seats, more dice, a
palifico round, hands) it plays the public two-threshold bot (``threshold.py``).
"""

from __future__ import annotations

import importlib.util
import random
import sys
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from dudo.bids import Bid, Ladder, Order, ladder
from dudo.game import DUDO, Action
from dudo.rules import Rules
from dudo.view import SeatView

MAX_DICE = 5
"""Dice per player the networks cover (the starting dice of the rules they are for)."""
MODEL = Path(__file__).parent / "models" / "valuenet.npz"
PLAY_HEDGE = 100.0
"""The Hedge rate the bot plays at, sharper than the rate its model was trained at (10).

Training needs the soft policy (it keeps exploring, and the 1v1 network's exploitability
is lowest there), but at a table the soft policy spreads a good part of its weight over the
dozens of raises a few hundredths of value worse than the best: at rate 10 the bot won 18%
of 300 games against ``normal`` (seeds from 101, no-wilds with wild ones), at 30 44%, at 100
56%, at 300 53%, at 1000 56%. Chosen on those seeds; reported on others (docs/benchmarks.md).
"""


ORDER_OF_ONES_BIDS = {"plain": Order.PLAIN, "halve": Order.HALVE, "never": Order.NO_ONES}
"""The raise order of each ``ones_bids`` rule the networks learn (the lock is not one)."""


@dataclass(frozen=True)
class Scheme:
    """How a heads-up round's bids line up for the networks: the engine's raise order (its
    :class:`~dudo.bids.Ladder`, capped at the dice in play) and whether ones are wild.

    A bid's index is its position on the engine's ladder, so every raise of a bid is a
    higher index, whatever the order; in the plain order that position is ``(quantity - 1)
    * 6 + face - 1``, the layout the first model was trained on.
    """

    order: Order
    wild: bool

    @property
    def key(self) -> str:
        return f"{self.order.value}/{'wild' if self.wild else 'natural'}"

    @classmethod
    def from_key(cls, key: str) -> Scheme:
        order, wild = key.split("/")
        return cls(Order(order), wild == "wild")

    @classmethod
    def of(cls, rules: Rules) -> Scheme | None:
        """The scheme of ``rules``' heads-up rounds, or ``None`` where the networks do not
        apply: hands, uncapped bids, the ones lock, losing by the difference."""
        if (
            rules.bids != "quantity"
            or not rules.cap_at_dice_in_play
            or rules.ones_bids == "lock"
            or rules.loss_by_difference
        ):
            return None
        return cls(ORDER_OF_ONES_BIDS[rules.ones_bids], rules.wild_ones)

    def ladder(self, total: int) -> Ladder:
        return ladder(self.order, total)

    def rules(self) -> Rules:
        """Plain rules of this scheme (heads-up they are all its rule sets play)."""
        ones_bids = next(name for name, order in ORDER_OF_ONES_BIDS.items() if order is self.order)
        return Rules.preset("no-wilds", wild_ones=self.wild, ones_bids=ones_bids)


PLAIN_WILD = Scheme(Order.PLAIN, True)
"""The scheme of the rules the outside check's networks were trained for."""


@dataclass(frozen=True)
class Layout:
    """A scheme's bids at one number of dice in play, as arrays by ladder index."""

    quantity: np.ndarray
    face: np.ndarray
    """0-based: 0 is ones."""
    opening: np.ndarray
    """Which bids may open a round (Perudo's order: not ones)."""


@cache
def layout(scheme: Scheme, total: int) -> Layout:
    bids = scheme.ladder(total)
    quantity = np.array([bid.quantity for bid in bids], dtype=np.int64)
    face = np.array([bid.face - 1 for bid in bids], dtype=np.int64)
    opening = face != 0 if scheme.order is Order.HALVE else np.ones(len(bids), dtype=bool)
    return Layout(quantity, face, opening)


def ladder_size(total: int, scheme: Scheme = PLAIN_WILD) -> int:
    """Bids on the scheme's ladder with ``total`` dice in play (6 per die in the plain and
    halving orders, 5 with ones never bid)."""
    return len(scheme.ladder(total))


def feature_size(total: int, scheme: Scheme = PLAIN_WILD) -> int:
    return 30 + 30 + 2 + 2 * ladder_size(total, scheme) + 2 + 6 + total + 1 + 1 + 2


def _tails() -> np.ndarray:
    """``table[unseen, wild, needed]``: P(Binomial(unseen, 1/3 or 1/6) >= needed)."""
    table = np.zeros((MAX_DICE + 1, 2, 2 * MAX_DICE + 2), dtype=np.float32)
    for unseen in range(MAX_DICE + 1):
        for wild, chance in ((0, 1 / 6), (1, 1 / 3)):
            for needed in range(2 * MAX_DICE + 2):
                table[unseen, wild, needed] = sum(
                    comb(unseen, k) * chance**k * (1 - chance) ** (unseen - k)
                    for k in range(needed, unseen + 1)
                )
    return table


TAILS = _tails()
_THRESHOLDS = np.arange(MAX_DICE)


def support(hands: np.ndarray, wild: bool = True) -> np.ndarray:
    """Per face, how many dice of each hand count for it (ones wild for faces 2..6)."""
    if not wild:
        return hands
    counted: np.ndarray = hands + hands[:, :1]
    counted[:, 0] = hands[:, 0]
    return counted


def features(
    pair: tuple[int, int],
    hands: np.ndarray,
    me: np.ndarray,
    bits: np.ndarray,
    last: np.ndarray,
    called: np.ndarray,
    turn: np.ndarray,
    scheme: Scheme = PLAIN_WILD,
) -> np.ndarray:
    """The network's input for a batch of (hand, public round) rows.

    ``hands`` (n, 6) face counts of the perspective's cup; ``me`` its role (0 opener, 1
    responder); ``bits`` (n, 2, L) the bids each role made; ``last`` the standing bid's
    index (-1: none); ``called`` whether "dudo" was called; ``turn`` the role to move.
    """
    total = pair[0] + pair[1]
    rows = len(hands)
    index = np.arange(rows)
    counted = support(hands, scheme.wild)
    mine = bits[index, me]
    theirs = bits[index, 1 - me]
    has_bid = last >= 0
    position = np.maximum(last, 0)
    bids = layout(scheme, total)
    quantity, face = bids.quantity[position], bids.face[position]
    face_hot = np.zeros((rows, 6), dtype=np.float32)
    face_hot[index, face] = has_bid
    quantity_hot = np.zeros((rows, total), dtype=np.float32)
    quantity_hot[index, quantity - 1] = has_bid
    unseen = np.where(me == 0, pair[1], pair[0])
    needed = np.clip(quantity - counted[index, face], 0, 2 * MAX_DICE + 1)
    wild_face = ((face != 0) & scheme.wild).astype(np.int64)
    chance = TAILS[unseen, wild_face, needed] * has_bid
    bidder_is_me = mine[index, position] * has_bid
    parts = [
        (hands[:, :, None] > _THRESHOLDS).reshape(rows, 30),
        (counted[:, :, None] > _THRESHOLDS).reshape(rows, 30),
        me[:, None] == np.arange(2),
        mine,
        theirs,
        called[:, None],
        (turn == me)[:, None],
        face_hot,
        quantity_hot,
        (~has_bid)[:, None],
        bidder_is_me[:, None],
        chance[:, None],
        ((quantity - counted[index, face]) * has_bid / total)[:, None],
    ]
    return np.concatenate([np.asarray(part, dtype=np.float32) for part in parts], axis=1)


class Net:
    """A two-hidden-layer perceptron with a tanh output, in numpy."""

    def __init__(self, params: list[np.ndarray]) -> None:
        self.params = params

    @classmethod
    def fresh(cls, inputs: int, hidden: tuple[int, int], rng: np.random.Generator) -> Net:
        sizes = (inputs, *hidden, 1)
        params: list[np.ndarray] = []
        for fan_in, fan_out in pairwise(sizes):
            scale = np.sqrt(2.0 / fan_in)
            params.append((rng.standard_normal((fan_in, fan_out)) * scale).astype(np.float32))
            params.append(np.zeros(fan_out, dtype=np.float32))
        params[-2] *= 0.1
        return cls(params)

    def __call__(self, inputs: np.ndarray) -> np.ndarray:
        w1, b1, w2, b2, w3, b3 = self.params
        hidden = np.maximum(inputs @ w1 + b1, 0)
        hidden = np.maximum(hidden @ w2 + b2, 0)
        return np.asarray(np.tanh(hidden @ w3 + b3)[:, 0])


def load_hedge(path: Path = MODEL) -> float:
    """The Hedge rate the model was trained with (0: regret matching)."""
    with np.load(path) as data:
        return float(data["hedge"]) if "hedge" in data.files else 0.0


def load_nets(path: Path = MODEL) -> dict[tuple[int, int], Net]:
    """The trained networks by pair (opener's dice, responder's dice)."""
    nets: dict[tuple[int, int], Net] = {}
    with np.load(path) as data:
        for key in data.files:
            if not key.endswith("_0"):
                continue
            a, b = int(key[0]), int(key[1])
            nets[(a, b)] = Net([data[f"{a}{b}_{i}"].astype(np.float32) for i in range(6)])
    return nets


def load_scheme(path: Path = MODEL) -> Scheme:
    """The scheme a model was trained for (the first model, which does not say, is for
    :data:`PLAIN_WILD`)."""
    with np.load(path) as data:
        return Scheme.from_key(str(data["scheme"])) if "scheme" in data.files else PLAIN_WILD


def models(folder: Path = MODEL.parent) -> dict[Scheme, Path]:
    """The models in ``folder`` by the scheme each was trained for."""
    return {load_scheme(path): path for path in sorted(folder.glob("valuenet*.npz"))}


def child_values(
    net: Net,
    pair: tuple[int, int],
    hand: np.ndarray,
    me: int,
    bits: np.ndarray,
    last: int,
    actions: list[int],
    scheme: Scheme = PLAIN_WILD,
) -> tuple[float, np.ndarray]:
    """``V(hand, state)`` and ``V(hand, child)`` for each action (a bid index, or the
    ladder size for "dudo"), for the role ``me`` to move."""
    size = ladder_size(sum(pair), scheme)
    rows = 1 + len(actions)
    all_bits = np.repeat(bits[None], rows, axis=0)
    lasts = np.full(rows, last)
    called = np.zeros(rows, dtype=bool)
    for row, action in enumerate(actions, start=1):
        if action == size:
            called[row] = True
        else:
            all_bits[row, me, action] = 1
            lasts[row] = action
    turn = np.full(rows, 1 - me)
    turn[0] = me
    inputs = features(
        pair,
        np.repeat(hand[None], rows, axis=0),
        np.full(rows, me),
        all_bits,
        lasts,
        called,
        turn,
        scheme,
    )
    values = net(inputs)
    return float(values[0]), values[1:]


def policy(state_value: float, values: np.ndarray, hedge: float = 0.0) -> np.ndarray:
    """The policy over the children: regret matching, or with ``hedge > 0`` exponential
    weights on the regrets (Hedge, the alternative Ahle's code keeps in a comment):
    ``exp(hedge * (V(child) - V(state)))``, normalised."""
    if hedge > 0:
        weights = np.exp(hedge * (values - values.max()))
        return np.asarray(weights / weights.sum())
    return regret_policy(state_value, values)


def regret_policy(state_value: float, values: np.ndarray) -> np.ndarray:
    """Regret matching over the children: positive regrets, normalised; uniform if none.

    Uniform, not the best child, when no regret is positive (as Ahle does): with the best
    child instead, self-play settles on pure strategies, since a state's value then equals
    its best child's and no regret is ever positive again (the 1v1 network collapsed to
    opening "one 5" with every hand, exploitability 0.56). Falling back to uniform lowers the
    state's value until the good actions show positive regret again.
    """
    regrets = np.maximum(values - state_value, 0)
    total = regrets.sum()
    if total > 0:
        return np.asarray(regrets / total)
    return np.full(len(values), 1.0 / len(values))


def _threshold_bot(seed: int | None) -> Any:
    name = "dudo_bench_threshold"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).with_name("threshold.py")
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name].TwoThresholdBot(seed=seed)


class ValueNetBot:
    """Plays a heads-up round by Hedge (:data:`PLAY_HEDGE`) over its pair's value network.

    Without ``model`` it takes, at each table, the committed model trained for the table's
    :class:`Scheme`, or the plain model where there is none; with ``model``, that file
    everywhere."""

    def __init__(
        self, seed: int | None = None, model: Path | str | None = None, hedge: float = PLAY_HEDGE
    ) -> None:
        self.name = "valuenet"
        self.rng = random.Random(seed)
        self.model = None if model is None else Path(model)
        self.hedge = hedge  # 0: regret matching, as Ahle plays
        self.fallback = _threshold_bot(seed)

    def act(self, view: SeatView) -> Action | None:
        if not view.my_turn:
            return None
        decision = self._network_move(view)
        if decision is None:
            return self.fallback.act(view)  # type: ignore[no-any-return]
        return decision

    def _model_for(self, rules: Rules) -> Path:
        if self.model is not None:
            return self.model
        scheme = Scheme.of(rules)
        return _committed_models().get(scheme, MODEL) if scheme else MODEL

    def _network_move(self, view: SeatView) -> Action | None:
        alive = [seat for seat, count in enumerate(view.dice_counts) if count]
        if len(alive) != 2 or view.rules.bids != "quantity" or view.palifico:
            return None
        opener = view.opener
        other = alive[0] if alive[1] == opener else alive[1]
        pair = (view.dice_counts[opener], view.dice_counts[other])
        model = str(self._model_for(view.rules))
        net = _cached_nets(model).get(pair)
        if net is None or view.seat not in (opener, other):
            return None
        scheme = _cached_scheme(model)
        positions = scheme.ladder(sum(pair)).positions
        size = len(positions)
        me = 0 if view.seat == opener else 1
        bits = np.zeros((2, size), dtype=np.float32)
        last = -1
        for seat, bid in view.bids:
            position = positions.get(bid) if isinstance(bid, Bid) else None
            if position is None:
                return None
            last = position
            bits[0 if seat == opener else 1, last] = 1
        moves: list[Action] = []
        actions: list[int] = []
        for bid in view.legal.bids:
            position = positions.get(bid)
            if position is not None:
                moves.append(bid)
                actions.append(position)
        if DUDO in view.legal:
            moves.append(DUDO)
            actions.append(size)
        if not moves:
            return None
        hand = np.bincount(np.asarray(view.dice, dtype=np.int64) - 1, minlength=6)
        state_value, values = child_values(net, pair, hand, me, bits, last, actions, scheme)
        chances = policy(state_value, values, self.hedge)
        pick = self.rng.random() * chances.sum()
        chosen = int(np.searchsorted(np.cumsum(chances), pick, side="right"))
        return moves[min(chosen, len(moves) - 1)]


_NETS: dict[str, dict[tuple[int, int], Net]] = {}


def _cached_nets(model: str) -> dict[tuple[int, int], Net]:
    """One load per model file per process: the arena builds a bot per game."""
    if model not in _NETS:
        _NETS[model] = load_nets(Path(model))
    return _NETS[model]


@cache
def _cached_scheme(model: str) -> Scheme:
    return load_scheme(Path(model))


@cache
def _committed_models() -> dict[Scheme, Path]:
    return models()


class ValueNetEndgames(ValueNetBot):
    """The value network, except in the heads-up rounds hard has solved strategies for (1v1
    exactly, up to four dice in play for a short memory: :mod:`dudo.bots.solved`), where it
    draws from those, as an opponent near equilibrium there would play. Against it, hard's
    margin comes from the larger rounds only."""

    def __init__(self, seed: int | None = None, model: Path | str | None = None) -> None:
        super().__init__(seed, model)
        self.name = "valuenet-endgames"

    def act(self, view: SeatView) -> Action | None:
        from dudo.bots import solved
        from dudo.bots.endgame import endgame_policy

        if view.my_turn:
            policy = endgame_policy(view, solved.solved_table)
            if policy:
                actions = list(policy)
                return self.rng.choices(actions, weights=[policy[a] for a in actions])[0]
        return super().act(view)
