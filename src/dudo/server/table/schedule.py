"""When a room acts on its own, and what it then does.

Nobody sends a message for these: the round is dealt when its seed window (or the pause
after a reveal) is over, a bot moves in its own seat and stands in for a player away
longer than the grace period, the turn timer moves for a player who lets it run out,
bots call calza out of turn, and a quick game nobody else joined fills with bots. When a
player's grace period ends the table is told at once that a bot plays the seat now
(nothing is logged: the room only broadcasts, see :class:`GraceOver`).

The schedule only decides. :meth:`Schedule.next_due` tells the room's loop how long it may
wait for a message, and :meth:`Schedule.due` what is due now; the room carries that out
through its log like any other command, so a restarted room, rebuilt with the same
deadlines, does each of these once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dudo.bots.base import Bot
from dudo.bots.registry import make_bot
from dudo.bots.table import BotError, ask, out_of_turn_seats
from dudo.game import CALZA, DUDO, Action, Game, Phase
from dudo.server.logs import log_event
from dudo.server.table.state import RoomConfig, RoomState

log = logging.getLogger("dudo.room")

# The levels a quick game's open seats are filled with, seat by seat.
FILL_LEVELS = ["easy", "normal", "normal", "hard", "easy"]


@dataclass(frozen=True)
class Fill:
    """Seat bots in a quick game's open seats (``None`` leaves a seat as it is)."""

    seats: list[dict[str, Any] | None]


@dataclass(frozen=True)
class Roll:
    """Deal the round waiting for seeds."""


@dataclass(frozen=True)
class GraceOver:
    """The grace period of these away seats has just ended: a bot plays them from now on,
    and everyone is to see it (a state broadcast) without waiting for the next move. The
    state is judged at ``now``, the time these ends were found at: judged at a later
    clock it could show another seat's grace over too, and that seat's own announcement
    would follow with nothing new."""

    seats: list[int]
    now: float


@dataclass(frozen=True)
class Move:
    """Play for a seat: ``by`` is "bot" (its own bot or a stand-in) or "timer"."""

    seat: int
    action: Action
    by: str


