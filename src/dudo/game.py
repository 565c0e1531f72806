"""The game state machine: rounds, bids, calls, reveals, eliminations and points.

A :class:`Game` is driven by its caller and answers with events::

    >>> from dudo.dice import ScriptedDice
    >>> game = Game(Rules.preset("tavern"), 2, dice=ScriptedDice([[(6, 6, 1), (2, 3, 4)]]),
    ...             dice_counts=[3, 3], opener=0)
    >>> _ = game.roll()
    >>> game.apply(0, Bid(3, 6))
    [BidPlaced(seat=0, bid=Bid.parse('3x6'))]
    >>> [type(event).__name__ for event in game.apply(1, DUDO)]
    ['Revealed', 'RoundStarted']

Like ``chess.Board`` the object is mutable (a game is a long sequence of small steps and
copying the whole state on each would dominate the cost), but it is deterministic: the same
rules, start and dice source give the same game, and :meth:`Game.record` writes down
everything needed to replay it. It does no I/O, reads no clock and uses no global
randomness: dice come from the injected :class:`~dudo.dice.DiceSource`.

Legality has one implementation, :meth:`Game.reason`, which returns the reason code of
RULES.md for an action that is refused. :meth:`Game.legal_actions` lists the accepted set
cheaply (a slice of a shared ladder of bids); the tests check that the two agree. Each
kind of round's ladders and legal actions are worked out once per rules and shared
(``_Bidding``), and :meth:`Game.apply` takes the very objects ``legal_actions`` handed to
the seat to act without asking ``reason`` again; anything else (an equal bid built anew
included) goes through ``reason``, and the tests play games both ways to the same end.

With ``bids: poker`` (Common Hand) every bid is a :class:`~dudo.hands.Hand` and the ladder
is one of hands (:class:`~dudo.hands.HandLadder`); a call asks whether all dice together
contain the hand, and the reveal has no count. With ``first_opener: rolloff`` the opener of
round 1 comes from a :class:`~dudo.rolloff.RollOff`, given or rolled on the dice source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from functools import lru_cache
from itertools import chain
from typing import Any, Final, Generic, TypeVar, overload

from dudo.bids import Bid, Ladder, Order, ladder, quantity_limits
from dudo.dice import Cups, DiceSource, SystemDice, deal, random_rows
from dudo.hands import Hand, HandLadder, hand_ladder, is_hand
from dudo.printable import json_quoted as _shown  # a value quoted in an error message
from dudo.rolloff import RollOff
from dudo.rules import MAX_PLAYERS, MIN_PLAYERS, Rules


class Call(Enum):
    """Calling the standing bid: ``dudo`` (it is false) or ``calza`` (it is exact)."""

    DUDO = "dudo"
    CALZA = "calza"

    def __repr__(self) -> str:
        return self.name


DUDO: Final = Call.DUDO
CALZA: Final = Call.CALZA

AnyBid = Bid | Hand
"""A bid of either kind: a quantity and a face, or a poker hand (``bids: poker``)."""

Action = Bid | Hand | Call
"""What a seat can do: a bid (a :class:`Bid`, or a :class:`~dudo.hands.Hand` with poker
bids), or a call."""


class Phase(Enum):
    """Where a game stands: waiting for the dice, bidding, or finished."""

    ROLL = "roll"
    BIDDING = "bidding"
    OVER = "over"


REASONS: Final[dict[str, str]] = {
    "player_out": "that player has no dice left",
    "no_bid": "there is no bid to call yet",
    "bidder_cannot_call": "nobody may call their own bid",
    "calza_not_allowed": "calza is not allowed now",
    "not_your_turn": "it is not your turn",
    "bad_bid": "that is not a bid these rules know (a quantity of at least 1 and a face "
    "1..6, or with poker bids one of the hands)",
    "ones_not_allowed": "ones may not be bid now",
    "face_locked": "in a palifico round the face stays the same",
    "not_a_raise": "that does not raise the standing bid",
    "over_cap": "that names more dice than the rules allow",
    "round_over": "the round is over: the next one has not been rolled yet",
    "game_over": "the game is over",
}
"""Reason codes for refused actions, in the order they are checked, with their words.

The first ten are RULES.md's; ``round_over`` and ``game_over`` are for actions sent between
rounds or after the end, which a scenario file cannot contain.
"""


class IllegalAction(ValueError):
    """An action the game refused; ``reason`` is a code of :data:`REASONS`."""

    def __init__(self, seat: int, action: Action, reason: str) -> None:
        self.seat = seat
        self.action = action
        self.reason = reason
        super().__init__(f"seat {seat} cannot {describe(action)}: {REASONS[reason]} ({reason})")


def describe(action: Action) -> str:
    """An action in words: ``bid four 5s``, ``call dudo``."""
    if isinstance(action, (Bid, Hand)):
        return f"bid {action.words()}"
    if isinstance(action, Call):
        return f"call {action.value}"
    # A program's slip (a string, a tuple): refused like any bad bid, and said in words.
    return f"play {action!r}, which is not an action (a Bid, a Hand, DUDO or CALZA)"


def bid_to_json(bid: AnyBid) -> list[int] | dict[str, Any]:
    """A bid in the scenario form: ``[4, 5]``, or ``{"hand": ..., "faces": [...]}``."""
    if isinstance(bid, Hand):
        return bid.to_json()
    return [bid.quantity, bid.face]


def bid_from_json(data: object) -> AnyBid:
    """The inverse of :func:`bid_to_json` for well-formed data (``ValueError`` otherwise)."""
    if isinstance(data, dict):
        return Hand.from_json(data)
    if (
        isinstance(data, list | tuple)
        and len(data) == 2
        and all(type(number) is int for number in data)
    ):
        return Bid(data[0], data[1])
    raise ValueError(f"not a bid: {_shown(data)}")


# -- events ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round is set up: who opens, whether it is palifico, and the dice each seat holds."""

    number: int
    opener: int
    palifico: bool
    wild: bool
    dice_counts: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "round",
            "number": self.number,
            "opener": self.opener,
            "palifico": self.palifico,
            "wild": self.wild,
            "dice_counts": list(self.dice_counts),
        }


