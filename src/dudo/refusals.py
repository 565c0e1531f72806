"""Why an action was refused, in detail: which of a reason code's causes applies.

:meth:`Game.reason <dudo.game.Game.reason>` answers with one of the codes of
:data:`~dudo.game.REASONS`, and several codes have more than one cause: ``calza_not_allowed``
is the rules (no calza at all), a palifico round, or too few players left. :func:`explain`
works out which, from the game's state, only when a refusal is explained (never on
:meth:`Game.apply <dudo.game.Game.apply>`'s path), as a :class:`Refusal`: a ``key`` and
``params`` a client can put into its own language, and the same in English ``words``::

    >>> from dudo.game import CALZA, Game
    >>> from dudo.bids import Bid
    >>> from dudo.dice import ScriptedDice
    >>> from dudo.rules import Rules
    >>> game = Game(Rules.preset("perudo"), 2, dice=ScriptedDice([[(2, 3), (4, 5)]]),
    ...             dice_counts=[2, 2], opener=0)
    >>> _ = game.roll()
    >>> _ = game.apply(0, Bid(2, 5))
    >>> explain(game, 1, CALZA).words
    'Calza needs at least 3 players in the game, and only 2 are left.'

A bid among the params is its JSON form (``[quantity, face]``, or a hand object), a face a
number 1..6 (English says "5s", "aces"), a name a player's name (``seat`` beside it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dudo.bids import Bid, quantity_limits
from dudo.game import CALZA, DUDO, Action, AnyBid, Game, bid_to_json
from dudo.hands import Hand

HANDS_WITH_AN_ARTICLE = ("pair ", "low ", "high ", "full ")
"""The hands said with "a" before them: "a pair of 4s", "a low straight", "a full house
4s over 2s" (but "two pair 5s and 2s", "three 6s", "four 2s")."""


def in_words(bid: AnyBid) -> str:
    """A bid as a sentence says it: ``six 2s``; a hand with its article where it takes
    one (``a pair of 4s``), so that "the dice lack a pair of 4s" reads as English."""
    words = bid.words()
    if isinstance(bid, Hand) and words.startswith(HANDS_WITH_AN_ARTICLE):
        return f"a {words}"
    return words


