"""A room: the table where one group plays, run as an actor.

One asyncio task per room takes messages from an inbox, one at a time, so the game is
changed by exactly one writer in a fixed order. The inbox holds a closed set of frozen
messages (:mod:`dudo.server.table.inbox`): notices it is told (:meth:`Room.tell`: a socket
came, sent a message, went) and questions it is asked (:meth:`Room.ask`: a join, a look,
an invite check, a stop), dispatched with ``match``. For every accepted change it

1. writes a log entry and waits until the store has committed it
   (:class:`~dudo.server.table.journal.Journal`),
2. applies the entry to the room's state (:class:`~dudo.server.table.state.RoomState`,
   the same code that rebuilds a room from its log after a restart, so live play and
   replay cannot drift apart),
3. answers the sender and sends every connection its own view of the new state
   (:class:`~dudo.server.table.audience.Audience`).

What people ask is judged by the room's :class:`~dudo.server.table.requests.Requests`;
the game is moved on by its :class:`~dudo.server.table.dealer.Dealer`. Between messages
the loop waits no longer than the room's :class:`~dudo.server.table.schedule.Schedule`
allows: the turn timer, bots (in their own seats and standing in for absent players), the
pause after a reveal and the quick-game fill are carried out here like any other
message. Every deadline is an absolute time kept in the state, so it survives a restart
and fires once. Rules are never decided here: legality comes from the engine and every
outbound game state from :func:`dudo.view.view`.

The state, the schedule and the audience never call the room: it alone decides when to
write and whom to tell, and they are what it is made of.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, assert_never, overload

from dudo.dice import Cups
from dudo.fairness import derive_dice
from dudo.rules import Rules
from dudo.server import protocol as p
from dudo.server.logs import log_event
from dudo.server.outage import StoreHealth, within
from dudo.server.table import inbox
from dudo.server.table.audience import (
    CLOSE_MOVED,
    CLOSE_REMOVED,
    CLOSE_REPLACED,
    CLOSE_WATCHERS_FULL,
    SOCKETS_PER_SEAT,
    Audience,
    event_json,
)
from dudo.server.table.connection import Connection
from dudo.server.table.dealer import Dealer
from dudo.server.table.errors import RoomError, unavailable
from dudo.server.table.journal import REFUSALS_STORED, Journal
from dudo.server.table.requests import Requests
from dudo.server.table.schedule import Fill, GraceOver, Move, Roll, Schedule
from dudo.server.table.state import (
    REPLIES_KEPT,
    Fair,
    RoomConfig,
    RoomState,
    Seat,
    action_from_json,
    action_to_json,
    hash_token,
)
from dudo.server.tasks import stop_task
from dudo.store import LogEntry, Store, StoreError

__all__ = [
    "CLOSE_MOVED",
    "CLOSE_REMOVED",
    "CLOSE_REPLACED",
    "CLOSE_WATCHERS_FULL",
    "MAX_SEATS",
    "MIN_SEATS",
    "REFUSALS_STORED",
    "REPLIES_KEPT",
    "SOCKETS_PER_SEAT",
    "Fair",
    "Room",
    "RoomConfig",
    "RoomError",
    "Seat",
    "action_from_json",
    "action_to_json",
    "event_json",
    "hash_token",
    "system_entropy",
]

log = logging.getLogger("dudo.room")

MIN_SEATS, MAX_SEATS = 2, 6


def system_entropy(size: int) -> str:
    """``size`` fresh random bytes from the operating system, as hex."""
    return secrets.token_hex(size)


class Room:
    """One room's actor loop over its state, schedule and audience. Build with
    :meth:`create` or :meth:`load`."""

    def __init__(
        self,
        code: str,
        store: Store,
        config: RoomConfig,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], str] = system_entropy,
        deal: Callable[..., Cups] = derive_dice,
        health: StoreHealth | None = None,
    ) -> None:
        self.code = code
        self.store = store
        self.health = health or StoreHealth()
        # The creator's network (dudo.server.guard.networks), for its share of the lobbies;
        # None for a room rebuilt after a restart (counted for no one).
        self.group: str | None = None
        self.config = config
        self.clock = clock
        # Injected so tests can replay a room exactly; production uses the defaults.
        self.entropy = entropy
        self.state = RoomState(code, config, deal)
        self.schedule = Schedule(self.state, config, clock, entropy)
        self.audience = Audience(self.state, config, clock)
        self.journal = Journal(code, store, config, self.state, clock, self.health, self._let_go)
        self.dealer = Dealer(code, self.state, self.journal, self.audience, entropy)
        self.requests = Requests(
            code, self.state, config, self.journal, self.dealer, self.audience, clock, entropy
        )
        self.inbox: asyncio.Queue[inbox.Message | None] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.closed = False
        self.last_activity = clock()

    # What the lobby, the app and tests read of a room, from its state.

    @property
    def seats(self) -> list[Seat]:
        return self.state.seats

    @property
    def status(self) -> str:
        return self.state.status

    @status.setter
    def status(self, status: str) -> None:
        self.state.status = status

    @property
    def rules(self) -> Rules:
        return self.state.rules

    @property
    def quick(self) -> bool:
        return self.state.quick

    @property
    def public(self) -> bool:
        return self.state.public

    @property
    def timer(self) -> int:
        return self.state.timer

    @property
    def seq(self) -> int:
        return self.state.seq

    @property
    def version(self) -> int:
        return self.state.version

    def seat_of(self, token: str) -> int | None:
        """The seat a token holds (compared in constant time), or None."""
        return self.state.seat_of(token)

    def summary(self) -> dict[str, Any]:
        """What anyone with the code may know about the room (no dice, no tokens)."""
        return self.audience.summary()

    def invite_matches(self, invite: str | None) -> bool:
        """Whether ``invite`` is this room's invite key (compared in constant time)."""
        return self.requests.invite_matches(invite)

    # -- building -----------------------------------------------------------------------

    @classmethod
    async def create(
        cls,
        code: str,
        store: Store,
        config: RoomConfig,
        *,
        rules: Rules,
        seats: int,
        bots: list[str | None],
        timer: int,
        public: bool,
        quick: bool = False,
        show_lost_dice: bool = True,
        lang: str = "en",
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], str] = system_entropy,
        deal: Callable[..., Cups] = derive_dice,
        reuse_closed_before: float | None = None,
        health: StoreHealth | None = None,
    ) -> Room | None:
        """A new room, logged; None if the code is taken (see Store.create_room).
        Raises RoomError ``unavailable`` if the store does not answer in time."""
        room = cls(code, store, config, clock, entropy, deal, health)
        # Named in the host's language (their bots' names); an English room says nothing.
        named = {"lang": lang} if lang != "en" else {}
        settings = [
            {"kind": "bot", "level": level} if level else {"kind": "open"}
            for level in (bots + [None] * seats)[:seats]
        ]
        entry = LogEntry(
            0,
            clock(),
            "created",
            {
                "rules": rules.to_json(),
                "seats": settings,
                "timer": timer,
                "public": public,
                "quick": quick,
                "invite": entropy(16),
                "show_lost_dice": show_lost_dice,
                **named,
            },
        )
        try:
            made = await within(
                store.create_room(code, public, entry, reuse_closed_before), config.write_patience
            )
        except Exception as error:  # refused, broken or too slow: try again later
            room.health.failed(code, error)
            raise unavailable() from None
        room.health.succeeded()
        if not made:
            return None
        room.journal.apply(entry)
        return room

    @classmethod
    async def load(
        cls,
        code: str,
        store: Store,
        config: RoomConfig,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], str] = system_entropy,
        deal: Callable[..., Cups] = derive_dice,
        health: StoreHealth | None = None,
    ) -> Room:
        """Rebuild a room by replaying its log."""
        room = cls(code, store, config, clock, entropy, deal, health)
        entries = await store.load_log(code)
        if not entries or entries[0].kind != "created":
            raise StoreError(f"room {code}: its log does not begin with its creation")
        for entry in entries:
            room.journal.apply(entry)
        # Idle time counts from the last thing that happened, not from the restart: a site
        # restarted more often than its idle limits must still close idle rooms.
        room.last_activity = entries[-1].at
        room.audience.restarted(clock())
        if room.state.status == "over":
            # The crash may have come between the last action's commit and the record's
            # save; saving is idempotent, so a record already kept stays as it was.
            await room.journal.save_game()
        return room

    def start_task(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"room-{self.code}")

    async def stop(self) -> None:
        """End the room's task (cancelled again if a cancellation is lost: see
        dudo.server.tasks) and close its sockets."""
        if self.task is not None:
            await stop_task(self.task)
        for connection in self.audience.connections():
            connection.close()

    async def hand_off(self, timeout: float = 5.0) -> None:
        """Stop between two commands (never inside a commit) and send every socket away to
        reconnect: another node rebuilds the room from its log and carries on (a node
        draining before it exits: a game is its log, so nothing is lost)."""
        if self.task is not None and not self.task.done():
            with contextlib.suppress(TimeoutError, RoomError):
                await asyncio.wait_for(self.ask(inbox.Stop()), timeout)
        self.closed = True
        self.audience.send_away(
            p.error_message("moved", "this room is moving to another server: reconnect"),
            CLOSE_MOVED,
        )
        await self.stop()

    def _let_go(self) -> None:
        """Another writer appended to our log first (two processes on one database, or a
        node that lost its lease): nothing of ours was stored, so stop at once and send
        everyone away to reconnect, rather than show them a table that does not exist."""
        log_event(log, "room_lost", room=self.code, seq=self.state.seq)
        self.closed = True
        self.audience.send_away(
            p.error_message("moved", "this room is now held elsewhere: reconnect"), CLOSE_MOVED
        )

    # -- the actor loop -------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            await self._loop()
        finally:
            # Whatever way it ends (stopped, let go, a bug), no question is left waiting.
            self._answer_left_questions()

    def _answer_left_questions(self) -> None:
        while not self.inbox.empty():
            self._fail_waiting(self.inbox.get_nowait(), RoomError("moved", self.GONE))

    GONE = "this room has closed here: reconnect"

    async def _loop(self) -> None:
        while not self.closed:
            command: inbox.Message | None
            if not self.inbox.empty():
                command = self.inbox.get_nowait()
            else:
                # What is due wakes the loop as a None in the inbox, not by a timeout around
                # the wait: on Python 3.11 a timeout that expires as the inbox hands over a
                # command leaves the task's cancellation pending (fixed in 3.12), and
                # the room's next await would end it, every later question unanswered.
                # A wake that comes late, after a command, only makes one look more.
                wake = self._next_wake()
                timer = (
                    None
                    if wake is None
                    else asyncio.get_running_loop().call_at(wake, self.inbox.put_nowait, None)
                )
                command = await self.inbox.get()
                if timer is not None:
                    timer.cancel()
            try:
                if command is not None:
                    await self._handle(command)
                # (Not if stopped by that command: nothing more of ours.)
                if not self.closed and await self.journal.settle():
                    await self._run_due()
                if not self.closed:
                    await self.journal.enter_games()  # a finished game the book missed
            except asyncio.CancelledError:
                raise
            except RoomError as error:
                if error.code == "unavailable":
                    # The store is away: already logged (once per outage), retried after
                    # the backoff; a waiting request hears of it.
                    self._fail_waiting(command, error)
                    continue
                if error.code != "moved":
                    raise
                # Let go while a timer or bot moved (another node holds the room now):
                # the designed end of this actor, already logged as room_lost.
                self._fail_waiting(command, error)
            except Exception:  # a bug must not take the room down with it
                kind = command.kind if command else "timer"
                log.exception(
                    "room error",
                    extra={"fields": {"event": "room_error", "room": self.code, "command": kind}},
                )
                self._fail_waiting(command, RoomError("internal", "internal error"))

    def _next_wake(self) -> float | None:
        """When the loop must look again without a command (loop time): what the schedule
        has due, but while backing off not before the next try."""
        loop = asyncio.get_running_loop()
        due = self.schedule.next_due()
        wake = None if due is None else loop.time() + max(0.0, due - self.clock())
        backoff = self.journal.backoff
        if backoff is not None and (
            due is not None or backoff.inflight is not None or self.journal.record_unsaved
        ):
            wake = max(wake or 0.0, backoff.next_try)
        entry = self.journal.entry_due()
        if entry is not None:
            wake = entry if wake is None else min(wake, entry)
        return wake

    @staticmethod
    def _fail_waiting(command: inbox.Message | None, error: RoomError) -> None:
        """Answer a question someone waits on (an HTTP request) with ``error``."""
        match command:
            case inbox.Join() | inbox.Describe() | inbox.CheckInvite() | inbox.Stop():
                if not command.answer.done():
                    command.answer.set_exception(error)

    def tell(self, notice: inbox.Notice) -> None:
        """Put a notice in the inbox (a socket arrived, sent a message, went away). A room
        that has stopped reads no more notices: a socket that arrives then (found just as
        its node drained or the room was put away) is sent to reconnect, as the room's own
        sockets were, rather than left open with nothing ever coming."""
        if self.closed or (self.task is not None and self.task.done()):
            if isinstance(notice, inbox.Connect):
                self.audience.send_away(
                    p.error_message("moved", self.GONE), CLOSE_MOVED, [notice.connection]
                )
            return
        self.inbox.put_nowait(notice)

    @overload
    async def ask(self, question: inbox.Join | inbox.Describe) -> dict[str, Any]: ...
    @overload
    async def ask(self, question: inbox.CheckInvite) -> bool: ...
    @overload
    async def ask(self, question: inbox.Stop) -> None: ...

    async def ask(self, question: inbox.Question) -> Any:
        """Put a question in the inbox and wait for its answer (HTTP handlers); a refusal
        is raised as its :class:`RoomError`, and so is a room that has stopped (nobody
        would ever answer)."""
        if self.closed or (self.task is not None and self.task.done()):
            raise RoomError("moved", self.GONE)
        self.inbox.put_nowait(question)
        return await question.answer

    async def _handle(self, command: inbox.Message) -> None:
        match command:
            case inbox.Connect(connection):
                self._noticed(connection)
                self.audience.connect(connection)
            case inbox.Disconnect(connection):
                self._noticed(connection)
                self.audience.disconnect(connection)
            case inbox.Deliver(connection, message):
                self._noticed(connection)
                if self.journal.backoff is not None:
                    await self.journal.settle()  # judged on what the log holds (a resend)
                await self.requests.answer(connection, message)
            case inbox.Join(name, invite, profile, answer):
                self.last_activity = self.clock()
                if self.journal.backoff is not None:
                    await self.journal.settle()
                try:
                    answer.set_result(await self.requests.join(name, invite, profile))
                except RoomError as error:
                    answer.set_exception(error)
            case inbox.Describe(answer):
                answer.set_result(self.summary())
            case inbox.CheckInvite(invite, answer):
                answer.set_result(self.invite_matches(invite))
            case inbox.Stop(answer):
                self.closed = True
                answer.set_result(None)
            case _:
                assert_never(command)

    def _noticed(self, connection: Connection) -> None:
        """A player's socket keeps the room open; spectators and lookups do not."""
        if connection.seat is not None:
            self.last_activity = self.clock()

    async def _run_due(self) -> None:
        """Carry out what the schedule says is due now, if anything."""
        match self.schedule.due():
            case Fill() as fill:
                await self.dealer.fill_with_bots(fill)
            case Roll():
                await self.dealer.roll()
            case Move(seat, action, by):
                await self.dealer.play(seat, action, None, by)
            case GraceOver(_, now):
                # Nothing to log: each seat's public state shows a bot playing for it
                # from now on (Seat.public), and the table sees it without a move.
                self.audience.broadcast([], now=now)
            case None:
                pass

    def idle(self, now: float) -> bool:
        """Whether no player has been here for long enough to close the room: a few
        minutes for a lobby nobody sits in, a while after its game ended, much longer
        before or during one. Spectators do not keep a room open (they are told it
        closed); players at their seats do."""
        if self.audience.players_here():
            return False
        if self.journal.unentered:
            # A finished game the profile book has not taken yet (its database is away):
            # the room waits for it, up to the longest idle limit (a book that never
            # takes it is logged as game_not_entered when the room closes).
            limit = max(self.config.close_after_game, self.config.close_when_idle)
        elif self.state.status == "over":
            limit = self.config.close_after_game
        elif self.state.status == "lobby":
            limit = self.config.close_empty_lobby
        else:
            limit = self.config.close_when_idle
        return now - self.last_activity >= limit
