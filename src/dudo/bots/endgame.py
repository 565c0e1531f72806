"""Heads-up endgames: the public game tree of one round, and the solved strategies shipped as data.

When only two players are left with one or two dice each, a round is small enough to solve
exactly (see :mod:`dudo.bots.cfr`). This module holds the parts that need no numpy, so a
bot can use the shipped strategies with the package's ordinary dependencies:

- :func:`build_endgame` builds the round's *public* tree (a node is the list of bids so far)
  by driving the engine itself: every node's actions are ``Game.legal_actions``, so the tree
  cannot drift from the rules. Terminal edges (a call) carry what the payoff needs: the
  bid, the call, who called and whether ones were wild at that moment (``ones-lock`` turns
  wildness off mid-round).
- :func:`endgame_policy` returns the shipped strategy for a seat's current decision, or
  ``None`` when the view is not a covered endgame.

Utility is per round and zero-sum: the player who loses the die gets -1, the other +1; an
exact calza gives the caller +1, a wrong one -1. The two players are called *opener* (role
0) and *responder* (role 1); the seats they sit in do not matter.

Data (``bots/data/``): ``index.json`` lists every shipped game as ``{"file", "preset",
"game", "rules"}``; each ``<preset>.<game>.json.gz`` holds ``{"rules", "game", "strategy":
{info set: {action: probability}}}``. A game key is ``<opener dice>v<responder dice>``,
with ``-palifico`` for a palifico round. An info set is ``hand=<sorted dice>|bids=<bids so
far>``, e.g. ``hand=3|bids=1x2,1x5``; the actor is the opener when the number of bids is
even. Probabilities are rounded to 4 decimals (zeros dropped), and only info sets the
player's own strategy can reach are stored.
"""

from __future__ import annotations

import gzip
import json
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

from dudo.bids import Bid
from dudo.bots.base import quantity_bid
from dudo.game import CALZA, DUDO, Action, Call, Game, Phase
from dudo.rules import Rules
from dudo.view import SeatView

Hand = tuple[int, ...]

OPENER = 0
RESPONDER = 1


# -- chance -------------------------------------------------------------------------------


def hands(dice: int) -> list[tuple[Hand, float]]:
    """Every sorted hand of ``dice`` fair dice with its probability.

    Private hands are multisets: a player's dice order carries no information, so merging
    orderings keeps the tree small without changing the game.
    """
    result = []
    for hand in combinations_with_replacement(range(1, 7), dice):
        ways = factorial(dice)
        for face in set(hand):
            ways //= factorial(hand.count(face))
        result.append((hand, ways / 6**dice))
    return result


def count(hand: Hand, face: int, wild: bool) -> int:
    """How many dice of ``hand`` count for ``face`` (the engine's ``Game.count``)."""
    return sum(1 for die in hand if die == face or (wild and die == 1 and face != 1))


# -- the public tree ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Terminal:
    """A call that ends the round: the payoff depends only on these and the two hands."""

    call: Call
    bid: Bid
    wild: bool
    caller: int

    def opener_utility(self, opener_hand: Hand, responder_hand: Hand) -> int:
        """The opener's round utility (+1 or -1) for the two hands."""
        total = count(opener_hand, self.bid.face, self.wild) + count(
            responder_hand, self.bid.face, self.wild
        )
        quantity = self.bid.quantity
        caller_wins = total < quantity if self.call is DUDO else total == quantity
        caller_utility = 1 if caller_wins else -1
        return caller_utility if self.caller == OPENER else -caller_utility


@dataclass(slots=True)
class Node:
    """A public decision node: the bids so far, who acts, and where each action leads.

    ``children[i]`` is the node after ``actions[i]`` when it is a bid, else a
    :class:`Terminal`.
    """

    history: tuple[Bid, ...]
    actor: int
    actions: tuple[Action, ...]
    children: list[Node | Terminal]


