"""Heads-up rounds too large to solve exactly, solved for players who remember the last few bids.

A round's exact solution (:mod:`dudo.bots.cfr`) works on its public tree, one node per
history of bids, and the tree doubles with every bid on the ladder: one die each is 4,096
histories, three dice in play 262,144, four dice 16 million. But the game itself has
short memory: what can be bid next and what a call wins depend only on the standing bid
(and, under ``ones-lock``, whether ones are still wild). So if a player's strategy looks
only at their own hand and the last :data:`MEMORY` bids, the round becomes a small graph of
*windows*, one node per (last bids, player to act, wild or not), whatever the path that led
there: a few thousand nodes where the tree has millions.

CFR runs on that graph exactly as on a tree, with reach probabilities summed over the paths
into a node (a node's future does not depend on the path, so values stay per node). Such a
strategy forgets what came before its window, so it is not an exact equilibrium and CFR has
no guarantee here, but measured where the full tree can still be checked it comes close: on
the 1v1 round a three-bid memory is 0.004 of a round from equilibrium, against 0.8 for the
hard bot's heuristic (``docs/benchmarks.md``, "Endgames beyond one die each"). This is
what Neller and Hnath found for Dudo ("Approximating optimal Dudo play with fixed-strategy
iteration counterfactual regret minimization", 2011).

A solved round is a :class:`~dudo.bots.endgame.WindowTable` (one row of probabilities per
hand and window, held compactly); :func:`dudo.bots.endgame.endgame_policy` plays it as it
plays an exact table.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dudo.bids import Bid
from dudo.bots.base import quantity_bid
from dudo.bots.cfr import Tree, private_hands
from dudo.bots.endgame import (
    OPENER,
    RESPONDER,
    EndgameTooLarge,
    Terminal,
    WindowTable,
    action_text,
    game_key,
    hand_text,
    parse_action,
    start_round,
    window_name,
)
from dudo.game import Action, Call, Game
from dudo.rules import Rules

Floats = NDArray[np.float64]
Ints = NDArray[np.intp]

MEMORY = 3
"""Bids a strategy remembers: 3 is within 0.004 of equilibrium on the 1v1 round, 2 within
0.02, 1 within 0.11-0.14 (measured, ``docs/benchmarks.md``)."""
CHUNK = 4_000_000
"""Most numbers in one layer's block of child values (states x actions x pairs of hands):
larger layers are done in parts, so memory stays at tens of MB."""


@dataclass(slots=True)
class Window:
    """A node of the graph: the last bids, the role to act and its actions (their children
    are filled in as the graph is built)."""

    key: tuple[object, ...]
    last: tuple[Bid, ...]
    actor: int
    wild: bool
    actions: tuple[Action, ...]
    children: list[int]
    """Per action: the index of the next window, or of a terminal (``-1 - t``)."""


class WindowedRound:
    """One heads-up round as a graph of windows, laid out for CFR over private hands."""

    def __init__(
        self,
        rules: Rules,
        opener_dice: int,
        responder_dice: int,
        palifico: bool = False,
        memory: int = MEMORY,
        max_windows: int | None = None,
    ) -> None:
        self.rules = rules
        self.opener_dice = opener_dice
        self.responder_dice = responder_dice
        self.palifico = palifico
        self.memory = memory
        self.hands, self.probs = private_hands(opener_dice, responder_dice)
        self.windows: list[Window] = []
        self.terminals: list[Terminal] = []
        self._build(max_windows)
        self._lay_out()

    @property
    def key(self) -> str:
        return game_key(self.opener_dice, self.responder_dice, self.palifico)

    # -- the graph -------------------------------------------------------------------------

    def _build(self, max_windows: int | None) -> None:
        """Every window the round can reach, found by driving the engine (so the actions
        are the rules' own), depth first from the opening."""
        game, opener_seat = start_round(
            self.rules, self.opener_dice, self.responder_dice, self.palifico
        )
        role_of = {opener_seat: OPENER, 1 - opener_seat: RESPONDER}
        index: dict[tuple[object, ...], int] = {}
        named: set[tuple[object, ...]] = set()
        terminal_index: dict[Terminal, int] = {}
        games: list[Game | None] = []

        def visit(state: Game, last: tuple[Bid, ...]) -> int:
            seat = state.turn
            actions = tuple(state.legal_actions(seat))
            key = (last, role_of[seat], state.wild, actions)
            found = index.get(key)
            if found is not None:
                return found
            if max_windows is not None and len(self.windows) >= max_windows:
                raise EndgameTooLarge(
                    f"the {self.key} round has more than {max_windows} windows of "
                    f"{self.memory} bids under these rules"
                )
            name = (last, role_of[seat], state.wild)
            if name in named:  # the table could not tell the two apart: never guess
                raise ValueError(
                    f"the {self.key} round's actions after {last} depend on more than the "
                    "last bids under these rules"
                )
            named.add(name)
            number = index[key] = len(self.windows)
            self.windows.append(Window(key, last, role_of[seat], state.wild, actions, []))
            games.append(state)
            return number

        pending = [visit(game, ())]
        while pending:
            number = pending.pop()
            window = self.windows[number]
            state = games[number]
            assert state is not None
            for action in window.actions:
                if isinstance(action, Bid):
                    child = state.copy()
                    child.apply(state.turn, action)
                    known = len(self.windows)
                    target = visit(child, (*window.last, action)[-self.memory :])
                    if target == known:
                        pending.append(target)
                    window.children.append(target)
                else:
                    assert isinstance(action, Call) and state.standing is not None
                    terminal = Terminal(
                        action, quantity_bid(state.standing), state.wild, window.actor
                    )
                    if terminal not in terminal_index:
                        terminal_index[terminal] = len(self.terminals)
                        self.terminals.append(terminal)
                    window.children.append(-1 - terminal_index[terminal])
            games[number] = None  # done with it

    def _lay_out(self) -> None:
        """Arrays for the passes: the windows in layers by height (a window's children are
        all in lower layers), each layer padded to its widest action list.

        Values live in one array ``(windows + terminals + 1, opener hands, responder
        hands)``: the windows' rows are recomputed every pass, the terminals' rows hold their
        payoffs, and the last row is zeros (the padding's child)."""
        count = len(self.windows)
        height = [0] * count
        order = self._topological()
        for number in reversed(order):
            children = [c for c in self.windows[number].children if c >= 0]
            height[number] = 1 + max((height[c] for c in children), default=0)
        self.order = order
        layers: dict[int, list[int]] = {}
        for number in range(count):
            layers.setdefault(height[number], []).append(number)
        first_terminal = count
        self.zero_row = count + len(self.terminals)
        self.layers: list[tuple[int, Ints, Ints, NDArray[np.bool_]]] = []
        for level in sorted(layers):
            for actor in (OPENER, RESPONDER):
                members = [n for n in layers[level] if self.windows[n].actor == actor]
                if not members:
                    continue
                width = max(len(self.windows[n].actions) for n in members)
                targets = np.full((len(members), width), self.zero_row, dtype=np.intp)
                mask = np.zeros((len(members), width), dtype=bool)
                for row, number in enumerate(members):
                    for column, child in enumerate(self.windows[number].children):
                        targets[row, column] = child if child >= 0 else first_terminal - 1 - child
                        mask[row, column] = True
                self.layers.append((actor, np.array(members, dtype=np.intp), targets, mask))
        pairs = (len(self.hands[0]), len(self.hands[1]))
        self.values = np.zeros((self.zero_row + 1, *pairs))
        for t, terminal in enumerate(self.terminals):
            self.values[first_terminal + t] = [
                [terminal.opener_utility(mine, theirs) for theirs in self.hands[1]]
                for mine in self.hands[0]
            ]

    def _topological(self) -> list[int]:
        """The windows, every parent before its children (the graph has no cycles: each bid
        is above the one before)."""
        seen = [False] * len(self.windows)
        finished: list[int] = []
        for root in range(len(self.windows)):
            if seen[root]:
                continue
            seen[root] = True
            stack = [(root, iter(self.windows[root].children))]
            while stack:
                number, children = stack[-1]
                for child in children:
                    if child >= 0 and not seen[child]:
                        seen[child] = True
                        stack.append((child, iter(self.windows[child].children)))
                        break
                else:
                    stack.pop()
                    finished.append(number)
        return finished[::-1]

    # -- passes ----------------------------------------------------------------------------

    def uniform(self) -> list[Floats]:
        """Every legal action equally likely, per layer ``(windows, actor's hands, width)``."""
        result = []
        for actor, _, _, mask in self.layers:
            legal = mask / mask.sum(axis=1, keepdims=True)
            result.append(np.repeat(legal[:, None, :], len(self.hands[actor]), axis=1))
        return result

    def reach(self, strategy: list[Floats]) -> tuple[Floats, Floats]:
        """Each role's reach at every window, summed over the paths into it, per hand (own
        chance included)."""
        count = len(self.windows)
        reach = (
            np.zeros((count + 1, len(self.hands[0]))),
            np.zeros((count + 1, len(self.hands[1]))),
        )
        reach[0][0] = self.probs[0]
        reach[1][0] = self.probs[1]
        # windows parent-first: the layers from the highest down
        for (actor, members, children, mask), sigma in zip(
            reversed(self.layers), reversed(strategy), strict=True
        ):
            targets = np.where(mask & (children < count), children, count)  # calls, padding
            for role in (OPENER, RESPONDER):
                source = reach[role][members]  # (m, hands)
                if role == actor:
                    pushed = source[:, :, None] * sigma  # (m, hands, width)
                else:
                    pushed = np.broadcast_to(source[:, :, None], (*source.shape, sigma.shape[2]))
                flat = pushed.transpose(0, 2, 1).reshape(-1, source.shape[1])
                np.add.at(reach[role], targets.ravel(), flat)
            reach[0][count] = 0.0
            reach[1][count] = 0.0
        return reach

    def backward(
        self,
        strategy: list[Floats],
        reach: tuple[Floats, Floats] | None = None,
        role: int | None = None,
    ) -> list[Floats | None]:
        """Fill in every window's value (the opener's utility per pair of hands) under
        ``strategy``; with ``reach`` and ``role``, also return per layer the regret gain of
        ``role`` at its windows ``(windows, hands, width)`` (``None`` at the other's)."""
        gains: list[Floats | None] = []
        values = self.values
        for (actor, members, children, mask), sigma in zip(self.layers, strategy, strict=True):
            pairs = values.shape[1] * values.shape[2]
            step = max(1, CHUNK // (children.shape[1] * pairs))
            gain = None
            if reach is not None and role == actor:
                gain = np.zeros(sigma.shape)
            for start in range(0, len(members), step):
                part = slice(start, start + step)
                below = values[children[part]]  # (m, width, opener hands, responder hands)
                if actor == OPENER:
                    values[members[part]] = np.einsum("mhw,mwhg->mhg", sigma[part], below)
                else:
                    values[members[part]] = np.einsum("mgw,mwhg->mhg", sigma[part], below)
                if gain is not None and reach is not None:
                    if actor == OPENER:
                        q = np.einsum("mwhg,mg->mhw", below, reach[RESPONDER][members[part]])
                    else:
                        q = -np.einsum("mwhg,mh->mgw", below, reach[OPENER][members[part]])
                    v = (q * sigma[part]).sum(axis=2, keepdims=True)
                    gain[part] = (q - v) * mask[part][:, None, :]
            gains.append(gain)
        return gains

    def value(self, strategy: list[Floats]) -> float:
        """The opener's expected round utility when both play ``strategy``."""
        self.backward(strategy)
        return float(self.probs[0] @ self.values[0] @ self.probs[1])

    # -- solving ---------------------------------------------------------------------------

    def solve(self, iterations: int, seconds: float | None = None) -> tuple[list[Floats], int]:
        """Discounted CFR (1.5, 0, 2), alternating updates; the average strategy and the
        iterations run (fewer if ``seconds`` ran out)."""
        started = time.process_time()
        regrets = [np.zeros(sigma.shape) for sigma in self.uniform()]
        sums = [np.zeros(r.shape) for r in regrets]
        current = self.uniform()
        done = 0
        for t in range(1, iterations + 1):
            for role in (OPENER, RESPONDER):
                reach = self.reach(current)
                gains = self.backward(current, reach, role)
                for index, (actor, members, _, mask) in enumerate(self.layers):
                    gain = gains[index]
                    if actor != role or gain is None:
                        continue
                    own = reach[role][members][:, :, None] * current[index]
                    sums[index] *= (t / (t + 1)) ** 2
                    sums[index] += own
                    r = regrets[index]
                    r *= np.where(r > 0, t**1.5 / (t**1.5 + 1), 0.5)
                    r += gain
                    current[index] = _matched(r, mask)
            done = t
            if seconds is not None and time.process_time() - started > seconds:
                break
        layers = zip(sums, self.layers, strict=True)
        return [_average(total, mask) for total, (_, _, _, mask) in layers], done

    def to_table(self, strategy: list[Floats], decimals: int = 4) -> WindowTable:
        """The strategy as data: every window, every hand (off the strategy's own paths a
        window still has its entry), probabilities rounded; a row rounded to nothing plays
        its most likely action."""
        windows: dict[str, tuple[tuple[str, ...], array[float]]] = {}
        for (actor, members, _, _), sigma in zip(self.layers, strategy, strict=True):
            rounded = np.round(sigma, decimals)
            empty = rounded.sum(axis=2) <= 0
            if empty.any():
                best = np.argmax(sigma, axis=2)
                rows, hands_ = np.nonzero(empty)
                rounded[rows, hands_, best[rows, hands_]] = 1.0
            for row, number in enumerate(members):
                window = self.windows[number]
                width = len(window.actions)
                windows[window_name(window.last, actor, window.wild)] = (
                    tuple(action_text(action) for action in window.actions),
                    array("f", rounded[row, :, :width].ravel().tolist()),
                )
        opener_hands = [hand_text(hand) for hand in self.hands[OPENER]]
        responder_hands = [hand_text(hand) for hand in self.hands[RESPONDER]]
        return WindowTable(self.memory, (opener_hands, responder_hands), windows)


def _matched(regret: Floats, mask: NDArray[np.bool_]) -> Floats:
    positive = np.maximum(regret, 0.0)
    total = positive.sum(axis=2, keepdims=True)
    legal = (mask / mask.sum(axis=1, keepdims=True))[:, None, :]
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), legal)


def _average(sums: Floats, mask: NDArray[np.bool_]) -> Floats:
    total = sums.sum(axis=2, keepdims=True)
    legal = (mask / mask.sum(axis=1, keepdims=True))[:, None, :]
    return np.where(total > 0, sums / np.where(total > 0, total, 1.0), legal)


def on_tree(tree: Tree, table: WindowTable) -> list[Floats]:
    """A windowed table as a strategy of the round's full public tree (:class:`Tree`),
    so that an exact best response can measure it where the tree can be built."""
    rules = tree.endgame.rules
    lock = rules.ones_bids == "lock"
    strategy = tree.uniform()
    for depth, level in enumerate(tree.levels):
        for n, node in enumerate(level.nodes):
            wild = (
                rules.wild_ones
                and not tree.endgame.palifico
                and not (lock and any(bid.face == 1 for bid in node.history))
            )
            for h, hand in enumerate(tree.hands[level.actor]):
                entry = table.entry(hand, node.history, level.actor, wild)
                if not entry:
                    continue
                row = np.zeros(level.width)
                for text, probability in entry.items():
                    row[node.actions.index(parse_action(text))] = probability
                strategy[depth][n, h] = row / row.sum()
    return strategy
