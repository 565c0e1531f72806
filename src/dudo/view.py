"""The one door for what a seat may see.

Every message to a player, every observation a bot gets and every frame a spectator sees is
made by :func:`view`. It holds the public state of the game, the seat's own dice and its
legal actions, and other players' dice only through the reveal of a round that has ended.
Testing privacy therefore means testing this function and checking nothing bypasses it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import orjson

from dudo.bids import Bid
from dudo.game import (
    NO_ACTIONS,
    AnyBid,
    Call,
    Game,
    LegalActions,
    Phase,
    Revealed,
    bid_from_json,
    bid_to_json,
)
from dudo.hands import Hand
from dudo.rolloff import RollOffAttempt
from dudo.rules import Rules


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat (or a spectator, ``seat is None``) may know about a game right now.

    With poker bids (``rules.bids == "poker"``) every bid in it is a
    :class:`~dudo.hands.Hand`: ``bids``, ``standing``, the reveal's bid, and the legal bids
    (``legal.hands``; ``legal.any_bids`` gives either kind). In JSON a hand is
    ``{"hand": ..., "faces": [...]}`` where a quantity bid is ``[q, f]``, in the same keys.

    ``rolloff`` holds the attempts of the roll-off that decided round 1's opener (public:
    everyone sees those dice), ``()`` when there was none.
    """

    rules: Rules
    seat: int | None
    players: int
    phase: str
    round_number: int
    opener: int
    palifico: bool
    wild: bool
    dice_counts: tuple[int, ...]
    points: tuple[int, ...]
    dice: tuple[int, ...]
    bids: tuple[tuple[int, AnyBid], ...]
    turn: int | None
    standing: AnyBid | None
    bidder: int | None
    legal: LegalActions
    last_reveal: Revealed | None
    winners: tuple[int, ...]
    rolloff: tuple[RollOffAttempt, ...] = ()

    @property
    def dice_in_play(self) -> int:
        return sum(self.dice_counts)

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.turn == self.seat

    @classmethod
    def from_json(cls, data: dict[str, Any], rules: Rules) -> SeatView:
        """Rebuild a view from :meth:`to_json` (what a remote client receives), so bots run
        unchanged on the far side of the protocol."""
        legal_bids = [bid_from_json(bid) for bid in data["legal"]["bids"]]
        calls = tuple(Call(call) for call in data["legal"]["calls"])
        legal: LegalActions
        if rules.bids == "poker":
            hands = tuple(bid for bid in legal_bids if isinstance(bid, Hand))
            legal = LegalActions(hands, range(len(hands)), calls, hands=True)
        else:
            bids = tuple(bid for bid in legal_bids if isinstance(bid, Bid))
            legal = LegalActions(bids, range(len(bids)), calls)
        reveal = data["last_reveal"]
        revealed = None
        if reveal is not None:
            revealed = Revealed(
                Call(reveal["call"]),
                reveal["caller"],
                reveal["bidder"],
                bid_from_json(reveal["bid"]),
                reveal.get("count"),
                reveal["outcome"],
                tuple(reveal["dice_counts"]),
                tuple(reveal["points"]) if reveal.get("points") is not None else None,
                tuple(tuple(cup) for cup in reveal["cups"]),
                reveal["wild"],
                reveal["loser"],
                reveal["change"],
                tuple((seat, bid_from_json(bid)) for seat, bid in reveal.get("bids", [])),
            )
        standing = data["standing"]
        return cls(
            rules=rules,
            seat=data["seat"],
            players=data["players"],
            phase=data["phase"],
            round_number=data["round"],
            opener=data["opener"],
            palifico=data["palifico"],
            wild=data["wild"],
            dice_counts=tuple(data["dice_counts"]),
            points=tuple(data["points"]),
            dice=tuple(data["dice"]),
            bids=tuple((seat, bid_from_json(bid)) for seat, bid in data["bids"]),
            turn=data["turn"],
            standing=None if standing is None else bid_from_json(standing),
            bidder=data["bidder"],
            legal=legal,
            last_reveal=revealed,
            winners=tuple(data["winners"]),
            rolloff=tuple(
                RollOffAttempt(
                    tuple(attempt["seats"]),
                    tuple((a, b) for a, b in attempt["rolls"]),
                    tuple(attempt["tied"]),
                )
                for attempt in data.get("rolloff", [])
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form for clients (the server sends exactly this)."""
        legal = self.legal
        return {
            "seat": self.seat,
            "players": self.players,
            "phase": self.phase,
            "round": self.round_number,
            "opener": self.opener,
            "palifico": self.palifico,
            "wild": self.wild,
            "dice_counts": list(self.dice_counts),
            "points": list(self.points),
            "dice": list(self.dice),
            "bids": [[seat, bid_to_json(bid)] for seat, bid in self.bids],
            "turn": self.turn,
            "standing": None if self.standing is None else bid_to_json(self.standing),
            "bidder": self.bidder,
            "legal": {
                "bids": [bid_to_json(bid) for bid in legal.any_bids],
                "calls": [call.value for call in legal.calls],
            },
            "last_reveal": None if self.last_reveal is None else _reveal_json(self.last_reveal),
            "winners": list(self.winners),
            "rolloff": [
                {
                    "seats": list(attempt.seats),
                    "rolls": [list(pair) for pair in attempt.rolls],
                    "tied": list(attempt.tied),
                }
                for attempt in self.rolloff
            ],
        }


def view(game: Game, seat: int | None) -> SeatView:
    """The view of ``game`` for ``seat``; ``None`` gives a spectator's view (no dice)."""
    if seat is not None and not 0 <= seat < game.players:
        raise ValueError(f"no seat {seat!r} at a table of {game.players}")
    bidding = game.phase is Phase.BIDDING
    own: tuple[int, ...] = ()
    if seat is not None and bidding:
        own = game.cups[seat]
    return SeatView(
        rules=game.rules,
        seat=seat,
        players=game.players,
        phase=game.phase.value,
        round_number=game.round_number,
        opener=game.opener,
        palifico=game.palifico,
        wild=game.wild,
        dice_counts=tuple(game.dice_counts),
        points=tuple(game.points),
        dice=own,
        bids=tuple(game.bids),
        turn=game.turn if bidding else None,
        standing=game.standing if bidding else None,
        bidder=game.bidder if bidding and game.standing is not None else None,
        legal=game.legal_actions(seat) if seat is not None else NO_ACTIONS,
        last_reveal=game.last_reveal,
        winners=game.winners,
        rolloff=_NO_ROLLOFF if game.rolloff is None else tuple(game.rolloff.attempts),
    )


_NO_ROLLOFF: tuple[RollOffAttempt, ...] = ()


@functools.lru_cache(maxsize=16)
def _reveal_json(reveal: Revealed) -> dict[str, Any]:
    """A finished round's call and every cup (:meth:`Revealed.table_json`), once per
    reveal: every seat's view of a table shows the same one, so a server that sends a
    state to each seat in turn encodes it once instead of once per seat. A pure function
    of the (frozen) reveal; the same dict is handed out again: treat it as read-only."""
    return reveal.table_json(as_event=False)


# -- every seat's view as JSON text, for a server that sends one to each seat -------------

# The members of :meth:`SeatView.to_json` that differ from seat to seat; every other
# member is the same for every seat and for spectators (``view`` takes them from the game).
_SEAT_KEYS = ("seat", "dice", "legal")
_LEGAL_TEXTS: dict[int, tuple[LegalActions, bytes]] = {}
_LEGAL_TEXTS_KEPT = 4096


def _legal_text(legal: LegalActions) -> bytes:
    """The ``legal`` member as JSON, once per :class:`LegalActions` object: the engine makes
    each one once and hands the same object out again (the ladder of raises from a
    position), and it is immutable, so its text is too. Keyed by identity (a long tuple is
    slow to hash), with the object kept beside its text so that a reused ``id`` is never
    mistaken for it."""
    found = _LEGAL_TEXTS.get(id(legal))
    if found is not None and found[0] is legal:
        return found[1]
    text = orjson.dumps(
        {
            "bids": [bid_to_json(bid) for bid in legal.any_bids],
            "calls": [call.value for call in legal.calls],
        }
    )
    if len(_LEGAL_TEXTS) >= _LEGAL_TEXTS_KEPT:
        _LEGAL_TEXTS.clear()
    _LEGAL_TEXTS[id(legal)] = (legal, text)
    return text


class ViewTexts:
    """Every seat's :func:`view` of one game state, as the JSON text of its
    :meth:`SeatView.to_json` (byte for byte what ``orjson.dumps`` gives of it).

    A server sends each seat its own view after every change. All but three members
    (the seat, its own dice, its legal actions) are the same for everyone, so they are
    encoded once here and each seat's text is spliced from them. What differs per seat
    is taken exactly as :func:`view` takes it: the seat's own cup while bidding, nothing
    for a spectator; the test suite checks every text against ``view`` itself.
    """

    __slots__ = ("_game", "_head", "_middle", "_tail")

    def __init__(self, game: Game) -> None:
        shared = view(game, None).to_json()
        keys = list(shared)
        dice, legal = keys.index("dice"), keys.index("legal")
        assert keys[0] == "seat" and keys[1:] and dice < legal, keys

        def members(names: list[str]) -> bytes:
            return orjson.dumps({name: shared[name] for name in names})[1:-1]

        self._game = game
        self._head = members(keys[1:dice])
        self._middle = members(keys[dice + 1 : legal])
        self._tail = members(keys[legal + 1 :])

    def text(self, seat: int | None) -> str:
        """The view of ``seat`` (None: a spectator's) as JSON text."""
        game = self._game
        if seat is None:
            seat_text, dice, legal = b"null", b"[]", _legal_text(NO_ACTIONS)
        else:
            if not 0 <= seat < game.players:
                raise ValueError(f"no seat {seat!r} at a table of {game.players}")
            seat_text = str(seat).encode()
            own = game.cups[seat] if game.phase is Phase.BIDDING else ()
            dice = orjson.dumps(own)
            legal = _legal_text(game.legal_actions(seat))
        return b"".join(
            (
                b'{"seat":',
                seat_text,
                b",",
                self._head,
                b',"dice":',
                dice,
                b",",
                self._middle,
                b',"legal":',
                legal,
                b",",
                self._tail,
                b"}",
            )
        ).decode()
