"""The game's progress at a room's table: starting a game, fair rolls, moves.

The :class:`Dealer` turns what the room decided to do (a move judged legal by the engine, a
round to roll, a game to start) into log entries with their fair-dice material (the next
round's commitment goes out with the reveal, see :mod:`dudo.fairness`), commits them
through the :class:`~dudo.server.table.journal.Journal` and shows the table the result
through the :class:`~dudo.server.table.audience.Audience`. Both the players' messages and
the schedule (timer, bots, pauses) end here, so a move is made one way whoever made it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from dudo.fairness import (
    FairnessError,
    check_seat_seed,
    commitment,
    rolloff_counts,
    rolloff_label,
    server_seat_seed,
)
from dudo.game import REASONS, Action, Call, GameOver, Phase
from dudo.printable import clipped
from dudo.refusals import explain
from dudo.rolloff import RollOff
from dudo.server import protocol as p
from dudo.server.logs import log_event
from dudo.server.table.audience import Audience
from dudo.server.table.errors import RoomError
from dudo.server.table.journal import Journal
from dudo.server.table.schedule import Fill
from dudo.server.table.state import RoomState, action_to_json

log = logging.getLogger("dudo.room")


class Dealer:
    """Runs one room's games: what changes the game is committed here, then shown."""

    def __init__(
        self,
        code: str,
        state: RoomState,
        journal: Journal,
        audience: Audience,
        entropy: Callable[[int], str],
    ) -> None:
        self.code = code
        self.state = state
        self.journal = journal
        self.audience = audience
        self.entropy = entropy

    async def play(self, seat: int, action: Action, action_id: str | None, by: str) -> None:
        state = self.state
        game = state.game
        if game is None or state.status != "playing":
            raise RoomError("not_now", "no game is being played")
        reason = game.reason(seat, action)
        if reason is not None:
            names = [place.name for place in state.seats]
            why = explain(game, seat, action, reason=reason, names=names)
            raise RoomError(reason, REASONS[reason], detail=why.to_json())
        data: dict[str, Any] = {
            "seat": seat,
            "action": action_to_json(action),
            "id": action_id,
            "by": by,
        }
        if isinstance(action, Call):
            # The next round's commitment goes out with the reveal. If the call ends the
            # game the seed is never used (nor shown).
            seed = self.entropy(32)
            bots = state.bot_seats()
            data["next"] = {
                "server_seed": seed,
                "bot_seats": bots,
                "commitment": commitment(seed, game.round_number + 1, bots),
            }
        events = await self.journal.commit("action", data)
        # The ack (remembered as the entry was applied) goes to the seat's sockets just
        # before their state.
        ack = None if action_id is None else (seat, state.seats[seat].replies[action_id])
        # A move the player did not make is marked, so the table can say so: a bot
        # standing in for an absent player, or the turn timer running out.
        moved_by = (
            "timer"
            if by == "timer"
            else "stand_in"
            if by == "bot" and state.seats[seat].kind == "human"
            else None
        )
        self.audience.broadcast(events, moved_by=moved_by, ack=ack)
        if any(isinstance(event, GameOver) for event in events):
            await self.journal.save_game()
            log_event(
                log,
                "game_over",
                room=self.code,
                game_id=state.game_id,
                rounds=state.game.round_number if state.game else None,
                winners=list(state.game.winners) if state.game else [],
            )

    async def seed(self, seat: int, message: p.SeedMessage) -> None:
        """Take a seat's seed for the round named in the message, logged before it is
        acknowledged (a seed the server accepted is used even after a crash). Only the
        round whose commitment is out and whose dice are not dealt takes seeds: a seed for
        a later round would reach the server before it commits to that round's seed."""
        try:
            seed = check_seat_seed(message.seed)
        except FairnessError as error:
            raise RoomError("bad_seed", str(error)) from None
        state = self.state
        game, fair = state.game, state.fair
        if state.status != "playing" or game is None or fair is None:
            raise RoomError("wrong_round", "no round is waiting for seeds")
        if game.phase is not Phase.ROLL or message.round != fair.round:
            waiting = (
                f"round {fair.round} is waiting for seeds"
                if game.phase is Phase.ROLL
                else "no round is waiting for seeds"
            )
            raise RoomError(
                "wrong_round", f"round {clipped(str(message.round))} takes no seeds now ({waiting})"
            )
        if state.seats[seat].seed is not None:
            # One stored seed per seat and round: the first counts. Never accepted later
            # (the round's seeds end with its roll), so the refusal is not stored either.
            raise RoomError(
                "seeded",
                f"this seat's seed for round {message.round} is in: one seed a round",
                stored=False,
            )
        action_id = message.id
        await self.journal.commit(
            "seeded",
            {"seat": seat, "round": message.round, "seed": seed},
            None if action_id is None else (seat, action_id),
        )
        if action_id is not None:
            self.audience.tell_seat(seat, state.seats[seat].replies[action_id])

    async def roll(self, ack: tuple[int, str] | None = None) -> None:
        """Deal the round: each seat's seed if it sent one, otherwise a seed derived from
        the committed server seed (never a free draw: see dudo.fairness)."""
        fair = self.state.fair
        assert self.state.game is not None and fair is not None
        seeds: list[str] = []
        server_seats: list[int] = []
        for index, seat in enumerate(self.state.seats):
            if seat.seed is None:
                server_seats.append(index)
                seeds.append(server_seat_seed(fair.server_seed, fair.round, index))
            else:
                seeds.append(seat.seed)
        data: dict[str, Any] = {"seat_seeds": seeds, "server_seats": server_seats}
        roll_off = self.state.rolloff
        if self.state.rolling_off() and roll_off is not None:
            # A roll-off attempt: its dice are public at once, so the commitment of what
            # comes next (another attempt if it ties, else round 1) goes out with them.
            players = len(self.state.seats)
            cups = self.state.deal(
                fair.server_seed, seeds, fair.round, rolloff_counts(players, roll_off.rolling)
            )
            trial = RollOff(roll_off.seats)
            for attempt in roll_off.attempts:
                trial.roll(attempt.rolls)
            trial.roll([cups[seat] for seat in roll_off.rolling])
            label = 1 if trial.opener is not None else rolloff_label(len(trial.attempts) + 1)
            seed = self.entropy(32)
            bots = self.state.bot_seats()
            data["next"] = {
                "server_seed": seed,
                "bot_seats": bots,
                "commitment": commitment(seed, label, bots),
            }
        events = await self.journal.commit("rolled", data, ack)
        self.audience.broadcast(events)

    async def start_game(self, rematch: bool = False, ack: tuple[int, str] | None = None) -> None:
        state = self.state
        seed = self.entropy(32)
        how = state.rules.first_opener
        players = len(state.seats)
        first: int | str = 1
        opener: int | None
        if how == "rolloff":  # rolled off, attempt by attempt, before round 1
            opener = None
            first = rolloff_label(1)
        elif how == "host":
            opener = 0
        elif how == "rotate":
            opener = 0 if state.first_opener is None else (state.first_opener + 1) % players
        else:
            opener = int(self.entropy(8), 16) % players
        log_event(
            log,
            "game_started",
            room=self.code,
            game=state.game_number + 1,
            seats=[seat.kind for seat in state.seats],
            rules=state.rules.to_overrides(),
        )
        data: dict[str, Any] = {
            "game": state.game_number + 1,
            "game_id": self.entropy(16),
            "first_opener": opener,
            "server_seed": seed,
            "bot_seats": state.bot_seats(),
            "commitment": commitment(seed, first, state.bot_seats()),
        }
        if how == "rolloff":
            data["rolloff"] = True
        await self.journal.commit("rematch" if rematch else "started", data, ack)
        self.audience.broadcast([])

    async def fill_with_bots(self, fill: Fill) -> None:
        """A quick game nobody else joined in time: bots take the open seats and, with a
        player at the table, the game starts."""
        # Fired: a table left to bots alone stays in the lobby, and must not fill again.
        self.state.fill_at = None
        if any(fill.seats):
            await self.journal.commit("configured", {"seats": fill.seats})
        if any(seat.kind == "human" for seat in self.state.seats):
            await self.start_game()
        else:
            self.audience.broadcast([])
