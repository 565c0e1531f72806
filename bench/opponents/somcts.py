"""A second public search bot, ported as an arena opponent: single-observer MCTS.

Port of the MCTS agent of Emmet Houghton's Yale CPSC 474 final project "Heuristics, MCTS, and
CFR for Liar's Dice" (Houghton, Liu, Tan, December 2024; file ``mcts.py``, with the game in
``liars_dice.py``), which its authors report beating their rule-based agent 59% of the time
heads-up. Per iteration it:

1. draws the opponent's hand from a Bayesian weighting of their possible rolls (each roll,
   as face counts, starts at weight 1 and is multiplied by ``1 / EPSILON`` for every bid of
   theirs this round that the roll backs on its own);
2. walks the tree of bid histories: at its own nodes by UCB1 (``mean + sqrt(2 ln T / n)``,
   unvisited first), at the opponent's by the "epsilon-conservative" policy (a random legal
   move with probability 0.2, else a random raise their own dice back, else a challenge);
3. expands one of its own nodes and "plays out" from a random child (the original scores the
   playout by the history it started from, so only a child that is a challenge scores);
4. scores +1 if the opponent loses the die, -1 if it does.

It plays the root move with the best mean. The original runs for a time limit (0.1 s under
PyPy in its authors' tests); this port runs a fixed ``ITERATIONS`` so results do not depend on
the machine.

What changed in the port: the original is heads-up with ones always wild and never bid; at a
table of three or more this port lumps every other cup into one "opponent" of that many dice;
its bids are those of the original (faces 2..6), and where one is not legal under this table's
rules (after a bid on ones in Perudo) the port takes the cheapest legal bid on the same face,
then the cheapest legal bid. Ones bid by others count as face 1 in its model. It never calls
calza.
"""

from __future__ import annotations

import math
import random
from itertools import product

from dudo.bids import Bid
from dudo.game import DUDO, Action
from dudo.view import SeatView

NUM_FACES = 6
EPSILON = 0.2

Move = tuple[int, int] | None
Roll = tuple[int, ...]


def _possible_moves(history: list[Move], total: int) -> list[Move]:
    """``__possible_moves__``: every raise (faces 2..6; ``(1, 2)`` is the lowest opening),
    and a challenge once there is a bid."""
    if history and history[-1] is None:
        return []
    moves: list[Move] = []
    if not history:
        moves.append((1, 2))
        last = (1, 2)
    else:
        last = history[-1]  # type: ignore[assignment]
    for face in range(last[1] + 1, NUM_FACES + 1):
        moves.append((last[0], face))
    for quantity in range(last[0] + 1, total + 1):
        for face in range(2, NUM_FACES + 1):
            moves.append((quantity, face))
    if history:
        moves.append(None)
    return moves


def _rolls(dice: int) -> list[Roll]:
    """``generate_roll_tuples``: every roll as face counts, each listed once."""
    return [t for t in product(range(dice + 1), repeat=NUM_FACES) if sum(t) == dice]


def _score(mine: Roll, theirs: Roll, history: list[Move], i_bid_last: bool) -> int:
    """+1 if the opponent loses the die, -1 if we do (the original's ``score``)."""
    quantity, face = history[-2]  # type: ignore[misc]
    count = mine[face - 1] + mine[0] + theirs[face - 1] + theirs[0]
    if face == 1:
        count = mine[0] + theirs[0]
    if i_bid_last:
        return 1 if count >= quantity else -1
    return -1 if count >= quantity else 1


class _Node:
    __slots__ = ("edges", "history", "my_turn", "reward", "visits")

    def __init__(self, history: list[Move], my_turn: bool) -> None:
        self.history = history
        self.my_turn = my_turn
        self.edges: list[_Edge] | None = None
        self.visits = 0
        self.reward = 0.0


class _Edge:
    __slots__ = ("action", "child", "n")

    def __init__(self, action: Move, child: _Node) -> None:
        self.action = action
        self.child = child
        self.n = 0

    def ucb(self, total: int) -> float:
        if self.n == 0 or self.child.visits == 0:
            return math.inf
        return self.child.reward / self.child.visits + math.sqrt(2 * math.log(total) / self.n)