@dataclass(frozen=True, slots=True)
class BidPlaced:
    """A bid was accepted and is now the standing bid."""

    seat: int
    bid: AnyBid

    def to_json(self) -> dict[str, Any]:
        bid = self.bid
        if isinstance(bid, Hand):
            return {"event": "bid", "seat": self.seat, **bid.to_json()}
        return {"event": "bid", "seat": self.seat, "quantity": bid.quantity, "face": bid.face}


@dataclass(frozen=True, slots=True)
class Revealed:
    """The cups are lifted after a call; ``cups`` holds every seat's dice of the round.

    With poker bids ``bid`` is a :class:`~dudo.hands.Hand` and ``count`` is ``None``: a
    hand is held or not, there is nothing to count.
    """

    call: Call
    caller: int
    bidder: int
    bid: AnyBid
    count: int | None
    outcome: str
    dice_counts: tuple[int, ...]
    points: tuple[int, ...] | None
    cups: Cups
    wild: bool
    loser: int | None
    change: int
    bids: tuple[tuple[int, AnyBid], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The scenario form (without the cups and bids, which the scenario already lists)."""
        bid = self.bid
        data: dict[str, Any]
        if isinstance(bid, Hand):
            data = {
                "event": "reveal",
                "call": self.call.value,
                "caller": self.caller,
                "bidder": self.bidder,
                "bid": bid.to_json(),
                "outcome": self.outcome,
                "dice_counts": list(self.dice_counts),
            }
        else:
            data = {
                "event": "reveal",
                "call": self.call.value,
                "caller": self.caller,
                "bidder": self.bidder,
                "bid": [bid.quantity, bid.face],
                "count": self.count,
                "outcome": self.outcome,
                "dice_counts": list(self.dice_counts),
            }
        if self.points is not None:
            data["points"] = list(self.points)
        return data

    def record_json(self) -> dict[str, Any]:
        """The reveal as a game's record states it (``Game.reveals``): the scenario form
        without ``event``, then the loser (``None``: nobody lost, an exact calza) and the
        change (the dice the loser lost or the caller won back; points in a points race)."""
        data = self.to_json()
        del data["event"]
        data.update(loser=self.loser, change=self.change)
        return data

    def table_json(self, *, as_event: bool) -> dict[str, Any]:
        """The reveal as clients see it, with every cup: public once they are lifted.

        ``as_event``: as an event of a state message (the scenario form, then the cups,
        the loser, the change and whether ones were wild); otherwise as a game view's
        ``last_reveal`` (without ``event``, and with the round's bids). The one encoder
        of a reveal for the table: the key orders are the protocol's, kept as they were.
        """
        data = self.to_json()
        cups = [list(cup) for cup in self.cups]
        if as_event:
            data.update(cups=cups, loser=self.loser, change=self.change, wild=self.wild)
        else:
            del data["event"]
            data.update(
                loser=self.loser,
                change=self.change,
                wild=self.wild,
                cups=cups,
                bids=[[seat, bid_to_json(bid)] for seat, bid in self.bids],
            )
        return data

    def counts(self, die: int) -> bool:
        """Whether a die showing ``die`` counted toward the called bid (with poker bids:
        shows a face the hand names)."""
        bid = self.bid
        if isinstance(bid, Hand):
            return bid.uses(die)
        return die == bid.face or (self.wild and die == 1 and bid.face != 1)


@dataclass(frozen=True, slots=True)
class PlayerOut:
    """A player lost the last die."""

    seat: int

    def to_json(self) -> dict[str, Any]:
        return {"event": "out", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended; several winners only in a tied points race."""

    winners: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"event": "game_over", "winners": list(self.winners)}


Event = RoundStarted | BidPlaced | Revealed | PlayerOut | GameOver

_E = TypeVar("_E")


def _maker(cls: type[_E]) -> Callable[..., _E]:
    """A constructor of the frozen event class ``cls`` taking every field, in order.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (its
    own ``__setattr__`` refuses), which makes a reveal of thirteen fields cost about twice
    what setting its slots directly does, and a reveal and a round header are made every
    round. This writes that function (as ``dataclasses`` writes ``__init__``) with each
    slot's setter; what it makes equals ``cls(*fields)`` (the tests check).
    """
    names = [field.name for field in fields(cls)]  # type: ignore[arg-type]
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls}
    scope.update({f"set_{name}": getattr(cls, name).__set__ for name in names})
    body = "".join(f"    set_{name}(made, {name})\n" for name in names)
    exec(f"def make({', '.join(names)}):\n    made = new(cls)\n{body}    return made\n", scope)
    made: Callable[..., _E] = scope["make"]
    return made


_new_reveal: Final = _maker(Revealed)
_new_round: Final = _maker(RoundStarted)


# -- legal actions ----------------------------------------------------------------------