@dataclass(slots=True)
class Endgame:
    """One heads-up round: the rules, the dice of both roles, and its public tree."""

    rules: Rules
    opener_dice: int
    responder_dice: int
    palifico: bool
    root: Node

    @property
    def key(self) -> str:
        """The game's key in the data files, e.g. ``1v1`` or ``1v1-palifico``."""
        return game_key(self.opener_dice, self.responder_dice, self.palifico)

    def nodes(self) -> Iterator[Node]:
        """Every decision node, parents before children."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(child for child in reversed(node.children) if isinstance(child, Node))

    def hands(self, role: int) -> list[tuple[Hand, float]]:
        return hands(self.opener_dice if role == OPENER else self.responder_dice)


def game_key(opener_dice: int, responder_dice: int, palifico: bool) -> str:
    return f"{opener_dice}v{responder_dice}{'-palifico' if palifico else ''}"


def start_round(
    rules: Rules, opener_dice: int, responder_dice: int, palifico: bool = False
) -> tuple[Game, int]:
    """An engine game at the start of such a round (bidding open), and the opener's seat.

    A palifico round is reached the way the engine makes one: seat 1 starts with one die
    more, seat 0 opens with a true bid, seat 1 calls dudo, loses a die and drops to one,
    which starts the palifico round with seat 1 as opener. Going through ``apply`` keeps us
    from poking at the engine's private state. The dice rolled are
    placeholders: legality never depends on them. (In the setup the bid holds exactly,
    one 6 and no ones among the dice, so that under ``loss_by_difference`` too the caller
    loses one die, not two.)
    """
    if not palifico:
        game = Game(rules, 2, dice_counts=[opener_dice, responder_dice], opener=0)
        game.roll([(6,) * opener_dice, (6,) * responder_dice])
        return game, 0
    if opener_dice != 1:
        raise ValueError("a palifico round is opened by the player who dropped to one die")
    game = Game(rules, 2, dice_counts=[responder_dice, opener_dice + 1], opener=0)
    game.roll([(6,) + (2,) * (responder_dice - 1), (2,) * (opener_dice + 1)])
    game.apply(0, Bid(1, 6))
    game.apply(1, DUDO)
    if not game.palifico or game.opener != 1 or game.dice_counts != [responder_dice, 1]:
        raise ValueError(f"these rules give no heads-up palifico round: {rules.to_overrides()}")
    game.roll([(6,) * responder_dice, (6,)])
    return game, 1


class EndgameTooLarge(ValueError):
    """The round's public tree has more nodes than the caller allows (``max_nodes``)."""


def build_endgame(
    rules: Rules,
    opener_dice: int,
    responder_dice: int,
    palifico: bool = False,
    max_nodes: int | None = None,
) -> Endgame:
    """The public tree of the round, with every node's actions taken from the engine.

    ``max_nodes``: stop with :class:`EndgameTooLarge` as soon as the tree grows past it
    (the tree doubles with every bid on the ladder, so a round without the cap on bids, or
    with three dice in play, is hundreds of thousands of nodes or far more: this tells
    in a fraction of a second that it is out of reach instead of building it).
    """
    game, opener_seat = start_round(rules, opener_dice, responder_dice, palifico)
    role_of = {opener_seat: OPENER, 1 - opener_seat: RESPONDER}
    built = 0

    def expand(state: Game, history: tuple[Bid, ...]) -> Node:
        nonlocal built
        built += 1
        if max_nodes is not None and built > max_nodes:
            raise EndgameTooLarge(
                f"the {game_key(opener_dice, responder_dice, palifico)} round has more "
                f"than {max_nodes} public nodes under these rules"
            )
        seat = state.turn
        other = 1 - seat
        if state.legal_actions(other):
            # Heads-up the only other player is the bidder, who may never call.
            raise AssertionError(f"unexpected out-of-turn actions after {history}")
        actions = tuple(state.legal_actions(seat))
        children: list[Node | Terminal] = []
        for action in actions:
            if isinstance(action, Bid):
                child = state.copy()
                child.apply(seat, action)
                children.append(expand(child, (*history, action)))
            else:
                assert isinstance(action, Call) and state.standing is not None
                children.append(
                    Terminal(action, quantity_bid(state.standing), state.wild, role_of[seat])
                )
        return Node(history, role_of[seat], actions, children)

    return Endgame(rules, opener_dice, responder_dice, palifico, expand(game, ()))