class Schedule:
    """The clock-driven side of one room: deadlines read from its state, bots per seat."""

    def __init__(
        self,
        state: RoomState,
        config: RoomConfig,
        clock: Callable[[], float],
        entropy: Callable[[int], str],
    ) -> None:
        self.state = state
        self.config = config
        self.clock = clock
        self.entropy = entropy
        # The bids already offered to bots for a calza out of turn (not logged: a restarted
        # room asks them again).
        self.calza_checked = -1
        # Seat -> the away_since whose grace end the table has been told of (not logged: a
        # restarted room counts its players away from the restart, and tells again).
        self.grace_told: dict[int, float] = {}

    def controlled_by_bot(self, index: int, now: float) -> bool:
        seat = self.state.seats[index]
        if seat.kind == "bot":
            return True
        return seat.kind == "human" and (
            seat.left
            or (seat.away_since is not None and now - seat.away_since >= self.config.grace)
        )

    def away_unannounced(self) -> list[tuple[int, float]]:
        """(Seat, away since) for each away player of a game being played whom the table
        has not yet been told a bot plays for (a player who left shows that from the
        start; one who came back is no longer away)."""
        if self.state.status != "playing":
            return []
        return [
            (index, seat.away_since)
            for index, seat in enumerate(self.state.seats)
            if seat.kind == "human"
            and not seat.left
            and seat.away_since is not None
            and self.grace_told.get(index) != seat.away_since
        ]

    def next_due(self) -> float | None:
        """When something is next due (it may be already), or None for nothing timed."""
        ends = [since + self.config.grace for _, since in self.away_unannounced()]
        due = self._next_due()
        if due is not None:
            ends.append(due)
        return min(ends, default=None)

    def _next_due(self) -> float | None:
        """When the next change to the game is due: a fill, a roll or a move."""
        state = self.state
        if state.status == "lobby":
            return state.fill_at
        game = state.game
        if state.status != "playing" or game is None:
            return None
        if game.phase is Phase.ROLL:
            return state.roll_at
        if game.phase is not Phase.BIDDING:
            return None
        if self.calza_checked != len(game.bids):
            return self.clock()
        seat = state.seats[game.turn]
        times = []
        if seat.kind == "bot" or seat.left:
            times.append(state.turn_started + self.config.bot_delay)
        elif seat.away_since is not None:
            times.append(
                max(seat.away_since + self.config.grace, state.turn_started + self.config.bot_delay)
            )
        if state.deadline is not None and seat.kind != "bot":
            times.append(state.deadline)
        return min(times) if times else None

    def due(self) -> Fill | Roll | GraceOver | Move | None:
        """What is due now, if anything (one thing at a time). Bots are asked here, so
        each is asked once per chance to act; a grace end is returned once (the table
        is told then, see :class:`GraceOver`), before a move it may be due with."""
        state = self.state
        now = self.clock()
        # As Seat.public judges it, so the state sent then says bot_playing.
        over = [
            (index, since)
            for index, since in self.away_unannounced()
            if now - since >= self.config.grace
        ]
        if over:
            self.grace_told.update(over)
            return GraceOver([index for index, _ in over], now)
        if state.status == "lobby":
            if state.fill_at is not None and now >= state.fill_at:
                return Fill(
                    [
                        None
                        if seat.kind != "open"
                        else {"kind": "bot", "level": FILL_LEVELS[i % 5]}
                        for i, seat in enumerate(state.seats)
                    ]
                )
            return None
        game = state.game
        if state.status != "playing" or game is None:
            return None
        if game.phase is Phase.ROLL:
            if state.roll_at is not None and now >= state.roll_at:
                return Roll()
            return None
        if game.phase is not Phase.BIDDING:
            return None
        if self.calza_checked != len(game.bids):
            self.calza_checked = len(game.bids)
            for index in out_of_turn_seats(game):
                if (
                    self.controlled_by_bot(index, now)
                    and index != game.turn
                    and self.bot_answer(game, index) is CALZA
                ):
                    return Move(index, CALZA, "bot")
        index = game.turn
        by = None
        if self.controlled_by_bot(index, now) and now >= state.turn_started + self.config.bot_delay:
            by = "bot"
        if by is None and state.deadline is not None and now >= state.deadline:
            by = "timer"
        if by is None:
            return None
        action = self.bot_answer(game, index)  # the timer too plays the stand-in's move
        if action is None:  # a bot that failed: the plainest move
            legal = game.legal_actions(index)
            action = DUDO if DUDO in legal else legal[0]
        return Move(index, action, by)

    def bot_answer(self, game: Game, index: int) -> Action | None:
        """The seat's bot's answer, checked against what its view offers. A bot that
        raises or answers what it may not does not stop the room: the failure is logged
        in one line (``bot_failed``, naming the seat and what it did) and the answer is
        ``None`` (no calza; on its turn the plainest move stands in)."""
        try:
            return ask(self.bot_for(index), game, index)
        except BotError as error:
            log_event(
                log,
                "bot_failed",
                logging.WARNING,
                room=self.state.code,
                seat=index,
                error=str(error),
            )
            return None

    def bot_for(self, index: int) -> Bot:
        """The seat's bot, made when first needed: its own level in a bot's seat, normal
        standing in for a player; a hard bot gets the room's decision budget, and never
        holds up the room for an endgame solve (it runs in the background meanwhile)."""
        seat = self.state.seats[index]
        if seat.bot is None:
            level = seat.level if seat.kind == "bot" else "normal"
            seat.bot = make_bot(
                level,
                seed=int(self.entropy(4), 16),
                budget_ms=self.config.bot_budget_ms,
                wait_for_solves=False,
            )
        return seat.bot