class LegalActions(tuple[Action, ...]):
    """The actions one seat may take now: bids (a range over a ladder), then the calls.

    A tuple of those actions, so that ``len``, indexing and iteration run at the speed of
    a tuple: ``random.choice(game.legal_actions(seat))`` picks uniformly with no Python
    code in between, which random play, simulations and search do for every action. The
    engine makes each one once and shares it (see :class:`_Bidding`), so the tuple costs
    nothing per call. With poker bids the ladder is one of hands (``hands=True``): the
    legal bids are then in :attr:`hands` and :attr:`bids` is empty; iterating, indexing
    and ``in`` cover both. ``in`` looks a bid up on the ladder, whatever its length.
    """

    _bid_count: int
    _calls: tuple[Call, ...]
    _hands: bool
    _ladder: Sequence[Bid] | Sequence[Hand] | None
    _range: range

    def __new__(
        cls,
        bid_ladder: Sequence[Bid] | Sequence[Hand] | None,
        positions: range,
        calls: tuple[Call, ...],
        *,
        hands: bool = False,
    ) -> LegalActions:
        bids: tuple[AnyBid, ...] = ()
        if bid_ladder is not None:
            if positions.step == 1:  # always, for legal raises: one slice of the ladder
                bids = tuple(bid_ladder[positions.start : positions.stop])
            else:
                bids = tuple(bid_ladder[position] for position in positions)
        actions = super().__new__(cls, bids + calls)
        actions._ladder = bid_ladder
        actions._range = positions
        actions._calls = calls
        actions._hands = hands
        actions._bid_count = len(bids)
        return actions

    def __reduce__(self) -> tuple[Any, ...]:
        return (_legal_actions, (self._ladder, self._range, self._calls, self._hands))

    @property
    def bids(self) -> Sequence[Bid]:
        """The legal quantity bids, lowest first (none with poker bids: see :attr:`hands`)."""
        if self._ladder is None or self._hands:
            return ()
        return _LadderSlice(self._ladder, self._range)  # type: ignore[arg-type]

    @property
    def hands(self) -> Sequence[Hand]:
        """The legal poker hands, lowest first (none in a quantity game)."""
        if self._ladder is None or not self._hands:
            return ()
        return _LadderSlice(self._ladder, self._range)  # type: ignore[arg-type]

    @property
    def any_bids(self) -> Sequence[AnyBid]:
        """The legal bids of whichever kind the rules use, lowest first."""
        if self._ladder is None:
            return ()
        return _LadderSlice[AnyBid](self._ladder, self._range)

    @property
    def calls(self) -> tuple[Call, ...]:
        """The legal calls (``DUDO`` first)."""
        return self._calls

    @property
    def can_dudo(self) -> bool:
        return DUDO in self._calls

    @property
    def can_calza(self) -> bool:
        return CALZA in self._calls

    def __contains__(self, action: object) -> bool:
        if isinstance(action, Call):
            return action in self._calls
        if self._ladder is None:
            return False
        if self._hands:
            if not is_hand(action):
                return False
        elif (
            not isinstance(action, Bid)
            or type(action.quantity) is not int
            or type(action.face) is not int
        ):
            return False  # Bid(True, 5) or Bid(2.0, 5) would equal Bid(1, 5) or Bid(2, 5)
        if action not in self._ladder:
            return False
        return self._ladder.index(action) in self._range

    def __repr__(self) -> str:
        bids = self.any_bids
        if len(bids) > 4:
            shown = f"{bids[0]}..{bids[-1]} ({len(bids)} bids)"
        else:
            shown = ", ".join(str(bid) for bid in bids)
        calls = ", ".join(call.value for call in self._calls)
        return f"<LegalActions {shown}{'; ' if shown and calls else ''}{calls}>"


def _legal_actions(
    bid_ladder: Sequence[Bid] | Sequence[Hand] | None,
    positions: range,
    calls: tuple[Call, ...],
    hands: bool,
) -> LegalActions:
    """Rebuilds a pickled :class:`LegalActions`."""
    return LegalActions(bid_ladder, positions, calls, hands=hands)


_B = TypeVar("_B")


class _LadderSlice(Sequence[_B], Generic[_B]):
    __slots__ = ("_ladder", "_range")

    def __init__(self, bid_ladder: Sequence[_B], positions: range) -> None:
        self._ladder = bid_ladder
        self._range = positions

    def __len__(self) -> int:
        return len(self._range)

    @overload
    def __getitem__(self, index: int) -> _B: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[_B]: ...
    def __getitem__(self, index: int | slice) -> _B | Sequence[_B]:
        if isinstance(index, slice):
            return _LadderSlice(self._ladder, self._range[index])
        return self._ladder[self._range[index]]

    def __iter__(self) -> Iterator[_B]:
        positions = self._range
        if positions.step == 1:  # always, for legal raises: one slice of the shared tuple
            return iter(self._ladder[positions.start : positions.stop])
        bids = self._ladder
        return (bids[position] for position in positions)


NO_ACTIONS: Final = LegalActions(None, range(0), ())
_DUDO_ONLY: Final = (DUDO,)
_DUDO_CALZA: Final = (DUDO, CALZA)
_CALZA_ONLY: Final = LegalActions(None, range(0), (CALZA,))
_NO_IDS: Final[dict[int, int]] = {}


