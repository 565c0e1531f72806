"""Bots at a table: who acts next, and the loop that plays a game among bots.

Shared by the arena, the terminal game and (later) the server's bot seats, so all of them
give bots the same chances: after every bid, players who may call calza out of turn are
asked first (clockwise from the player to act), then the player to act.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dudo.bots.base import Bot
from dudo.game import CALZA, Action, Event, Game, IllegalAction, Phase
from dudo.view import view


class BotError(RuntimeError):
    """A bot answered with an action its view did not offer, or with nothing on its turn."""


def out_of_turn_seats(game: Game) -> list[int]:
    """Seats that may call calza out of turn now, clockwise from the player to act."""
    if game.phase is not Phase.BIDDING or game.standing is None:
        return []
    seats = [(game.turn + step) % game.players for step in range(1, game.players)]
    return [seat for seat in seats if CALZA in game.legal_actions(seat)]


def ask(bot: Bot, game: Game, seat: int) -> Action | None:
    """The bot's answer for ``seat``, checked against the seat's legal actions."""
    seen = view(game, seat)
    action = bot.act(seen)
    if action is None:
        if seen.my_turn:
            raise BotError(f"{bot.name} (seat {seat}) passed on its turn")
        return None
    if action not in seen.legal:
        raise BotError(f"{bot.name} (seat {seat}) chose {action!r}, which is not legal: "
                       f"{game.reason(seat, action)}")
    return action


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


def play_bot_game(game: Game, bots: Sequence[Bot],
                  on_events: Callable[[list[Event]], None] | None = None,
                  max_steps: int = 100_000) -> tuple[int, ...]:
    """Play ``game`` to its end with one bot per seat; returns the winners."""
    for _ in range(max_steps):
        if game.phase is Phase.OVER:
            return game.winners
        events = bot_step(game, bots)
        if on_events is not None:
            on_events(events)
    raise BotError(f"the game did not end within {max_steps} steps")
