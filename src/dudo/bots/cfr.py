"""CFR+ over a heads-up endgame's public tree, vectorised over private hands, and exact
best responses to measure how far a strategy is from equilibrium.

Why this shape: in a round of Liar's Dice everything except the two hands is public, so a
*public* node (the bids so far) together with a hand is an information set. Holding, per
public node, a ``hands x actions`` table for the acting player turns one CFR iteration into
a handful of numpy operations per tree depth instead of a Python loop over info sets: the
1 die vs 1 die tree (up to 4096 public nodes) runs an iteration in milliseconds.

Conventions. Role 0 is the opener, role 1 the responder. ``payoff[t]`` is the opener's
utility at terminal ``t`` as an ``opener hands x responder hands`` matrix; the game is
zero-sum. A *strategy* is one array per depth, ``(nodes, actor's hands, actions)``, each
row a distribution over the node's legal actions (padding columns are 0).

The counterfactual value of role ``i`` at a node for hand ``h`` is
``sum over opponent hands g of reach_opponent(node, g) * utility(h, g)``, with the
opponent's chance probability inside its reach; it leaves out ``i``'s own chance and reach,
which only rescale a whole info set and so change neither regret matching nor best
responses.

numpy is needed here only (the solver and its tests); :mod:`dudo.bots.endgame` reads the
shipped results without it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from dudo.bots.endgame import (
    OPENER,
    RESPONDER,
    Endgame,
    Hand,
    Node,
    Table,
    Terminal,
    action_text,
    hand_text,
    hands,
    info_key,
    parse_action,
)

Floats = NDArray[np.float64]
Ints = NDArray[np.intp]
Strategy = list[Floats]


@dataclass(slots=True)
class Level:
    """All public nodes at one depth: the same role acts at each of them.

    ``child_*`` list the bid edges (node, action column, index of the child in the next
    level); ``term_*`` the call edges with their terminal's index, and ``term_payoff`` the
    opener's payoff matrix of each call edge (gathered once, used every iteration).
    """

    actor: int
    nodes: list[Node]
    mask: NDArray[np.bool_]
    child_node: Ints
    child_act: Ints
    child_index: Ints
    term_node: Ints
    term_act: Ints
    term_payoff: Floats
    uniform: Floats = field(init=False)

    def __post_init__(self) -> None:
        legal = self.mask.astype(np.float64)
        self.uniform = (legal / legal.sum(axis=1, keepdims=True))[:, None, :]

    @property
    def width(self) -> int:
        return int(self.mask.shape[1])


def private_hands(
    opener_dice: int, responder_dice: int
) -> tuple[tuple[list[Hand], list[Hand]], tuple[Floats, Floats]]:
    """Both roles' possible hands (sorted dice) and their chances, as the passes index them."""
    chance = (hands(opener_dice), hands(responder_dice))
    return (
        ([hand for hand, _ in chance[0]], [hand for hand, _ in chance[1]]),
        (np.array([p for _, p in chance[0]]), np.array([p for _, p in chance[1]])),
    )


