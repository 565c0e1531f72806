"""Bots at a table: who acts next, and the loop that plays a game among bots.

Shared by the arena, the terminal game and (later) the server's bot seats, so all of them
give bots the same chances: after every bid, players who may call calza out of turn are
asked first (clockwise from the player to act), then the player to act.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dudo.bids import Bid
from dudo.bots.base import Bot
from dudo.game import CALZA, Action, Call, Event, Game, IllegalAction, Phase
from dudo.hands import Hand
from dudo.refusals import explain
from dudo.view import SeatView, view


class BotError(RuntimeError):
    """A bot raised, answered with something its view did not offer, or passed on its turn.

    The message is one line that names the bot (its name and class) and its seat and says
    what it returned or raised; the exception it raised, if any, is the ``__cause__``.
    """


def bot_label(bot: Bot, seat: int) -> str:
    """``bot 'Cautious Carla' (CautiousBot) at seat 2``: how errors name a bot."""
    name = getattr(bot, "name", None)
    kind = type(bot).__name__
    shown = f"{name!r} ({kind})" if isinstance(name, str) and name != kind else kind
    return f"bot {shown} at seat {seat}"


def _shown(value: object) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def _action_words(action: Action) -> str:
    """An action as the error shows it: ``3x5 (three 5s)``, a hand's words, ``dudo``; a
    bid built from something other than numbers by its constructor, ``Bid('x', None)``."""
    if isinstance(action, Bid):
        if type(action.quantity) is not int or type(action.face) is not int:
            return _shown(action)
        return f"{action} ({action.words()})"
    if isinstance(action, Hand):
        return action.words()
    return action.value


LEGAL_SHOWN = 4
"""How many of the lowest legal bids an error lists (then the calls): enough to show the
bot what the table expected, few enough to keep the error on one line."""


def legal_summary(legal: Sequence[Action]) -> str:
    """``2x3, 2x4, 2x5, 2x6, ... (40 bids), dudo, calza``: the first few legal bids and
    every call (the calls come last, two at most), short enough for a one-line error."""
    calls = [action for action in legal[-2:] if isinstance(action, Call)]
    bids = len(legal) - len(calls)
    shown = [
        bid.words() if isinstance(bid := legal[index], Hand) else str(bid)
        for index in range(min(bids, LEGAL_SHOWN))
    ]
    if bids > LEGAL_SHOWN:
        shown.append(f"... ({bids} bids)")
    shown.extend(call.value for call in calls)
    return ", ".join(shown) if shown else "nothing"


def bot_raised(bot: Bot, seat: int, error: BaseException) -> BotError:
    """The one-line error for a bot whose ``act`` raised ``error``: its type and message,
    as the last line of a traceback reads (``ValueError: boom``). ``SystemExit`` too: a
    bot's ``sys.exit(0)`` is a bot that failed, not the program's end with no result."""
    message = " ".join(str(error).split())
    if len(message) > 120:
        message = message[:117] + "..."
    raised = f"{bot_label(bot, seat)} raised {type(error).__name__}"
    return BotError(f"{raised}: {message}" if message else raised)


def check_answer(
    bot: Bot, seat: int, seen: SeatView, action: object, why_not: Callable[[Action], str | None]
) -> Action | None:
    """The bot's answer if ``seen`` offers it (``None`` allowed off its turn), else a
    :class:`BotError` saying what it returned and why that will not do (``why_not``: the
    rules' words for an action they refuse, if the caller has the game to ask)."""
    if action is None:
        if seen.my_turn:
            raise BotError(
                f"{bot_label(bot, seat)} returned None on its turn; it must "
                "return one of view.legal"
            )
        return None
    if not isinstance(action, Bid | Hand | Call):
        kind = "Hand" if seen.rules.bids == "poker" else "Bid"
        raise BotError(
            f"{bot_label(bot, seat)} returned {_shown(action)}, which is not an "
            f"action: return one of view.legal (a {kind}, DUDO or CALZA)"
        )
    if action not in seen.legal:
        why = why_not(action)
        raise BotError(
            f"{bot_label(bot, seat)} returned {_action_words(action)}, which is not legal now"
            + (f": {why}" if why else "")
            + f" (legal: {legal_summary(seen.legal)})"
        )
    return action


def ask(bot: Bot, game: Game, seat: int) -> Action | None:
    """The bot's answer for ``seat``, checked against the seat's legal actions; anything
    else (an exception from the bot included, ``SystemExit`` as well: all but Ctrl-C's
    ``KeyboardInterrupt``) is a one-line :class:`BotError`."""
    seen = view(game, seat)
    try:
        action = bot.act(seen)
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        raise bot_raised(bot, seat, error) from error
    return check_answer(bot, seat, seen, action, lambda chosen: refused_because(game, seat, chosen))


def refused_because(game: Game, seat: int, action: Action) -> str | None:
    """Why the rules refuse ``action`` from ``seat`` now, in the words a player gets
    (:func:`dudo.refusals.explain`: the cause, not only the code); None if they take it."""
    reason = game.reason(seat, action)
    return None if reason is None else explain(game, seat, action, reason=reason).words


def out_of_turn_seats(game: Game) -> list[int]:
    """Seats that may call calza out of turn now, clockwise from the player to act."""
    if game.phase is not Phase.BIDDING or game.standing is None:
        return []
    seats = [(game.turn + step) % game.players for step in range(1, game.players)]
    return [seat for seat in seats if CALZA in game.legal_actions(seat)]


def bot_step(game: Game, bots: Sequence[Bot]) -> list[Event]:
    """One step of a game among bots: a roll, an out-of-turn calza, or the turn's action."""
    if game.phase is Phase.ROLL:
        game.roll()
        return []
    if game.phase is Phase.OVER:
        return []
    for seat in out_of_turn_seats(game):
        if ask(bots[seat], game, seat) is CALZA:
            return game.apply(seat, CALZA)
    seat = game.turn
    action = ask(bots[seat], game, seat)
    assert action is not None
    try:
        return game.apply(seat, action)
    except IllegalAction as error:  # pragma: no cover - ask() checked it
        raise BotError(str(error)) from error


def play_bot_game(
    game: Game,
    bots: Sequence[Bot],
    on_events: Callable[[list[Event]], None] | None = None,
    max_steps: int = 100_000,
) -> tuple[int, ...]:
    """Play ``game`` to its end with one bot per seat; returns the winners."""
    for _ in range(max_steps):
        if game.phase is Phase.OVER:
            return game.winners
        events = bot_step(game, bots)
        if on_events is not None:
            on_events(events)
    raise BotError(f"the game did not end within {max_steps} steps")