# -- names used in the data -----------------------------------------------------------------


def hand_text(hand: Sequence[int]) -> str:
    return "".join(str(die) for die in sorted(hand))


def info_key(hand: Sequence[int], history: Sequence[Bid]) -> str:
    """The info-set string: own sorted hand and the public bids, e.g. ``hand=3|bids=1x2``."""
    return f"hand={hand_text(hand)}|bids={','.join(str(bid) for bid in history)}"


def window_name(last: Sequence[Bid], actor: int, wild: bool) -> str:
    """A window of a windowed strategy (:class:`WindowTable`): the last bids, the role to
    act and whether ones are wild (``ones-lock`` turns that off mid-round, so the same bids
    can stand either way), e.g. ``1x2,2x5|0|w``."""
    return f"{','.join(str(bid) for bid in last)}|{actor}|{'w' if wild else '-'}"


class WindowTable:
    """A strategy that sees its own hand and the last ``memory`` bids only
    (:mod:`dudo.bots.window` solves them), held compactly: per window its actions and one
    row of probabilities per hand of the role to act, as 32-bit floats (a 2v2 round has
    about a million of them; as a :data:`Table` of dictionaries it would take 60 MB).

    As JSON (the cache file, the solving child's answer): ``{"memory": m, "hands": [opener
    hands, responder hands], "windows": {window name: [[actions], [probabilities, row by
    row]]}}``, hands and actions as in the exact tables' keys."""

    __slots__ = ("hands", "memory", "windows")

    def __init__(
        self,
        memory: int,
        hands: tuple[Sequence[str], Sequence[str]],
        windows: dict[str, tuple[tuple[str, ...], array[float]]],
    ) -> None:
        self.memory = memory
        self.hands = (
            {hand: row for row, hand in enumerate(hands[0])},
            {hand: row for row, hand in enumerate(hands[1])},
        )
        self.windows = windows

    def entry(
        self, hand: Sequence[int], bids: Sequence[Bid], actor: int, wild: bool
    ) -> dict[str, float]:
        """The probabilities of the actions (by their text) for this hand, after ``bids``
        (the round's so far: the window is their last few), with ones ``wild`` or not;
        empty if the table has no such window or hand."""
        found = self.windows.get(window_name(bids[-self.memory :], actor, wild))
        row = self.hands[actor].get(hand_text(hand))
        if found is None or row is None:
            return {}
        actions, probabilities = found
        width = len(actions)
        start = row * width
        return {
            action: probabilities[start + column]
            for column, action in enumerate(actions)
            if probabilities[start + column] > 0
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "memory": self.memory,
            "hands": [list(self.hands[0]), list(self.hands[1])],
            "windows": {
                name: [list(actions), [round(p, 4) for p in probabilities]]
                for name, (actions, probabilities) in self.windows.items()
            },
        }

    @classmethod
    def from_json(cls, data: Any) -> WindowTable:
        """Read :meth:`to_json`'s form; :class:`ValueError` if it is not that."""
        try:
            memory = int(data["memory"])
            hands = (list(map(str, data["hands"][0])), list(map(str, data["hands"][1])))
            windows: dict[str, tuple[tuple[str, ...], array[float]]] = {}
            for name, (actions, probabilities) in data["windows"].items():
                row_count = len(hands[int(str(name).split("|")[1])])
                if len(probabilities) != len(actions) * row_count:
                    raise ValueError(f"window {name!r} has the wrong number of probabilities")
                windows[str(name)] = (tuple(map(str, actions)), array("f", probabilities))
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            raise ValueError(f"not a windowed strategy: {error!r}") from None
        if memory < 1:
            raise ValueError(f"a windowed strategy remembers at least one bid, not {memory}")
        return cls(memory, hands, windows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WindowTable) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