class _Bidding:
    """One kind of round's bidding, worked out once per rules and shared by every round of
    that kind: the ladders and limits, and (as they are first needed) the legal actions
    after each standing bid and each seat's :class:`BidPlaced` event for each bid.

    A round's kind is its dice in play, whether it is palifico and whether calza is
    allowed; nothing else about the table changes which bids are legal, except the seat in
    a palifico round (``locked``), whose raises :meth:`Game._legal_for` works out each
    time. Random play, simulations and look-ahead search spend most of their time between
    bids, and with this table a bid costs a few lookups instead of building a range, a
    :class:`LegalActions` and an event. Everything in it is immutable and shared (by games
    in other threads too): a missing entry is filled with the same value by whoever
    needs it first.

    ``ladder`` is the ladder raises climb (of hands with poker bids) and ``opening`` the
    one the first bid comes from. ``ids`` maps the identity of each of ``ladder``'s bids
    to its position, ``opening_ids`` each of ``opening``'s to the position of the equal
    bid on ``ladder``: :meth:`Game.apply` recognises the very objects
    :meth:`Game.legal_actions` handed out without checking any rule again.
    """

    __slots__ = (
        "after",
        "bids",
        "calls",
        "calza_allowed",
        "face_ids",
        "face_limit",
        "ids",
        "in_play",
        "ladder",
        "locked",
        "ones_limit",
        "opening",
        "opening_ids",
        "opening_legal",
        "poker",
        "wild",
    )

    def __init__(self, rules: Rules, in_play: int, palifico: bool, calza_allowed: bool) -> None:
        capped = rules.cap_at_dice_in_play
        self.in_play = in_play
        self.face_limit, self.ones_limit = quantity_limits(in_play, capped)
        self.calza_allowed = calza_allowed
        self.wild = rules.wild_ones and not palifico
        self.poker = rules.bids == "poker"
        self.locked = palifico and not self.poker
        raises: Ladder | HandLadder
        opening: Ladder | HandLadder
        self.calls: tuple[Call, ...]
        if self.poker:
            raises = opening = hand_ladder(in_play if capped else None)
            self.calls = _DUDO_ONLY
        else:
            never = rules.ones_bids == "never"  # wins over the palifico options (RULES.md)
            if palifico:
                raise_order = Order.NO_ONES if never else Order.PLAIN
                open_on_ones = rules.palifico_open_on_ones and not never
                opening_order = Order.PLAIN if open_on_ones else Order.NO_ONES
            else:
                raise_order = {"never": Order.NO_ONES, "halve": Order.HALVE}.get(
                    rules.ones_bids, Order.PLAIN
                )
                opening_order = (
                    Order.NO_ONES if rules.ones_bids in ("never", "halve") else Order.PLAIN
                )
            raises = ladder(raise_order, self.face_limit, self.ones_limit)
            opening = ladder(opening_order, self.face_limit, self.ones_limit)
            self.calls = _DUDO_CALZA if calza_allowed else _DUDO_ONLY
        self.ladder = raises
        self.opening = opening
        self.bids: tuple[AnyBid, ...] = tuple(raises)
        self.ids = {id(bid): position for position, bid in enumerate(self.bids)}
        positions: dict[Any, int] = raises.positions
        self.opening_ids = {id(bid): positions[bid] for bid in opening}
        self.opening_legal = LegalActions(opening, range(len(opening)), (), hands=self.poker)
        self.face_ids: dict[int, dict[int, int]] = {}
        self.after: list[_After | None] = [None] * len(self.bids)

    def work_out(self, position: int) -> _After:
        """What follows the bid at ``position``: the next seat's legal actions, and the
        bid's event for each seat."""
        bid = self.bids[position]
        legal = LegalActions(
            self.ladder, range(position + 1, len(self.bids)), self.calls, hands=self.poker
        )
        locked = legal
        face_ids = self.ids
        if self.locked:
            # the standing face, a higher quantity: column[i] is i + 1 of the face, so the
            # raises start at the standing quantity as an index
            assert isinstance(bid, Bid) and isinstance(self.ladder, Ladder)
            column = self.ladder.column(bid.face)
            locked = LegalActions(column, range(bid.quantity, len(column)), self.calls)
            face_ids = self.face_ids.get(bid.face, {})
            if not face_ids:
                positions = self.ladder.positions
                face_ids = self.face_ids[bid.face] = {
                    id(same_face): positions[same_face] for same_face in column
                }
        after = _After(
            legal, locked, face_ids, tuple(BidPlaced(seat, bid) for seat in range(MAX_PLAYERS))
        )
        if len(self.bids) <= _KEPT_LADDER:
            self.after[position] = after
        return after


class _After:
    """What follows one standing bid in one kind of round (see :class:`_Bidding`).

    ``legal`` are the next seat's legal actions; in a palifico round ``locked`` are those
    of a seat that must keep the face, with ``face_ids`` (the positions of that face's bids
    by identity) to recognise them. ``placed`` is the bid's :class:`BidPlaced` event by
    each seat.
    """

    __slots__ = ("face_ids", "legal", "locked", "placed")

    def __init__(
        self,
        legal: LegalActions,
        locked: LegalActions,
        face_ids: dict[int, int],
        placed: tuple[BidPlaced, ...],
    ) -> None:
        self.legal = legal
        self.locked = locked
        self.face_ids = face_ids
        self.placed = placed


_KEPT_LADDER: Final = 256
"""The longest ladder whose legal actions :class:`_Bidding` keeps: the legal actions after
every bid of a ladder of ``n`` take about ``n * n / 2`` references, a few megabytes for all
the kinds of round of a game of 40 dice. A longer ladder (a big table without the cap) has
them made again each time."""


@lru_cache(maxsize=32)
def _round_kinds(rules: Rules) -> dict[int, _Bidding]:
    """The kinds of round met so far under ``rules`` (see :class:`_Bidding`), by
    ``in_play * 4 + palifico * 2 + calza_allowed``. Kept for the last few rules, as a
    server meets many rule sets; each holds at most four kinds per number of dice in
    play."""
    return {}


# -- the game ---------------------------------------------------------------------------


