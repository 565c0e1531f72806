"""A public information-set MCTS bot, ported as an arena opponent.

Port of ``ISMCTSHistoryAgent`` from the public repository ``MartynasJonkus/liars-dice``
(``liars_dice/agents/ismcts_3_history.py``, with ``bid_support_for_actor`` from
``liars_dice/agents/helpers.py``), the most developed of that repository's search agents.
Each simulation:

1. *determinizes*: every other player's dice are redrawn, each die from face weights
   ``1/6 * (1 + beta * share of that player's bids this round on the face)``;
2. walks a tree of public action sequences by PUCT (``c = 1.5``), with priors from the
   actor's *support* of each bid in that determinization (the binomial chance the bid holds
   given the actor's own dice) and, for a call, ``(1 - support of the standing bid)^0.5``;
3. expands one node, then rolls out with a threshold policy (call when the standing bid's
   support is below 0.40, else bid the lowest quantity with support at least 0.70, else
   call; a random legal action 15% of the time) until someone calls;
4. scores 1 if the searching player kept its dice, 0 if it lost one.

It plays the root action visited most. The original's default is 1,000 simulations; issue 11
measured a port at 200, which is the default here (``ISMCTS1000`` runs the original's).

What changed in the port: the original's engine is replaced by a small round simulator on
this project's bid ladders (so Perudo's halving order, the no-ones opening, caps and palifico
rounds are the table's), support uses the table's wildness instead of always-wild ones, and
only ``dudo`` is called (the original has no calza). Randomness comes from the seed the arena
hands the bot.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import cache

from dudo.bids import Bid, Ladder, Order, ladder, quantity_limits
from dudo.game import DUDO, Action
from dudo.view import SeatView

CALL = "call"
SimAction = Bid | str


@cache
def _tails(unseen: int, chance: float) -> tuple[float, ...]:
    """``tails[k]`` = P(at least k of ``unseen`` dice match), k = 0..unseen + 1."""
    exact = [
        math.comb(unseen, k) * chance**k * (1 - chance) ** (unseen - k) for k in range(unseen + 1)
    ]
    tails = [0.0] * (unseen + 2)
    running = 0.0
    for k in range(unseen, -1, -1):
        running += exact[k]
        tails[k] = min(1.0, running)
    return tuple(tails)


class Round:
    """One round's bidding on the table's ladders: who bids, what is legal, who loses."""

    def __init__(self, view: SeatView) -> None:
        rules = view.rules
        self.rules = rules
        self.counts = view.dice_counts
        self.total = view.dice_in_play
        self.palifico = view.palifico
        self.wild = rules.wild_ones and not view.palifico
        self.lock = rules.ones_bids == "lock"
        face_limit, ones_limit = quantity_limits(self.total, rules.cap_at_dice_in_play)
        never = rules.ones_bids == "never"
        if view.palifico:
            raises = Order.NO_ONES if never else Order.PLAIN
            opening = Order.PLAIN if rules.palifico_open_on_ones and not never else Order.NO_ONES
        else:
            raises = {"never": Order.NO_ONES, "halve": Order.HALVE}.get(
                rules.ones_bids, Order.PLAIN
            )
            opening = Order.NO_ONES if rules.ones_bids in ("never", "halve") else Order.PLAIN
        self.raises: Ladder = ladder(raises, face_limit, ones_limit)
        self.opening: Ladder = ladder(opening, face_limit, ones_limit)
        alive = [seat for seat, count in enumerate(self.counts) if count]
        self.next_seat = {seat: alive[(index + 1) % len(alive)] for index, seat in enumerate(alive)}

    def legal_bids(self, actor: int, standing: Bid | None) -> list[Bid]:
        if standing is None:
            return list(self.opening)
        if self.palifico and not (
            self.rules.palifico_one_die_may_change_face and self.counts[actor] == 1
        ):
            column = self.raises.column(standing.face)
            return list(column[standing.quantity :])
        return list(self.raises[self.raises.above(standing) :])

    def wild_after(self, wild: bool, bid: Bid) -> bool:
        return wild and not (self.lock and bid.face == 1)

    def support(self, dice: tuple[int, ...], bid: Bid, wild: bool) -> float:
        """``bid_support_for_actor``: P(bid holds) given the actor's own dice."""
        face = bid.face
        counts = wild and face != 1
        mine = sum(1 for die in dice if die == face or (counts and die == 1))
        need = bid.quantity - mine
        if need <= 0:
            return 1.0
        unseen = self.total - len(dice)
        if need > unseen:
            return 0.0
        return _tails(unseen, 1 / 3 if counts else 1 / 6)[need]

    @staticmethod
    def count(cups: dict[int, tuple[int, ...]], bid: Bid, wild: bool) -> int:
        counts = wild and bid.face != 1
        return sum(
            1 for cup in cups.values() for die in cup if die == bid.face or (counts and die == 1)
        )