def action_text(action: Action) -> str:
    return action.value if isinstance(action, Call) else str(action)


def parse_action(text: str) -> Action:
    if text == DUDO.value:
        return DUDO
    if text == CALZA.value:
        return CALZA
    quantity, _, face = text.partition("x")
    return Bid(int(quantity), int(face))


# -- which rules a solved round stands for -------------------------------------------------------


def round_signature(
    rules: Rules, palifico: bool, dice: tuple[int, int] | None = None
) -> tuple[Any, ...]:
    """The options that shape a heads-up round (its actions and its outcome), and no others.

    Starting dice, the first opener, the format and the like do not change a round once it
    has started, so a table that differs from a preset only in those still gets the solved
    strategy. Calza enters only as "possible heads-up or not"; the palifico options only
    in palifico rounds. ``loss_by_difference`` is kept, conservatively: it changes what a
    round is worth once someone holds two dice; given ``dice`` (the two players' counts)
    and one die each, it is left out, since whoever loses a die then loses their last
    (except in a points race, where it scores the difference).
    """
    calza = rules.calza if rules.calza != "off" and rules.calza_min_players <= 2 else "off"
    if calza == "any_time":
        calza = "in_turn"  # heads-up the only other seat is the bidder, who may not call
    signature: tuple[Any, ...] = (
        rules.wild_ones,
        rules.ones_bids,
        rules.cap_at_dice_in_play,
        calza,
        rules.loss_by_difference and (dice is None or max(dice) > 1 or rules.format == "points"),
        palifico,
    )
    if palifico:
        signature += (rules.palifico_open_on_ones, rules.palifico_one_die_may_change_face)
    if rules.bids != "quantity":  # Common Hand shares no-wilds' options but not its rounds
        signature += (rules.bids,)
    return signature


# -- the shipped strategies ----------------------------------------------------------------------

DATA_DIR = "data"
"""The folder, inside the ``dudo.bots`` package, of the shipped strategy files."""

MANIFEST = "index.json"
"""The data folder's table of contents: which file holds which game under which rules."""

Table = dict[str, dict[str, float]]


def _data_path(name: str) -> Traversable:
    return resources.files("dudo.bots").joinpath(DATA_DIR).joinpath(name)


@cache
def manifest() -> tuple[dict[str, Any], ...]:
    """The shipped games: ``{"file", "preset", "game", "rules"}`` each (empty if none).

    A small uncompressed index, so that a bot pays for parsing a strategy only when its
    table actually reaches that endgame (the larger games hold a hundred thousand info sets).
    """
    path = _data_path(MANIFEST)
    if not path.is_file():
        return ()
    entries: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return tuple(entries)


@cache
def load_table(name: str) -> Table:
    """One game's strategy file, parsed (cached: each file is read once per process)."""
    data: dict[str, Any] = json.loads(gzip.decompress(_data_path(name).read_bytes()))
    table: Table = data["strategy"]
    return table


@cache
def _index() -> dict[tuple[Any, ...], str]:
    """The file of every shipped game by (round signature, game key)."""
    index: dict[tuple[Any, ...], str] = {}
    for entry in manifest():
        palifico = entry["game"].endswith("-palifico")
        sizes = entry["game"].removesuffix("-palifico").split("v")
        dice = (int(sizes[0]), int(sizes[1]))
        signature = round_signature(Rules.from_json(entry["rules"]), palifico, dice)
        index[(signature, entry["game"])] = entry["file"]
    return index


