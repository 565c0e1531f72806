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
cheaply (a range over a shared ladder of bids); the tests check that the two agree.

With ``bids: poker`` (Common Hand) every bid is a :class:`~dudo.hands.Hand` and the ladder
is one of hands (:class:`~dudo.hands.HandLadder`); a call asks whether all dice together
contain the hand, and the reveal has no count. With ``first_opener: rolloff`` the opener of
round 1 comes from a :class:`~dudo.rolloff.RollOff`, given or rolled on the dice source.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from reprlib import repr as _shown  # a value quoted in an error message, cut short
from typing import Any, Final, Generic, TypeVar, overload

from dudo.bids import Bid, Ladder, Order, ladder, quantity_limits
from dudo.dice import Cups, DiceSource, SystemDice
from dudo.hands import Hand, HandLadder, hand_ladder, is_hand
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
    return f"call {action.value}"


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


# -- legal actions ----------------------------------------------------------------------


class LegalActions(Sequence[Action]):
    """The actions one seat may take now: bids (a range over a ladder), then the calls.

    A lazy sequence: ``len`` and indexing cost the same whatever the number of legal bids,
    so ``random.choice(game.legal_actions(seat))`` picks uniformly without building a list.
    With poker bids the ladder is one of hands (``hands=True``): the legal bids are then in
    :attr:`hands` and :attr:`bids` is empty; iterating, indexing and ``in`` cover both.
    """

    __slots__ = ("_bid_count", "_calls", "_hands", "_ladder", "_range", "_size")

    def __init__(
        self,
        bid_ladder: Sequence[Bid] | Sequence[Hand] | None,
        positions: range,
        calls: tuple[Call, ...],
        *,
        hands: bool = False,
    ):
        self._ladder = bid_ladder
        self._range = positions
        self._calls = calls
        self._hands = hands
        self._bid_count = len(positions) if bid_ladder is not None else 0
        self._size = self._bid_count + len(calls)

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

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...
    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        if index.__class__ is int and 0 <= index < self._bid_count:
            return self._ladder[self._range[index]]  # type: ignore[index]
        if isinstance(index, slice):
            return list(self)[index]
        bids = self._bid_count
        if index < 0:
            index += bids + len(self._calls)
        if 0 <= index < bids:
            assert self._ladder is not None
            return self._ladder[self._range[index]]
        return self._calls[index - bids]

    def __iter__(self) -> Iterator[Action]:
        if self._ladder is not None:
            bids = self._ladder
            for position in self._range:
                yield bids[position]
        yield from self._calls

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

    def __bool__(self) -> bool:
        return len(self) > 0

    def __repr__(self) -> str:
        bids = self.any_bids
        if len(bids) > 4:
            shown = f"{bids[0]}..{bids[-1]} ({len(bids)} bids)"
        else:
            shown = ", ".join(str(bid) for bid in bids)
        calls = ", ".join(call.value for call in self._calls)
        return f"<LegalActions {shown}{'; ' if shown and calls else ''}{calls}>"


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
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {players!r}")
        self.rules: Final = rules
        self.players: Final = players
        self.source: DiceSource = dice if dice is not None else SystemDice()
        counts = [rules.starting_dice] * players if dice_counts is None else list(dice_counts)
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
        return RoundStarted(
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
        total = 0
        wild = self.wild and face != 1
        for cup in self.cups:
            for die in cup:
                if die == face or (wild and die == 1):
                    total += 1
        return total

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
        if self.standing is not None and HandLadder.rank(hand) <= self._standing_rank:
            return "not_a_raise"
        if self.rules.cap_at_dice_in_play and hand.dice_needed > self._in_play:
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
            if self._raises.rank(bid) <= self._standing_rank:
                return "not_a_raise"
        if quantity > (self._ones_limit if face == 1 else self._face_limit):
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
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat!r} at a table of {self.players}")
        if self.phase is not Phase.BIDDING or not self.dice_counts[seat]:
            return NO_ACTIONS
        standing = self.standing
        if seat != self.turn:
            if (
                standing is not None
                and seat != self.bidder
                and self.rules.calza == "any_time"
                and self._calza_allowed
            ):
                return LegalActions(None, range(0), (CALZA,))
            return NO_ACTIONS
        if self.poker:
            hands = self._hands
            return LegalActions(
                hands,
                range(self._position + 1, len(hands)),
                () if standing is None else _DUDO_ONLY,
                hands=True,
            )
        if standing is None:
            opening = self._opening
            return LegalActions(opening, range(len(opening)), ())
        calls = _DUDO_CALZA if self._calza_allowed else _DUDO_ONLY
        raises = self._raises
        if self.palifico and not self.may_change_face(seat):
            # the standing face, a higher quantity: column[i] is i + 1 of the face, so the
            # raises start at the standing quantity as an index
            column = raises.column(standing.face)  # type: ignore[union-attr]
            return LegalActions(
                column,
                range(
                    standing.quantity,  # type: ignore[union-attr]
                    len(column),
                ),
                calls,
            )
        return LegalActions(raises, range(self._position + 1, len(raises)), calls)

    # -- driving the game -----------------------------------------------------------

    def roll(self, cups: Sequence[Sequence[int]] | None = None) -> Cups:
        """Roll the dice of the set-up round (from the dice source, or the ``cups`` given)
        and open the bidding. Returns every seat's dice: keep them from the players."""
        if self.phase is not Phase.ROLL:
            raise RuntimeError(f"cannot roll now: the game is in phase {self.phase.value!r}")
        if cups is None:
            rolled = self.source.roll(self.dice_counts, self.round_number)
            if [len(cup) for cup in rolled] != self.dice_counts:
                raise ValueError(f"the dice source rolled {rolled} for {self.dice_counts}")
        else:
            rolled = tuple(tuple(cup) for cup in cups)
            check_cups(rolled, self.dice_counts)
        self.cups = rolled
        self.phase = Phase.BIDDING
        self._actions = []
        self._record.append({"dice": rolled, "actions": self._actions})
        return rolled

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Take ``action`` for ``seat``; the events say what happened.

        Raises :class:`IllegalAction` (and changes nothing) if the action is refused.
        """
        reason = self.reason(seat, action)
        if reason is not None:
            raise IllegalAction(seat, action, reason)
        if isinstance(action, Bid):
            return [self._place_bid(seat, action)]
        if isinstance(action, Hand):
            return [self._place_hand(seat, action)]
        self._actions.append((seat, action))
        return self._call(seat, action)

    def _place_hand(self, seat: int, hand: Hand) -> BidPlaced:
        position = self._hands.positions[hand]
        hand = self._hands[position]  # the shared object, as for quantity bids
        self.standing = hand
        self.bidder = seat
        self._position = position
        self._standing_rank = HandLadder.rank(hand)
        placed = (seat, hand)
        self.bids.append(placed)
        self._actions.append(placed)
        self.turn = self._next_seat[seat]
        return BidPlaced(seat, hand)

    def _place_bid(self, seat: int, bid: Bid) -> BidPlaced:
        # Keep the ladder's own Bid object, shared by every game: a long-running server
        # then holds no new objects per bid for the garbage collector to scan.
        position = self._raises.positions[bid]
        bid = self._raises[position]
        self.standing = bid
        self.bidder = seat
        self._position = position
        self._standing_rank = self._raises.rank(bid)
        if bid.face == 1 and self._ones_lock:
            # From the first bid on ones until the round ends, ones count only as ones.
            self.wild = False
        placed = (seat, bid)
        self.bids.append(placed)
        self._actions.append(placed)
        self.turn = self._next_seat[seat]
        return BidPlaced(seat, bid)

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
        if rules.format == "points":
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
        reveal = Revealed(
            call,
            caller,
            self.bidder,
            bid,
            count,
            outcome,
            tuple(counts),
            tuple(self.points) if rules.format == "points" else None,
            self.cups,
            self.wild,
            loser,
            change,
            tuple(self.bids),
        )
        self.last_reveal = reveal
        events: list[Event] = [reveal]
        if loser is not None and counts[loser] == 0:
            events.append(PlayerOut(loser))
        self._alive_count = sum(1 for count_ in counts if count_)
        if rules.format == "points":
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
        events.append(self.round_header())
        return events

    def _end(self, winners: tuple[int, ...]) -> GameOver:
        self.phase = Phase.OVER
        self.winners = winners
        return GameOver(winners)

    def _set_up_round(self) -> None:
        """Prepare the round's bidding: ladders, caps, turn, wildness."""
        rules = self.rules
        in_play = sum(self.dice_counts)
        self._alive_count = sum(1 for count in self.dice_counts if count)
        capped = rules.cap_at_dice_in_play
        self._face_limit, self._ones_limit = quantity_limits(in_play, capped)
        never = rules.ones_bids == "never"  # wins over the palifico options (RULES.md)
        if self.palifico:
            raises = Order.NO_ONES if never else Order.PLAIN
            opening = Order.PLAIN if rules.palifico_open_on_ones and not never else Order.NO_ONES
        else:
            raises = {"never": Order.NO_ONES, "halve": Order.HALVE}.get(
                rules.ones_bids, Order.PLAIN
            )
            opening = Order.NO_ONES if rules.ones_bids in ("never", "halve") else Order.PLAIN
        self._raises = ladder(raises, self._face_limit, self._ones_limit)
        self._opening = ladder(opening, self._face_limit, self._ones_limit)
        self._in_play = in_play
        if self.poker:
            self._hands = hand_ladder(in_play if capped else None)
        self._position = -1
        self._calza_allowed = (
            rules.calza != "off"
            and not self.palifico
            and self._alive_count >= rules.calza_min_players
        )
        self._ones_lock = rules.ones_bids == "lock"
        alive = tuple(count > 0 for count in self.dice_counts)
        if alive != self._alive_key:  # who sits next changes only when someone goes out
            self._alive_key = alive
            self._next_seat = [self._next_alive(seat) for seat in range(self.players)]
        self.wild = rules.wild_ones and not self.palifico
        self.turn = self.opener
        self.standing = None
        self.bidder = -1
        self.bids = []
        self.cups = ()

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
        return twin

    def __repr__(self) -> str:
        return (
            f"<Game round={self.round_number} phase={self.phase.value} "
            f"dice_counts={self.dice_counts} turn={self.turn} standing={self.standing}>"
        )

    # ``_alive_count``, the limits, ladders and ``_position`` are set by _set_up_round.
    _alive_count: int
    _face_limit: int
    _ones_limit: int
    _raises: Ladder
    _opening: Ladder
    _hands: HandLadder
    _in_play: int
    _position: int
    _calza_allowed: bool
    _ones_lock: bool
    _next_seat: list[int]
    _alive_key: tuple[bool, ...] = ()
    _standing_rank: int = -1


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
        raise ValueError(f"dice for {len(cups)} seats, but the table has {len(dice_counts)}")
    for seat, (cup, count) in enumerate(zip(cups, dice_counts, strict=True)):
        if len(cup) != count:
            raise ValueError(
                f"seat {seat} has {count} dice, but {len(cup)} were given: {_shown(list(cup))}"
            )
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
        raise ValueError(f"dice_counts has {len(dice_counts)} entries for {players} players")
    for seat, count in enumerate(dice_counts):
        if type(count) is not int or not 0 <= count <= rules.starting_dice:
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
            raise ValueError(f"points has {len(points)} entries for {players} players")
        for seat, value in enumerate(points):
            if type(value) is not int or value < 0:
                raise ValueError(f"seat {seat}: points {_shown(value)} must be a whole number >= 0")
    for seat in palifico_used:
        if type(seat) is not int or not 0 <= seat < players:
            raise ValueError(f"palifico_used: {_shown(seat)} is not a seat of this table")