class Tree:
    """An :class:`Endgame` laid out by depth as arrays, ready for CFR and best responses."""

    def __init__(self, endgame: Endgame) -> None:
        self.endgame = endgame
        self.hands, self.probs = private_hands(endgame.opener_dice, endgame.responder_dice)
        terminals: dict[Terminal, Floats] = {}
        self.levels: list[Level] = []
        current = [endgame.root]
        depth = 0
        while current:
            actor = current[0].actor
            width = max(len(node.actions) for node in current)
            mask = np.zeros((len(current), width), dtype=bool)
            following: list[Node] = []
            child_edges: list[tuple[int, int, int]] = []
            term_edges: list[tuple[int, int]] = []
            payoffs: list[Floats] = []
            for index, node in enumerate(current):
                if node.actor != actor or node.actor != depth % 2 or len(node.history) != depth:
                    raise AssertionError(f"turns do not alternate at {node.history}")
                mask[index, : len(node.actions)] = True
                for column, child in enumerate(node.children):
                    if isinstance(child, Node):
                        child_edges.append((index, column, len(following)))
                        following.append(child)
                    else:
                        if child not in terminals:
                            terminals[child] = self._payoff(child)
                        term_edges.append((index, column))
                        payoffs.append(terminals[child])
            edges = np.array(child_edges, dtype=np.intp).reshape(-1, 3)
            terms = np.array(term_edges, dtype=np.intp).reshape(-1, 2)
            shape = (0, len(self.hands[0]), len(self.hands[1]))
            self.levels.append(
                Level(
                    actor,
                    current,
                    mask,
                    edges[:, 0],
                    edges[:, 1],
                    edges[:, 2],
                    terms[:, 0],
                    terms[:, 1],
                    np.stack(payoffs) if payoffs else np.zeros(shape),
                )
            )
            current = following
            depth += 1
        self.terminal_count = len(terminals)

    def _payoff(self, terminal: Terminal) -> Floats:
        return np.array(
            [
                [terminal.opener_utility(mine, theirs) for theirs in self.hands[1]]
                for mine in self.hands[0]
            ],
            dtype=np.float64,
        )

    @property
    def node_count(self) -> int:
        return sum(len(level.nodes) for level in self.levels)

    # -- strategies ---------------------------------------------------------------------

    def uniform(self) -> Strategy:
        """Every legal action equally likely at every info set."""
        return [
            np.broadcast_to(
                level.uniform, (len(level.nodes), len(self.hands[level.actor]), level.width)
            ).copy()
            for level in self.levels
        ]

    def to_table(self, strategy: Strategy, decimals: int = 4) -> Table:
        """The strategy as data: probabilities rounded, zeros dropped, and only the info sets
        the player's own play can reach (elsewhere the strategy is never consulted)."""
        rounded = [np.round(sigma, decimals) for sigma in strategy]
        rounded = [
            _normalise(sigma, level) for sigma, level in zip(rounded, self.levels, strict=True)
        ]
        reach = self.reach(rounded)
        table: Table = {}
        for level, sigma, (own0, own1) in zip(self.levels, rounded, reach, strict=True):
            own = own0 if level.actor == OPENER else own1
            for n, node in enumerate(level.nodes):
                for h, hand in enumerate(self.hands[level.actor]):
                    if own[n, h] <= 0:
                        continue
                    row = sigma[n, h]
                    table[info_key(hand, node.history)] = {
                        action_text(action): round(float(row[a]), decimals)
                        for a, action in enumerate(node.actions)
                        if row[a] > 0
                    }
        return table

    def from_table(self, table: Table) -> Strategy:
        """A strategy from data; info sets the data leaves out get the uniform strategy."""
        strategy = self.uniform()
        where = {
            info_key((), node.history): (depth, n, node)
            for depth, level in enumerate(self.levels)
            for n, node in enumerate(level.nodes)
        }
        rows = [
            {hand_text(hand): h for h, hand in enumerate(role_hands)} for role_hands in self.hands
        ]
        for key, entry in table.items():
            hand, _, rest = key.partition("|")
            depth, n, node = where["hand=|" + rest]
            level = self.levels[depth]
            row = np.zeros(level.width)
            for text, probability in entry.items():
                row[node.actions.index(parse_action(text))] = probability
            strategy[depth][n, rows[level.actor][hand.removeprefix("hand=")]] = row / row.sum()
        return strategy

    # -- passes -------------------------------------------------------------------------

    def reach(self, strategy: Strategy) -> list[tuple[Floats, Floats]]:
        """Each role's reach probability (own chance included) at every node, per hand."""
        reach = [(self.probs[0][None, :].copy(), self.probs[1][None, :].copy())]
        for depth, level in enumerate(self.levels[:-1]):
            count = len(self.levels[depth + 1].nodes)
            parent = reach[-1]
            nxt = [np.empty((count, len(self.hands[role]))) for role in (OPENER, RESPONDER)]
            for role in (OPENER, RESPONDER):
                moved = parent[role][level.child_node]
                if role == level.actor:
                    moved = moved * strategy[depth][level.child_node, :, level.child_act]
                nxt[role][level.child_index] = moved
            reach.append((nxt[0], nxt[1]))
        return reach

    def backward(
        self,
        strategy: Strategy,
        reach: list[tuple[Floats, Floats]],
        role: int,
        best: bool = False,
        visit: Callable[[int, Floats, Floats], None] | None = None,
    ) -> Floats:
        """Counterfactual values of ``role`` at the root (per hand of ``role``).

        ``role`` follows ``strategy``, or plays a best response with ``best``. ``visit``
        sees, at each depth where ``role`` acts, the action values ``(nodes, actions,
        hands)`` and node values ``(nodes, hands)`` (CFR's regret update).
        """
        other = 1 - role
        below: Floats | None = None
        for depth in range(len(self.levels) - 1, -1, -1):
            level = self.levels[depth]
            sigma = strategy[depth]
            q = np.zeros((len(level.nodes), level.width, len(self.hands[role])))
            if len(level.term_node):
                pi = reach[depth][other][level.term_node]
                if level.actor == other:
                    pi = pi * sigma[level.term_node, :, level.term_act]
                if role == OPENER:
                    q[level.term_node, level.term_act] = np.einsum(
                        "eab,eb->ea", level.term_payoff, pi
                    )
                else:
                    q[level.term_node, level.term_act] = -np.einsum(
                        "eab,ea->eb", level.term_payoff, pi
                    )
            if below is not None and len(level.child_node):
                q[level.child_node, level.child_act] = below[level.child_index]
            if level.actor == role:
                if best:
                    value = np.where(level.mask[:, :, None], q, -np.inf).max(axis=1)
                else:
                    value = np.einsum("nha,nah->nh", sigma, q)
                if visit is not None:
                    visit(depth, q, value)
            else:
                value = q.sum(axis=1)
            below = value
        assert below is not None
        root: Floats = below[0]
        return root

    # -- measures -----------------------------------------------------------------------

    def evaluate(self, strategy: Strategy) -> Evaluation:
        """The opener's expected value and the exploitability (NashConv / 2) of ``strategy``."""
        reach = self.reach(strategy)
        value = float(self.probs[0] @ self.backward(strategy, reach, OPENER))
        best = [
            float(self.probs[role] @ self.backward(strategy, reach, role, best=True))
            for role in (OPENER, RESPONDER)
        ]
        return Evaluation(value, best[0], best[1], (best[0] + best[1]) / 2)

    # -- solving ------------------------------------------------------------------------

    def solve(
        self,
        iterations: int,
        target: float = 0.0,
        check_every: int = 100,
        seconds: float | None = None,
        method: str = "cfr+",
    ) -> SolveResult:
        """Run CFR+ or discounted CFR, with alternating updates.

        ``cfr+``: regret matching+ (regrets floored at 0) and a linearly weighted average.
        ``dcfr``: Brown and Sandholm's discounted CFR with their recommended (1.5, 0, 2):
        positive regrets scaled by t^1.5/(t^1.5+1), negative ones halved, the average
        weighted by (t/(t+1))^2 -- it converges faster where CFR+ crawls (calza games).

        Stops after ``iterations``, when the average strategy's exploitability falls below
        ``target`` (checked every ``check_every`` iterations), or after ``seconds``.
        """
        if method not in ("cfr+", "dcfr"):
            raise ValueError(f"unknown method {method!r} (cfr+ or dcfr)")
        started = time.perf_counter()
        regrets = [
            np.zeros((len(level.nodes), len(self.hands[level.actor]), level.width))
            for level in self.levels
        ]
        sums = [np.zeros_like(r) for r in regrets]
        done = 0
        evaluation: Evaluation | None = None
        current = [self._matched(r, level) for r, level in zip(regrets, self.levels, strict=True)]
        for t in range(1, iterations + 1):
            for role in (OPENER, RESPONDER):
                strategy = list(current)
                reach = self.reach(strategy)

                def update(
                    depth: int,
                    q: Floats,
                    value: Floats,
                    role: int = role,
                    strategy: Strategy = strategy,
                    reach: list[tuple[Floats, Floats]] = reach,
                    t: int = t,
                ) -> None:
                    level = self.levels[depth]
                    gain = (q.transpose(0, 2, 1) - value[:, :, None]) * level.mask[:, None, :]
                    own = reach[depth][role][:, :, None] * strategy[depth]
                    if method == "cfr+":
                        sums[depth] += t * own
                        np.maximum(regrets[depth] + gain, 0.0, out=regrets[depth])
                    else:
                        sums[depth] *= (t / (t + 1)) ** 2
                        sums[depth] += own
                        kept = t**1.5 / (t**1.5 + 1)
                        r = regrets[depth]
                        r *= np.where(r > 0, kept, 0.5)
                        r += gain

                self.backward(strategy, reach, role, visit=update)
                # Only ``role``'s regrets moved: re-match those levels alone.
                for depth, level in enumerate(self.levels):
                    if level.actor == role:
                        current[depth] = self._matched(regrets[depth], level)
            done = t
            if t % check_every == 0 or t == iterations:
                evaluation = self.evaluate(self.average(sums))
                if evaluation.exploitability <= target:
                    break
                if seconds is not None and time.perf_counter() - started > seconds:
                    break
        average = self.average(sums)
        if evaluation is None:
            evaluation = self.evaluate(average)
        return SolveResult(average, done, time.perf_counter() - started, evaluation)

    def _matched(self, regret: Floats, level: Level) -> Floats:
        """Regret matching: play in proportion to positive regret, uniformly if none."""
        positive = np.maximum(regret, 0.0)
        total = positive.sum(axis=2, keepdims=True)
        matched: Floats = np.divide(positive, total, out=np.empty_like(positive), where=total > 0)
        none = total[:, :, 0] <= 0
        if none.any():
            matched[none] = np.broadcast_to(level.uniform, matched.shape)[none]
        return matched

    def average(self, sums: list[Floats]) -> Strategy:
        return [_normalise(s, level) for s, level in zip(sums, self.levels, strict=True)]


def _normalise(weights: Floats, level: Level) -> Floats:
    total = weights.sum(axis=2, keepdims=True)
    safe = np.where(total > 0, total, 1.0)
    return np.where(total > 0, weights / safe, level.uniform)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """``value``: the opener's expected round utility; ``best_opener`` / ``best_responder``:
    what a best response earns in each role; ``exploitability``: their mean (NashConv/2)."""

    value: float
    best_opener: float
    best_responder: float
    exploitability: float


@dataclass(frozen=True, slots=True)
class SolveResult:
    strategy: Strategy
    iterations: int
    seconds: float
    evaluation: Evaluation