def shipped_table(
    rules: Rules, opener_dice: int, responder_dice: int, palifico: bool = False
) -> Table | None:
    """The shipped strategy for this round, or ``None`` if it is not covered."""
    key = game_key(opener_dice, responder_dice, palifico)
    signature = round_signature(rules, palifico, (opener_dice, responder_dice))
    name = _index().get((signature, key))
    return None if name is None else load_table(name)


Strategy = Table | WindowTable
"""A solved round's strategy: exact (a :data:`Table`) or windowed (a :class:`WindowTable`)."""

TableLookup = Callable[[Rules, int, int, bool], Strategy | None]
"""Where a strategy comes from: ``(rules, opener dice, responder dice, palifico)`` to its
table or ``None`` (:func:`shipped_table`; :func:`dudo.bots.solved.solved_table` also
solves the rounds no data file covers)."""


def solved_rules(rules: Rules) -> Rules:
    """The rules whose solved strategy plays a heads-up round of ``rules`` exactly.

    The same rules, except that a round without the cap on bids (``cap_at_dice_in_play:
    false``, whose tree has no end) is played by its capped twin: a bid above the dice in
    play is certainly false, so making it loses the round, the least a player can get, and
    calling it wins. The capped game's equilibrium, with every such bid called (see
    :func:`endgame_policy`), is therefore an equilibrium of the uncapped game, just as
    exploitable. The argument needs a loss to be one die or one point whatever the bid, so
    loss by the difference keeps its own rules (and no table without the cap).
    """
    if rules.cap_at_dice_in_play or rules.loss_by_difference:
        return rules
    return rules.with_options(cap_at_dice_in_play=True)


def endgame_policy(
    view: SeatView, lookup: TableLookup = shipped_table
) -> dict[Action, float] | None:
    """The solved strategy's action probabilities for this seat's decision, if covered.

    Covered means: bidding, the seat's turn, exactly two players with dice, a strategy for
    their dice counts under these rules from ``lookup`` (by default the shipped data
    only), and the bids so far on the solved strategy's own paths (off them, the data has
    nothing and we answer ``None`` so the bot uses its own play). Actions are the objects
    of ``view.legal``; the probabilities sum to 1.
    """
    seat = view.seat
    if seat is None or view.phase != Phase.BIDDING.value or not view.my_turn:
        return None
    if view.rules.bids == "poker":  # solved for quantity bids only
        return None
    alive = [s for s, dice in enumerate(view.dice_counts) if dice]
    if len(alive) != 2 or seat not in alive or view.opener not in alive:
        return None
    opener = view.opener
    responder = alive[0] if alive[1] == opener else alive[1]
    rules = solved_rules(view.rules)
    standing = view.bids[-1][1] if view.bids else None
    if (
        rules is not view.rules
        and isinstance(standing, Bid)
        and standing.quantity > view.dice_in_play
        and DUDO in view.legal
    ):
        return {DUDO: 1.0}  # above every die in play: false, whatever the cups hold
    table = lookup(rules, view.dice_counts[opener], view.dice_counts[responder], view.palifico)
    if table is None:
        return None
    for index, (bidder, _) in enumerate(view.bids):
        if bidder != (opener if index % 2 == 0 else responder):
            return None
    history = [quantity_bid(bid) for _, bid in view.bids]
    entry: dict[str, float] | None
    if isinstance(table, WindowTable):  # a strategy that sees the last few bids only
        role = OPENER if len(history) % 2 == 0 else RESPONDER
        entry = table.entry(view.dice, history, role, view.wild)
    else:
        entry = table.get(info_key(view.dice, history))
    if not entry:
        return None
    legal = {action_text(action): action for action in view.legal}
    policy: dict[Action, float] = {}
    for text, probability in entry.items():
        action = legal.get(text)
        if action is None:
            return None  # the data does not fit this position: never guess
        policy[action] = probability
    total = sum(policy.values())
    if total <= 0:
        return None
    return {action: probability / total for action, probability in policy.items()}