def faces_word(face: int) -> str:
    """A face in the plural, as a sentence names it: ``5s``, ``aces``."""
    return "aces" if face == 1 else f"{face}s"


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refusal explained: ``code`` (of :data:`~dudo.game.REASONS`), ``key`` (the
    cause, ``code.cause``), ``params`` (JSON values) and ``words`` (one or two English
    sentences, addressed to the seat that acted)."""

    code: str
    key: str
    words: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """As the server sends it with an error: ``{"key", "params", "text"}``."""
        return {"key": self.key, "params": dict(self.params), "text": self.words}


def explain(
    game: Game,
    seat: int,
    action: Action,
    *,
    reason: str | None = None,
    names: list[str] | None = None,
) -> Refusal:
    """Why ``seat`` may not take ``action`` now, in detail. ``reason`` is
    ``game.reason(seat, action)`` if the caller has it already; ``names`` the players'
    names by seat (else "seat N"). Raises ``ValueError`` for an action the game accepts."""
    if reason is None:
        reason = game.reason(seat, action)
        if reason is None:
            raise ValueError(f"seat {seat} may take {action!r}: nothing to explain")
    why = _EXPLAIN.get(reason)
    if why is None:
        raise ValueError(f"unknown reason code {reason!r}")
    key, words, params = why(_Asked(game, seat, action, names))
    return Refusal(reason, f"{reason}.{key}", words, params)


@dataclass(slots=True)
class _Asked:
    game: Game
    seat: int
    action: Action
    names: list[str] | None

    def name(self, seat: int) -> str:
        return self.names[seat] if self.names else f"seat {seat}"


_Why = tuple[str, str, dict[str, Any]]


def _player_out(_: _Asked) -> _Why:
    return "out", "You have no dice left: you are out of this game.", {}


def _no_bid(_: _Asked) -> _Why:
    return "first", "Nobody has bid yet this round, so there is no bid to call.", {}


def _bidder_cannot_call(asked: _Asked) -> _Why:
    standing = asked.game.standing
    assert standing is not None
    words = f"The standing bid, {in_words(standing)}, is your own: nobody may call their own bid."
    return "own", words, {"bid": bid_to_json(standing)}


def _calza_not_allowed(asked: _Asked) -> _Why:
    game = asked.game
    rules = game.rules
    if rules.calza == "off":
        return "off", "These rules have no calza: a bid is called with dudo.", {}
    if game.palifico:
        return "palifico", "There is no calza in a palifico round.", {}
    least, alive = rules.calza_min_players, len(game.alive)
    words = f"Calza needs at least {least} players in the game, and only {alive} are left."
    return "min_players", words, {"min": least, "alive": alive}


def _not_your_turn(asked: _Asked) -> _Why:
    turn = asked.game.turn
    params = {"seat": turn, "name": asked.name(turn)}
    whose = f"It is {params['name']}'s turn"
    if asked.action is CALZA:
        return "calza", f"{whose}, and these rules let you call calza only on your turn.", params
    if asked.action is DUDO:
        return "dudo", f"{whose}: you may call dudo only on your turn.", params
    return "bid", f"{whose}: you may bid only on your turn.", params


def explain_bad_bid(action: Action, *, poker: bool) -> Refusal:
    """Why ``action`` is no bid at a table that bids poker hands (``poker``) or quantities:
    :func:`explain`'s ``bad_bid`` causes, for an action the game would refuse as
    ``bad_bid``, without a game. A room refuses a bid of the wrong form, or a hand that
    does not exist, before it asks the game (dudo.server.table.requests), with this
    detail."""
    key, words, params = _bad_bid_cause(action, poker)
    return Refusal("bad_bid", f"bad_bid.{key}", words, params)


def _bad_bid(asked: _Asked) -> _Why:
    return _bad_bid_cause(asked.action, asked.game.poker)


def _bad_bid_cause(action: Action, poker: bool) -> _Why:
    if isinstance(action, Bid) and poker:
        return "not_a_hand", "This table bids poker hands, like a pair of 3s.", {}
    if isinstance(action, Hand) and not poker:
        return "not_a_quantity", "This table bids a quantity and a face, like four 5s.", {}
    if isinstance(action, Hand):
        problem = action.problem() or "that is not one of the hands"
        return "hand", f"That is not a hand: {problem}.", {}
    if not isinstance(action, Bid):
        return "not_an_action", "That is neither a bid nor a call.", {}
    if type(action.quantity) is not int or action.quantity < 1:
        return "quantity", "A bid names a whole number of dice, at least one.", {}
    return "face", "A die's faces are 1 to 6.", {}


def _ones_not_allowed(asked: _Asked) -> _Why:
    game = asked.game
    if game.rules.ones_bids == "never":
        return "never", "These rules never allow a bid on aces.", {}
    if game.palifico:
        words = "Under these rules the opener of a palifico round may not open on aces."
        return "palifico_opening", words, {}
    words = (
        "Aces may not open a round under these rules; after the opening bid you may raise to aces."
    )
    return "opening", words, {}


def _face_locked(asked: _Asked) -> _Why:
    game = asked.game
    standing = game.standing
    assert isinstance(standing, Bid)
    face, dice = standing.face, game.dice_counts[asked.seat]
    if game.rules.palifico_one_die_may_change_face:
        words = (
            "In a palifico round only a player with one die left may change the face, and "
            f"you have {dice}: raise the number of {faces_word(face)}."
        )
        return "one_die_only", words, {"face": face, "dice": dice}
    words = (
        f"In a palifico round every raise keeps the face: raise the number of {faces_word(face)}."
    )
    return "palifico", words, {"face": face}


def _not_a_raise(asked: _Asked) -> _Why:
    game, action = asked.game, asked.action
    standing = game.standing
    assert standing is not None
    bids = game.legal_actions(asked.seat).any_bids
    said = in_words(standing)
    params: dict[str, Any] = {"bid": bid_to_json(standing)}
    if isinstance(action, Hand):
        if not bids:
            return "top", f"Nothing raises {said}: no hand is higher.", params
        params["least"] = bid_to_json(bids[0])
        words = f"A raise on {said} names a higher hand; the lowest is {in_words(bids[0])}."
        return "hand", words, params
    assert isinstance(action, Bid) and isinstance(standing, Bid)
    face = action.face
    params["face"] = face
    least = next((bid for bid in bids if isinstance(bid, Bid) and bid.face == face), None)
    if least is None:
        words = f"No bid on {faces_word(face)} is high enough to raise {said} here."
        return "no_face", words, params
    params["least"] = bid_to_json(least)
    halve = game.rules.ones_bids == "halve" and not game.palifico
    if halve and (face == 1) != (standing.face == 1):
        if face == 1:
            words = (
                f"Going from {said} to aces takes at least half as many, rounded up: "
                f"{in_words(least)}."
            )
            return "to_ones", words, params
        words = (
            f"Going from {said} back to {faces_word(face)} takes at least double the aces "
            f"plus one: {in_words(least)}."
        )
        return "from_ones", words, params
    words = (
        f"A raise on {said} names more dice, or as many of a higher face; on "
        f"{faces_word(face)} that is at least {in_words(least)}."
    )
    return "plain", words, params


def _over_cap(asked: _Asked) -> _Why:
    game, action = asked.game, asked.action
    dice = game.dice_in_play
    if isinstance(action, Hand):
        need = action.dice_needed
        words = f"{_capital(in_words(action))} needs {need} dice, and only {dice} are in play."
        return "hand", words, {"bid": bid_to_json(action), "need": need, "dice": dice}
    faces, ones = quantity_limits(dice, game.rules.cap_at_dice_in_play)
    if game.rules.cap_at_dice_in_play:
        words = f"Only {dice} dice are in play, and a bid may not name more than that."
        return "cap", words, {"dice": dice}
    assert isinstance(action, Bid)
    if action.face == 1:
        words = f"With {dice} dice in play a bid names at most {ones} aces."
        return "ones", words, {"dice": dice, "limit": ones}
    words = f"With {dice} dice in play a bid names at most {faces} of a face 2 to 6."
    return "faces", words, {"dice": dice, "limit": faces}


def _round_over(asked: _Asked) -> _Why:
    if asked.game.round_number == 1:  # no round played yet: the game has just started
        return "first", "The first round has not been rolled yet.", {}
    return "waiting", "This round is over: the next one has not been rolled yet.", {}


def _game_over(_: _Asked) -> _Why:
    return "over", "The game is over.", {}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


_EXPLAIN = {
    "player_out": _player_out,
    "no_bid": _no_bid,
    "bidder_cannot_call": _bidder_cannot_call,
    "calza_not_allowed": _calza_not_allowed,
    "not_your_turn": _not_your_turn,
    "bad_bid": _bad_bid,
    "ones_not_allowed": _ones_not_allowed,
    "face_locked": _face_locked,
    "not_a_raise": _not_a_raise,
    "over_cap": _over_cap,
    "round_over": _round_over,
    "game_over": _game_over,
}

KEYS: tuple[str, ...] = (
    "player_out.out",
    "no_bid.first",
    "bidder_cannot_call.own",
    "calza_not_allowed.off",
    "calza_not_allowed.palifico",
    "calza_not_allowed.min_players",
    "not_your_turn.bid",
    "not_your_turn.dudo",
    "not_your_turn.calza",
    "bad_bid.not_a_hand",
    "bad_bid.not_a_quantity",
    "bad_bid.hand",
    "bad_bid.not_an_action",
    "bad_bid.quantity",
    "bad_bid.face",
    "ones_not_allowed.never",
    "ones_not_allowed.opening",
    "ones_not_allowed.palifico_opening",
    "face_locked.palifico",
    "face_locked.one_die_only",
    "not_a_raise.top",
    "not_a_raise.hand",
    "not_a_raise.no_face",
    "not_a_raise.to_ones",
    "not_a_raise.from_ones",
    "not_a_raise.plain",
    "over_cap.hand",
    "over_cap.cap",
    "over_cap.ones",
    "over_cap.faces",
    "round_over.first",
    "round_over.waiting",
    "game_over.over",
)
"""Every key :func:`explain` may give (the browser has a sentence ``why.<key>`` for each)."""