class Game:
    """One game of Liar's Dice under one set of rules.

    ``dice_counts``, ``opener``, ``points`` and ``palifico_used`` set up a game that starts
    mid-way (scenario files do this); by default everyone has ``rules.starting_dice`` and the
    opener follows ``rules.first_opener`` (``previous_first_opener`` is the previous game's
    at this table, for ``rotate``).

    With ``first_opener: rolloff`` and no ``opener``, ``rolloff`` is the finished
    :class:`~dudo.rolloff.RollOff` that decided the opener (a server rolls its dice from its
    committed scheme); without it the game rolls one off from the dice source (every
    attempt ``n`` as a roll of round ``1 - n``, two dice for each seat rolling). Either way
    it is kept in :attr:`rolloff` and in the record's ``start.rolloff``. A rematch is a new
    ``Game``, so it rolls off again.

    The first round is set up but not rolled: call :meth:`roll` to start each round. That
    pause is where a server shows the reveal and collects the seats' seeds.

    Long on purpose: it is the engine's one state machine. Every method reads or keeps the
    same invariants (whose turn, the standing bid, palifico, the dice counts), and each
    rule's checks sit beside the state they guard; the parts that need no state (bids,
    hands, the roll-off, counting) are already modules of their own.
    """

    def __init__(
        self,
        rules: Rules,
        players: int,
        *,
        dice: DiceSource | None = None,
        dice_counts: Sequence[int] | None = None,
        opener: int | None = None,
        points: Sequence[int] | None = None,
        palifico_used: Sequence[int] = (),
        previous_first_opener: int | None = None,
        rolloff: RollOff | None = None,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(
                "rules must be a Rules (Rules(), Rules.preset('perudo') or "
                f"Rules.from_json({{...}})), not {type(rules).__name__} {rules!r}"
            )
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players!r}")
        self.rules: Final = rules
        self.players: Final = players
        self.source: DiceSource = dice if dice is not None else SystemDice()
        # Our own random sources roll what they are asked for: the game takes their row of
        # dice and cuts it itself; another source's cups are checked (a round's roll is on
        # the hot path of every simulation).
        self._random_dice = random_rows(self.source)
        counts = [rules.starting_dice] * players if dice_counts is None else list(dice_counts)
        if dice_counts is not None or opener is not None or points is not None or palifico_used:
            # (a game from the start, with nothing given, is a valid one: nothing to check)
            _check_start(rules, players, counts, opener, points, palifico_used)
        self.dice_counts: list[int] = counts
        self.points: list[int] = [0] * players if points is None else list(points)
        self.palifico_used: set[int] = set(palifico_used)
        self.round_number = 1
        self.phase = Phase.ROLL
        self.poker: Final = rules.bids == "poker"
        self.rolloff: RollOff | None = None
        if rolloff is not None:
            if rules.first_opener != "rolloff":
                raise ValueError(
                    "a roll-off decides the opener only with first_opener "
                    f"'rolloff', not {rules.first_opener!r}"
                )
            if opener is not None:
                raise ValueError("give the opener or the roll-off that decides it, not both")
            self.rolloff = _check_rolloff(rolloff, self.alive)
            opener = rolloff.opener
        elif opener is None and rules.first_opener == "rolloff":
            self.rolloff = self._roll_off()
            opener = self.rolloff.opener
        if opener is None:
            opener = self._first_opener(previous_first_opener)
        self.first_opener: Final = opener
        self.opener = opener
        self.palifico = False
        self.winners: tuple[int, ...] = ()
        self.last_reveal: Revealed | None = None
        self.cups: Cups = ()
        self.bids: list[tuple[int, AnyBid]] = []
        self.turn = opener
        self.standing: AnyBid | None = None
        self.bidder = -1
        self.wild = rules.wild_ones
        self._start: dict[str, Any] = {
            "dice_counts": list(counts),
            "opener": opener,
            "points": list(self.points),
            "palifico_used": sorted(self.palifico_used),
        }
        if self.rolloff is not None:  # a replay rolls off again to the same opener
            del self._start["opener"]
            self._start["rolloff"] = self.rolloff.to_json()
        self._record: list[dict[str, Any]] = []
        self._actions: list[tuple[int, Action]] = []
        self._reveals: list[Revealed] = []  # every call's outcome, round by round
        self._kinds = _round_kinds(rules)
        # calza needs this many players left (more than a table holds: never)
        self._calza_players = rules.calza_min_players if rules.calza != "off" else MAX_PLAYERS + 1
        self._ones_lock = rules.ones_bids == "lock"
        self._points_race = rules.format == "points"
        # The seat to act while bidding (-1 between rounds and after the end), its legal
        # actions, and what apply needs to recognise a bid among them (see _Bidding): the
        # positions of those bids on the ladder by identity, counting from one past
        # ``_position`` (the standing bid's, -1 before the first bid).
        self._acting = -1
        self._legal = NO_ACTIONS
        self._fast_ids = _NO_IDS
        self._set_up_round()

    # -- reading the state ----------------------------------------------------------

    @property
    def alive(self) -> list[int]:
        """Seats that still have dice, in seat order."""
        return [seat for seat, count in enumerate(self.dice_counts) if count]

    @property
    def dice_in_play(self) -> int:
        return sum(self.dice_counts)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def round_header(self) -> RoundStarted:
        """The current (or next, while waiting for the roll) round's set-up as an event."""
        return _new_round(
            self.round_number,
            self.opener,
            self.palifico,
            self.rules.wild_ones and not self.palifico,
            tuple(self.dice_counts),
        )

    def calza_allowed(self) -> bool:
        """Whether calza is possible this round at all (rules, palifico, players alive)."""
        return self._calza_allowed

    def may_change_face(self, seat: int) -> bool:
        """In palifico, whether ``seat`` may leave the locked face (one die and the option)."""
        return self.rules.palifico_one_die_may_change_face and self.dice_counts[seat] == 1

    def count(self, face: int) -> int:
        """How many dice of the current round count for ``face`` (wild ones included)."""
        row = self._row  # every cup's dice in one tuple: two counts in C, not two a cup
        if self.wild and face != 1:
            return row.count(face) + row.count(1)
        return row.count(face)

    # -- legality -------------------------------------------------------------------

    def reason(self, seat: int, action: Action) -> str | None:
        """Why ``seat`` may not take ``action`` now, as a reason code; ``None`` if it may."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat!r} at a table of {self.players}")
        if self.phase is not Phase.BIDDING:
            return "game_over" if self.phase is Phase.OVER else "round_over"
        if not self.dice_counts[seat]:
            return "player_out"
        if isinstance(action, Call):
            return self._call_reason(seat, action)
        if seat != self.turn:
            return "not_your_turn"
        if self.poker:
            return self._hand_reason(action)
        if action.__class__ is not Bid:
            return "bad_bid"  # a hand in a quantity game
        return self._bid_reason(seat, action)

    def _hand_reason(self, hand: Bid | Hand) -> str | None:
        if not is_hand(hand):
            return "bad_bid"  # a [quantity, face] bid in a poker game, or no valid hand
        assert isinstance(hand, Hand)
        standing = self.standing
        if standing is not None and HandLadder.rank(hand) <= HandLadder.rank(standing):  # type: ignore[arg-type]
            return "not_a_raise"
        if self.rules.cap_at_dice_in_play and hand.dice_needed > self._shape.in_play:
            return "over_cap"
        return None

    def _call_reason(self, seat: int, call: Call) -> str | None:
        if self.standing is None:
            return "no_bid"
        if seat == self.bidder:
            return "bidder_cannot_call"
        if call is CALZA:
            if not self._calza_allowed:
                return "calza_not_allowed"
            if self.rules.calza == "any_time":
                return None
        if seat != self.turn:
            return "not_your_turn"
        return None

    def _bid_reason(self, seat: int, bid: Bid) -> str | None:
        quantity, face = bid.quantity, bid.face
        if type(quantity) is not int or type(face) is not int or quantity < 1 or not 1 <= face <= 6:
            return "bad_bid"
        standing = self.standing
        if face == 1 and not self._ones_allowed(standing is None):
            return "ones_not_allowed"
        if standing is not None:
            # (a quantity game's standing bid is a Bid: no isinstance on the hot path)
            if (
                self.palifico
                and face != standing.face  # type: ignore[union-attr]
                and not self.may_change_face(seat)
            ):
                return "face_locked"
            rank = self._shape.ladder.rank
            if rank(bid) <= rank(standing):  # type: ignore[arg-type]
                return "not_a_raise"
        shape = self._shape
        if quantity > (shape.ones_limit if face == 1 else shape.face_limit):
            return "over_cap"
        return None

    def _ones_allowed(self, opening: bool) -> bool:
        """Whether ones may be bid now. ``never`` is checked first because RULES.md lets it
        win over both palifico options: nobody bids ones, a palifico opener included."""
        ones_bids = self.rules.ones_bids
        if ones_bids == "never":
            return False
        if not opening:
            return True
        if self.palifico:
            return self.rules.palifico_open_on_ones
        return ones_bids != "halve"

    def legal_actions(self, seat: int) -> LegalActions:
        """Every action ``seat`` may take now (calza out of turn included)."""
        if seat == self._acting:  # the seat to act: worked out when its turn came
            return self._legal
        return self._legal_for(seat)

    def _legal_for(self, seat: int) -> LegalActions:
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat!r} at a table of {self.players}")
        if self.phase is not Phase.BIDDING or not self.dice_counts[seat]:
            return NO_ACTIONS
        standing = self.standing
        shape = self._shape
        if seat != self.turn:
            if (
                standing is not None
                and seat != self.bidder
                and self.rules.calza == "any_time"
                and self._calza_allowed
            ):
                return _CALZA_ONLY
            return NO_ACTIONS
        if standing is None:
            return shape.opening_legal
        after = shape.after[self._position]
        if after is None:
            after = shape.work_out(self._position)
        if shape.locked and not self.may_change_face(seat):
            return after.locked
        return after.legal

    # -- driving the game -----------------------------------------------------------

    def roll(self, cups: Sequence[Sequence[int]] | None = None) -> Cups:
        """Roll the dice of the set-up round (from the dice source, or the ``cups`` given)
        and open the bidding. Returns every seat's dice: keep them from the players."""
        if self.phase is not Phase.ROLL:
            raise RuntimeError(f"cannot roll now: the game is in phase {self.phase.value!r}")
        counts = self.dice_counts
        if cups is not None:
            rolled = tuple(tuple(cup) for cup in cups)
            check_cups(rolled, counts)
            row = tuple(chain.from_iterable(rolled))
        elif self._random_dice is not None:
            row = self._random_dice.row(self._shape.in_play)
            rolled = deal(row, counts)
        else:
            rolled = self.source.roll(counts, self.round_number)
            if list(map(len, rolled)) != counts:
                raise ValueError(f"the dice source rolled {rolled} for {counts}")
            row = tuple(chain.from_iterable(rolled))
        self.cups = rolled
        self._row = row
        self.phase = Phase.BIDDING
        self._actions = []
        self._record.append({"dice": rolled, "actions": self._actions})
        shape = self._shape
        self._acting = self.turn
        self._legal = shape.opening_legal
        self._fast_ids = shape.opening_ids
        return rolled

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Take ``action`` for ``seat``; the events say what happened.

        Raises :class:`IllegalAction` (and changes nothing) if the action is refused.
        """
        if seat == self._acting:
            # The seat to act, with a bid its legal actions hold (the very object they
            # handed out), or a call it may make: no rule needs checking again.
            position = self._fast_ids.get(id(action), -1)
            if position > self._position:
                return [self._place_bid(seat, position)]
            if self.standing is not None and (
                action is DUDO or (action is CALZA and self._calza_allowed)
            ):
                self._actions.append((seat, action))
                return self._call(seat, action)
        reason = self.reason(seat, action)
        if reason is not None:
            raise IllegalAction(seat, action, reason)
        if isinstance(action, Call):
            self._actions.append((seat, action))
            return self._call(seat, action)
        return [self._place_bid(seat, self._shape.ladder.positions[action])]  # type: ignore[index]

    def _place_bid(self, seat: int, position: int) -> BidPlaced:
        # The ladder's own bid object (a Bid, or a Hand with poker bids) becomes the
        # standing bid, and the event is the shared one: a long-running server then holds
        # no new objects per bid for the garbage collector to scan.
        shape = self._shape
        bid = shape.bids[position]
        self.standing = bid
        self.bidder = seat
        self._position = position
        if self._ones_lock and bid.face == 1:  # type: ignore[union-attr]  # (no lock with hands)
            # From the first bid on ones until the round ends, ones count only as ones.
            self.wild = False
        placed = (seat, bid)
        self.bids.append(placed)
        self._actions.append(placed)
        turn = self._next_seat[seat]
        self.turn = turn
        self._acting = turn
        after = shape.after[position]
        if after is None:
            after = shape.work_out(position)
        if shape.locked and not self.may_change_face(turn):
            self._legal = after.locked  # palifico: the standing face, a higher quantity
            self._fast_ids = after.face_ids
        else:
            self._legal = after.legal
            self._fast_ids = shape.ids
        return after.placed[seat]

    def _call(self, caller: int, call: Call) -> list[Event]:
        bid = self.standing
        assert bid is not None
        rules = self.rules
        count: int | None
        loser: int | None
        loss = 1
        if isinstance(bid, Hand):  # poker: dudo only, the hand is held or not
            count = None
            holds = bid.held_by(die for cup in self.cups for die in cup)
            outcome = "holds" if holds else "fails"
            loser = caller if holds else self.bidder
            next_opener = loser
        elif call is DUDO:
            count = self.count(bid.face)
            holds = count >= bid.quantity
            outcome = "holds" if holds else "fails"
            loser = caller if holds else self.bidder
            if rules.loss_by_difference:
                loss = max(1, abs(count - bid.quantity))
            next_opener = loser
        else:
            count = self.count(bid.face)
            exact = count == bid.quantity
            outcome = "exact" if exact else "not_exact"
            loser = None if exact else caller
            next_opener = caller
        counts = self.dice_counts
        change = 0
        dropped_to_one = False
        if self._points_race:
            if loser is not None:
                self.points[loser] += loss
                change = loss
        elif loser is None:
            if counts[caller] < rules.starting_dice:
                counts[caller] += 1
                change = 1
        else:
            before = counts[loser]
            counts[loser] = max(0, before - loss)
            change = before - counts[loser]
            dropped_to_one = before > 1 and counts[loser] == 1
        counts_after = tuple(counts)
        reveal = _new_reveal(
            call,
            caller,
            self.bidder,
            bid,
            count,
            outcome,
            counts_after,
            tuple(self.points) if self._points_race else None,
            self.cups,
            self.wild,
            loser,
            change,
            tuple(self.bids),
        )
        self.last_reveal = reveal
        self._reveals.append(reveal)
        events: list[Event] = [reveal]
        if loser is not None and counts[loser] == 0:
            events.append(PlayerOut(loser))
        self._acting = -1  # the round is over
        self._alive_count = self.players - counts.count(0)
        if self._points_race:
            if self.round_number >= rules.points_rounds:
                fewest = min(self.points)
                winners = tuple(seat for seat, points in enumerate(self.points) if points == fewest)
                return [*events, self._end(winners)]
        elif self._alive_count == 1:
            return [*events, self._end((counts.index(max(counts)),))]
        if not counts[next_opener]:
            next_opener = self._next_alive(next_opener)
        self.round_number += 1
        self.opener = next_opener
        self.palifico = (
            dropped_to_one
            and rules.palifico
            and not (rules.palifico_once_per_player and loser in self.palifico_used)
            and self._alive_count >= rules.palifico_min_players
        )
        if self.palifico:
            assert loser is not None
            self.palifico_used.add(loser)
        self.phase = Phase.ROLL
        self._set_up_round()
        # (round_header's event, with the counts' tuple the reveal already made)
        events.append(
            _new_round(
                self.round_number,
                next_opener,
                self.palifico,
                self.rules.wild_ones and not self.palifico,
                counts_after,
            )
        )
        return events

    def _end(self, winners: tuple[int, ...]) -> GameOver:
        self.phase = Phase.OVER
        self.winners = winners
        return GameOver(winners)

    def _set_up_round(self) -> None:
        """Prepare the round's bidding: its kind (ladders, caps, calza), turn, wildness."""
        counts = self.dice_counts
        in_play = sum(counts)
        alive_count = self.players - counts.count(0)
        self._alive_count = alive_count
        palifico = self.palifico
        calza_allowed = not palifico and alive_count >= self._calza_players
        key = in_play * 4 + palifico * 2 + calza_allowed
        shape = self._kinds.get(key)
        if shape is None:
            shape = self._kinds[key] = _Bidding(self.rules, in_play, palifico, calza_allowed)
        self._shape = shape
        self._calza_allowed = calza_allowed
        self._position = -1
        if alive_count != self._next_seat_alive:
            # who sits next changes only when someone goes out (nobody comes back)
            self._next_seat_alive = alive_count
            self._next_seat = [self._next_alive(seat) for seat in range(self.players)]
        self.wild = shape.wild
        self.turn = self.opener
        self.standing = None
        self.bidder = -1
        self.bids = []
        self.cups = ()
        self._row = ()

    def _next_alive(self, seat: int) -> int:
        counts = self.dice_counts
        players = self.players
        nxt = (seat + 1) % players
        while not counts[nxt]:
            nxt = (nxt + 1) % players
        return nxt

    def _roll_off(self) -> RollOff:
        """Roll off for the first opener on the game's own dice source: attempt ``n`` is
        rolled as round ``1 - n`` (0, -1, -2, ...: rounds before round 1, each its own, so a
        source that derives dice from the round number cannot repeat a tie forever)."""
        roll_off = RollOff(self.alive)
        while roll_off.rolling:
            rolling = roll_off.rolling
            attempt = len(roll_off.attempts) + 1
            if attempt > MAX_ROLLOFF_ATTEMPTS:
                raise RuntimeError(
                    f"the dice source tied {MAX_ROLLOFF_ATTEMPTS} roll-offs "
                    "in a row: it does not look random"
                )
            counts = [2 if seat in rolling else 0 for seat in range(self.players)]
            cups = self.source.roll(counts, 1 - attempt)
            if [len(cup) for cup in cups] != counts:
                raise ValueError(f"the dice source rolled {cups} for the roll-off of {counts}")
            roll_off.roll([cups[seat] for seat in rolling])
        return roll_off

    def _first_opener(self, previous: int | None) -> int:
        alive = self.alive
        how = self.rules.first_opener
        if how == "host":
            seat = 0
        elif how == "rotate":
            seat = 0 if previous is None else (previous + 1) % self.players
        else:
            return self.source.draw(alive)
        return seat if self.dice_counts[seat] else self._next_alive(seat)

    # -- records --------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game as a scenario file: rules, start, and every round's dice and accepted
        actions. Replaying it (``dudo.scenario.replay``) rebuilds this exact state."""
        rounds = [
            {
                "dice": [list(cup) for cup in entry["dice"]],
                "actions": [
                    {"seat": seat, **action_to_json(action)} for seat, action in entry["actions"]
                ],
            }
            for entry in self._record
        ]
        start = {key: copy_json(value) for key, value in self._start.items()}
        return {
            "rules": self.rules.to_json(),
            "players": self.players,
            "start": start,
            "rounds": rounds,
        }

    def reveals(self) -> list[dict[str, Any]]:
        """Every call's outcome so far, round by round, as the engine stated it at the
        reveal: a record's ``reveals``. Each is the scenario form of the reveal (who called
        on whose bid, the count, the outcome and every seat's dice after it) with the loser
        and the change, so a reader of the record can follow each seat's dice from round to
        round without the rules (the browser's fair-dice check does)."""
        return [reveal.record_json() for reveal in self._reveals]

    def copy(self) -> Game:
        """An independent copy that shares the (immutable) rules, ladders and dice source."""
        twin = object.__new__(Game)
        twin.__dict__.update(self.__dict__)
        twin.dice_counts = list(self.dice_counts)
        twin.points = list(self.points)
        twin.palifico_used = set(self.palifico_used)
        twin.bids = list(self.bids)
        twin._record = [{"dice": r["dice"], "actions": list(r["actions"])} for r in self._record]
        twin._actions = twin._record[-1]["actions"] if twin._record else []
        twin._reveals = list(self._reveals)
        return twin

    def __repr__(self) -> str:
        return (
            f"<Game round={self.round_number} phase={self.phase.value} "
            f"dice_counts={self.dice_counts} turn={self.turn} standing={self.standing}>"
        )

    # Set by _set_up_round: the round's kind and how many players are left (and how many
    # were when ``_next_seat`` was worked out); ``_position`` is the standing bid's place
    # on the round's ladder.
    _shape: _Bidding
    _alive_count: int
    _position: int
    _calza_allowed: bool
    _next_seat: list[int]
    _next_seat_alive: int = 0
    # Set by roll (emptied by _set_up_round): the cups' dice in one row, for counting.
    _row: tuple[int, ...]


MAX_ROLLOFF_ATTEMPTS: Final = 1000
"""More roll-off attempts than fair dice ever need (ten seats tie all round about one time
in ten; a thousand ties in a row do not happen)."""


def action_to_json(action: Action) -> dict[str, Any]:
    """An action as records, room logs and analyses keep it: ``{"bid": [4, 5]}``,
    ``{"bid": {"hand": "pair", "faces": [3]}}`` or ``{"call": "dudo"}`` (a scenario's
    action is this with its ``"seat"`` first).

    >>> action_from_json(action_to_json(Bid(4, 5)))
    Bid.parse('4x5')
    """
    if isinstance(action, Call):
        return {"call": action.value}
    return {"bid": bid_to_json(action)}


def action_from_json(data: dict[str, Any]) -> Action:
    """The inverse of :func:`action_to_json` for well-formed data (``ValueError``
    otherwise; a scenario file's actions are read with precise errors by
    :func:`dudo.scenario.parse_action`)."""
    if "bid" in data:
        return bid_from_json(data["bid"])
    return Call(data["call"])


def copy_json(value: Any) -> Any:
    """A deep copy of lists in a JSON-like value (records must not share the game's lists)."""
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def _check_rolloff(rolloff: RollOff, alive: list[int]) -> RollOff:
    if rolloff.opener is None:
        raise ValueError(f"the roll-off is not over: seats {list(rolloff.rolling)} are tied")
    if list(rolloff.seats) != alive:
        raise ValueError(
            f"the roll-off was among seats {list(rolloff.seats)}, but the seats "
            f"with dice are {alive}"
        )
    return rolloff


def check_cups(cups: Cups, dice_counts: Sequence[int]) -> None:
    """Raise ``ValueError`` unless ``cups`` fits ``dice_counts`` with faces 1..6."""
    if len(cups) != len(dice_counts):
        seats = _counted(len(cups), "seat", "seats")
        raise ValueError(f"dice for {seats}, but the table has {len(dice_counts)}")
    for seat, (cup, count) in enumerate(zip(cups, dice_counts, strict=True)):
        if len(cup) != count:
            has = _counted(count, "die", "dice")
            given = "1 was given" if len(cup) == 1 else f"{len(cup)} were given"
            raise ValueError(f"seat {seat} has {has}, but {given}: {_shown(list(cup))}")
        for die in cup:
            if type(die) is not int or not 1 <= die <= 6:
                raise ValueError(f"seat {seat}: {_shown(die)} is not a die face 1..6")


def _check_start(
    rules: Rules,
    players: int,
    dice_counts: list[int],
    opener: int | None,
    points: Sequence[int] | None,
    palifico_used: Sequence[int],
) -> None:
    if len(dice_counts) != players:
        entries = _counted(len(dice_counts), "entry", "entries")
        raise ValueError(f"dice_counts has {entries} for {players} players")
    for seat, count in enumerate(dice_counts):
        if type(count) is not int:  # a bool is an int to Python, but not to JSON
            raise ValueError(f"seat {seat}: dice count {_shown(count)} is not a whole number")
        if not 0 <= count <= rules.starting_dice:
            raise ValueError(
                f"seat {seat}: dice count {_shown(count)} is outside 0..{rules.starting_dice}"
            )
    if rules.format == "points" and any(count != rules.starting_dice for count in dice_counts):
        raise ValueError("in a points race every player keeps all their dice")
    if sum(1 for count in dice_counts if count) < 2:
        raise ValueError("at least two players must have dice")
    if opener is not None:
        if type(opener) is not int or not 0 <= opener < players:
            raise ValueError(f"opener {_shown(opener)} is not a seat of this table")
        if not dice_counts[opener]:
            raise ValueError(f"opener {opener} has no dice")
    if points is not None:
        if len(points) != players:
            entries = _counted(len(points), "entry", "entries")
            raise ValueError(f"points has {entries} for {players} players")
        for seat, value in enumerate(points):
            if type(value) is not int or value < 0:
                raise ValueError(f"seat {seat}: points {_shown(value)} must be a whole number >= 0")
    for seat in palifico_used:
        if type(seat) is not int or not 0 <= seat < players:
            raise ValueError(f"palifico_used: {_shown(seat)} is not a seat of this table")


def _counted(count: int, one: str, many: str) -> str:
    """``1 die``, ``2 dice``: a count with its noun, singular for one (printable.counted
    adds an s, and formats a count as a float)."""
    return f"{count} {one if count == 1 else many}"