class SOMCTSBot:
    """Houghton's single-observer MCTS (Yale CPSC 474, 2024), fixed iterations."""

    ITERATIONS = 1000

    def __init__(self, seed: int | None = None) -> None:
        self.name = "so-mcts"
        self.rng = random.Random(seed)

    def act(self, view: SeatView) -> Action | None:
        if not view.my_turn:
            return None
        assert view.seat is not None
        mine = tuple(view.dice.count(face) for face in range(1, NUM_FACES + 1))
        their_dice = view.dice_in_play - len(view.dice)
        total = view.dice_in_play
        history: list[Move] = [(bid.quantity, bid.face) for _, bid in view.bids]
        mine_bid = {index for index, (seat, _) in enumerate(view.bids) if seat == view.seat}
        rolls, weights = self._determinizations(their_dice, history, mine_bid)
        root = _Node(history, True)
        memo: dict[tuple[Move, ...], _Node] = {tuple(history): root}
        for _ in range(self.ITERATIONS):
            theirs = self.rng.choices(rolls, weights=weights, k=1)[0]
            self._traverse(root, memo, mine, theirs, total)
        move = self._best(root, history, total)
        return self._legal(view, move)

    # -- the original's pieces -----------------------------------------------------------

    @staticmethod
    def _determinizations(
        dice: int, history: list[Move], mine_bid: set[int]
    ) -> tuple[list[Roll], list[float]]:
        """``bayesian_determinization_distribution`` over the opponent's rolls."""
        rolls = _rolls(dice)
        weights = [1.0] * len(rolls)
        for index, roll in enumerate(rolls):
            for position, bid in enumerate(history):
                if position in mine_bid or bid is None:
                    continue
                quantity, face = bid
                backed = roll[0] if face == 1 else roll[face - 1] + roll[0]
                if backed >= quantity:
                    weights[index] *= 1 / EPSILON
        total = sum(weights)
        return rolls, [weight / total for weight in weights]

    def _conservative(self, roll: Roll, moves: list[Move]) -> Move:
        """``epsilon_conservative``: the opponent's policy inside the tree."""
        if self.rng.random() < EPSILON:
            return moves[0] if len(moves) == 1 else moves[self.rng.randint(0, len(moves) - 1)]
        viable = [
            move for move in moves if move is not None and roll[0] + roll[move[1] - 1] >= move[0]
        ]
        return self.rng.choice(viable) if viable else None

    def _child(self, memo: dict[tuple[Move, ...], _Node], node: _Node, move: Move) -> _Node:
        history = [*node.history, move]
        key = tuple(history)
        child = memo.get(key)
        if child is None:
            child = _Node(history, not node.my_turn)
            memo[key] = child
        return child

    def _traverse(
        self, node: _Node, memo: dict[tuple[Move, ...], _Node], mine: Roll, theirs: Roll, total: int
    ) -> float:
        history = node.history
        if history and history[-1] is None:
            reward = float(_score(mine, theirs, history, node.my_turn))
            node.reward += reward
            node.visits += 1
            return reward
        if not node.my_turn:
            move = self._conservative(theirs, _possible_moves(history, total))
            reward = self._traverse(self._child(memo, node, move), memo, mine, theirs, total)
        elif node.edges is not None:
            if node.visits == 0:
                edge = self.rng.choice(node.edges)
            else:
                scores = [edge.ucb(node.visits) for edge in node.edges]
                edge = node.edges[scores.index(max(scores))]
            edge.n += 1
            reward = self._traverse(edge.child, memo, mine, theirs, total)
        else:
            node.edges = [
                _Edge(move, self._child(memo, node, move))
                for move in _possible_moves(history, total)
            ]
            edge = self.rng.choice(node.edges)
            edge.n += 1
            reward = self._playout(edge.child, mine, theirs, total)
            edge.child.visits += 1
            edge.child.reward += reward
        node.visits += 1
        node.reward += reward
        return reward

    @staticmethod
    def _playout(node: _Node, mine: Roll, theirs: Roll, total: int) -> float:
        """``random_play``. The original plays uniform moves to the challenge but then scores
        the history the playout *started* from, which is 0 unless that history already ends
        in a challenge. Kept as it is: its search therefore learns only from challenges met
        inside the tree, which is how the published agent played."""
        history = node.history
        if history and history[-1] is None:
            return float(_score(mine, theirs, history, node.my_turn))
        return 0.0

    @staticmethod
    def _best(root: _Node, history: list[Move], total: int) -> Move:
        if root.edges is None:
            return _possible_moves(history, total)[0]
        means = [
            edge.child.reward / edge.child.visits if edge.child.visits else -math.inf
            for edge in root.edges
        ]
        return root.edges[means.index(max(means))].action

    @staticmethod
    def _legal(view: SeatView, move: Move) -> Action:
        if move is None:
            return DUDO if DUDO in view.legal else view.legal.bids[0]
        wanted = Bid(*move)
        if wanted in view.legal:
            return wanted
        bids = view.legal.bids
        same_face = [
            bid for bid in bids if bid.face == wanted.face and bid.quantity >= wanted.quantity
        ]
        if same_face:
            return same_face[0]
        return bids[0] if bids else DUDO