@dataclass
class Edge:
    visits: int = 0
    value: float = 0.0

    @property
    def mean(self) -> float:
        return self.value / self.visits if self.visits else 0.0


@dataclass
class Node:
    actor: int
    children: dict[SimAction, Node] = field(default_factory=dict)
    edges: dict[SimAction, Edge] = field(default_factory=dict)
    priors: dict[SimAction, float] = field(default_factory=dict)
    visits: int = 0


@dataclass
class State:
    """A determinized round in progress."""

    cups: dict[int, tuple[int, ...]]
    standing: Bid | None
    bidder: int | None
    actor: int
    wild: bool


class ISMCTSBot:
    """MartynasJonkus/liars-dice ``ISMCTSHistoryAgent`` (PUCT, history determinization)."""

    SIMS = 200
    PUCT_C = 1.5
    PRIOR_TAU = 1.0
    LIAR_EXP = 0.5
    PRIOR_FLOOR = 1e-6
    HIST_BETA = 1.0
    ROLLOUT_THETA = 0.40
    ROLLOUT_ALPHA = 0.70
    ROLLOUT_EPS = 0.15
    ROLLOUT_MAX_STEPS = 40

    def __init__(self, seed: int | None = None) -> None:
        self.name = f"ismcts-{self.SIMS}"
        self.rng = random.Random(seed)

    # -- the decision --------------------------------------------------------------------

    def act(self, view: SeatView) -> Action | None:
        if not view.my_turn:
            return None
        assert view.seat is not None
        me = view.seat
        sim = Round(view)
        wild = view.wild
        root = Node(actor=me)
        for _ in range(self.SIMS):
            state = State(self._determinize(view), view.standing, view.bidder, me, wild)
            node = root
            self._priors(sim, node, state)
            path: list[tuple[Node, SimAction]] = []
            finished = False
            while node.priors:
                action = self._select(node)
                node.edges.setdefault(action, Edge())
                path.append((node, action))
                if action == CALL:
                    self._backup(path, self._showdown(sim, state, me))
                    finished = True
                    break
                assert isinstance(action, Bid)
                self._step(sim, state, action)
                child = node.children.get(action)
                if child is None:
                    child = Node(actor=state.actor)
                    node.children[action] = child
                    node = child
                    self._priors(sim, node, state)
                    break
                node = child
                self._priors(sim, node, state)
            if not finished:
                self._backup(path, self._rollout(sim, state, me))
        legal = view.legal
        scored = [
            (edge.visits, action)
            for action, edge in root.edges.items()
            if (action == CALL and DUDO in legal) or (isinstance(action, Bid) and action in legal)
        ]
        if scored:
            most = max(visits for visits, _ in scored)
            best = self.rng.choice([action for visits, action in scored if visits == most])
            return DUDO if best == CALL else best  # type: ignore[return-value]
        return self.rng.choice(list(legal.bids) or [DUDO])

    # -- the pieces ----------------------------------------------------------------------

    def _determinize(self, view: SeatView) -> dict[int, tuple[int, ...]]:
        """Redraw every other cup, each die from the bids-this-round face weights."""
        assert view.seat is not None
        bids_by: dict[int, list[int]] = {}
        for seat, bid in view.bids:
            bids_by.setdefault(seat, []).append(bid.face)
        cups: dict[int, tuple[int, ...]] = {}
        for seat, count in enumerate(view.dice_counts):
            if not count:
                continue
            if seat == view.seat:
                cups[seat] = view.dice
                continue
            faces = bids_by.get(seat, [])
            weights = [
                1 / 6 * (1 + self.HIST_BETA * (faces.count(face) / len(faces) if faces else 0.0))
                for face in range(1, 7)
            ]
            cups[seat] = tuple(self.rng.choices(range(1, 7), weights=weights, k=count))
        return cups

    def _priors(self, sim: Round, node: Node, state: State) -> None:
        actor_dice = state.cups[state.actor]
        priors: dict[SimAction, float] = {}
        for bid in sim.legal_bids(state.actor, state.standing):
            support = sim.support(actor_dice, bid, state.wild)
            priors[bid] = max(self.PRIOR_FLOOR, support ** (1.0 / self.PRIOR_TAU))
        if state.standing is not None:
            last = sim.support(actor_dice, state.standing, state.wild)
            priors[CALL] = max(self.PRIOR_FLOOR, (1.0 - last) ** self.LIAR_EXP)
        total = sum(priors.values())
        node.priors = {action: prior / total for action, prior in priors.items()}

    def _select(self, node: Node) -> SimAction:
        root_n = math.sqrt(max(1, node.visits))
        best: SimAction = CALL
        best_value = -1e18
        for action, prior in node.priors.items():
            edge = node.edges.get(action)
            visits = 0 if edge is None else edge.visits
            mean = 0.0 if edge is None else edge.mean
            value = mean + self.PUCT_C * prior * (root_n / (1.0 + visits))
            value += 1e-12 * self.rng.random()
            if value > best_value:
                best_value, best = value, action
        return best

    @staticmethod
    def _step(sim: Round, state: State, bid: Bid) -> None:
        state.standing = bid
        state.bidder = state.actor
        state.wild = sim.wild_after(state.wild, bid)
        state.actor = sim.next_seat[state.actor]

    @staticmethod
    def _showdown(sim: Round, state: State, me: int) -> float:
        """The standing bid is called by the actor: 0 if ``me`` loses the die, else 1."""
        assert state.standing is not None
        holds = sim.count(state.cups, state.standing, state.wild) >= state.standing.quantity
        loser = state.actor if holds else state.bidder
        return 0.0 if loser == me else 1.0

    def _rollout(self, sim: Round, state: State, me: int) -> float:
        for _ in range(self.ROLLOUT_MAX_STEPS):
            bids = sim.legal_bids(state.actor, state.standing)
            callable_ = state.standing is not None
            if self.rng.random() < self.ROLLOUT_EPS:
                choices: list[SimAction] = [*bids, CALL] if callable_ else list(bids)
                action = self.rng.choice(choices) if choices else CALL
                if action == CALL:
                    return self._showdown(sim, state, me)
                assert isinstance(action, Bid)
                self._step(sim, state, action)
                continue
            dice = state.cups[state.actor]
            if callable_:
                assert state.standing is not None
                if sim.support(dice, state.standing, state.wild) < self.ROLLOUT_THETA:
                    return self._showdown(sim, state, me)
            candidate = None
            lowest = None
            for bid in bids:
                if sim.support(dice, bid, state.wild) >= self.ROLLOUT_ALPHA and (
                    lowest is None or bid.quantity < lowest
                ):
                    lowest, candidate = bid.quantity, bid
            if candidate is None:
                if callable_:
                    return self._showdown(sim, state, me)
                if not bids:
                    return 0.5
                candidate = bids[0]
            self._step(sim, state, candidate)
        return 0.5

    @staticmethod
    def _backup(path: list[tuple[Node, SimAction]], reward: float) -> None:
        for node, action in path:
            node.visits += 1
            edge = node.edges.setdefault(action, Edge())
            edge.visits += 1
            edge.value += reward


class ISMCTS1000(ISMCTSBot):
    """The original's default: 1,000 simulations a move."""

    SIMS = 1000
