"""A room: the table where one group plays, run as an actor.

One asyncio task per room takes commands from an inbox, one at a time, so the game is
changed by exactly one writer in a fixed order. For every accepted change it

1. writes a log entry and waits until the store has committed it,
2. applies the entry to the room's state (:class:`~dudo.server.table.state.RoomState`,
   the same code that rebuilds a room from its log after a restart, so live play and
   replay cannot drift apart),
3. answers the sender and sends every connection its own view of the new state
   (:class:`~dudo.server.table.audience.Audience`).

Between messages the loop waits no longer than the room's
:class:`~dudo.server.table.schedule.Schedule` allows: the turn timer, bots (in their own seats
and standing in for absent players), the pause after a reveal and the quick-game fill
are carried out here like any other command. Every deadline is an absolute time kept in
the state, so it survives a restart and fires once. Rules are never decided here:
legality comes from the engine and every outbound game state from :func:`dudo.view.view`.

The state, the schedule and the audience never call the room: it alone writes the log
and decides when to tell whom, and they are what it is made of.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from dudo.bids import Bid
from dudo.dice import Cups
from dudo.fairness import (
    FairnessError,
    check_seat_seed,
    commitment,
    derive_dice,
    rolloff_counts,
    rolloff_label,
    server_seat_seed,
)
from dudo.game import REASONS, Action, Call, GameOver, Phase
from dudo.hands import BadHandText, Hand
from dudo.rolloff import RollOff
from dudo.rules import Rules, RulesError
from dudo.server import protocol as p
from dudo.server.logs import log_event
from dudo.server.outage import RETRY_ADVICE, Backoff, StoreHealth, within
from dudo.server.table.audience import (
    CLOSE_LEFT,
    CLOSE_MOVED,
    CLOSE_REMOVED,
    CLOSE_REPLACED,
    CLOSE_WATCHERS_FULL,
    SOCKETS_PER_SEAT,
    Audience,
    event_json,
)
from dudo.server.table.connection import Connection, dumps
from dudo.server.table.names import clean_chat, distinct_name
from dudo.server.table.schedule import Fill, Move, Roll, Schedule
from dudo.server.table.state import (
    REPLIES_KEPT,
    Fair,
    RoomConfig,
    RoomEvent,
    RoomState,
    Seat,
    action_from_json,
    action_to_json,
    hash_token,
)
from dudo.store import LogConflict, LogEntry, Store, StoreError

__all__ = [
    "CLOSE_MOVED", "CLOSE_REMOVED", "CLOSE_REPLACED", "CLOSE_WATCHERS_FULL", "MAX_SEATS",
    "MIN_SEATS", "REFUSALS_STORED", "REPLIES_KEPT", "SOCKETS_PER_SEAT", "Fair", "Room",
    "RoomConfig", "RoomError", "Seat", "action_from_json", "action_to_json", "event_json",
    "hash_token", "system_entropy",
]

log = logging.getLogger("dudo.room")

MIN_SEATS, MAX_SEATS = 2, 6
REFUSALS_STORED = REPLIES_KEPT  # per seat; older stored refusals are deleted in batches


def system_entropy(size: int) -> str:
    """``size`` fresh random bytes from the operating system, as hex."""
    return secrets.token_hex(size)


class RoomError(Exception):
    """A request the room refuses; ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str, stored: bool = True) -> None:
        super().__init__(message)
        self.code = code
        # False: the same message can never be accepted later, so the refusal is answered
        # (and remembered in memory) without a write: a flood of them stores nothing.
        self.stored = stored


def unavailable() -> RoomError:
    """The store cannot take the room's writes just now: nothing changed, and the same
    message (same id) may be sent again; it is answered exactly once."""
    return RoomError("unavailable", "the server cannot store games just now: nothing "
                                    f"changed; send it again in {RETRY_ADVICE:g} s",
                     stored=False)


class Room:
    """One room's actor loop over its state, schedule and audience. Build with
    :meth:`create` or :meth:`load`."""

    def __init__(self, code: str, store: Store, config: RoomConfig,
                 clock: Callable[[], float] = time.time,
                 entropy: Callable[[int], str] = system_entropy,
                 deal: Callable[..., Cups] = derive_dice,
                 health: StoreHealth | None = None) -> None:
        self.code = code
        self.store = store
        # The database's health, shared by the lobby's rooms (one log line per outage),
        # and this room's own backoff while its writes fail (None: they work).
        self.health = health or StoreHealth()
        self.backoff: Backoff | None = None
        self.record_unsaved = False
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
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
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

    # -- building -----------------------------------------------------------------------

    @classmethod
    async def create(cls, code: str, store: Store, config: RoomConfig, *, rules: Rules,
                     seats: int, bots: list[str | None], timer: int, public: bool,
                     quick: bool = False, show_lost_dice: bool = True,
                     clock: Callable[[], float] = time.time,
                     entropy: Callable[[int], str] = system_entropy,
                     deal: Callable[..., Cups] = derive_dice,
                     reuse_closed_before: float | None = None,
                     health: StoreHealth | None = None) -> Room | None:
        """A new room, logged; None if the code is taken (see Store.create_room).
        Raises RoomError ``unavailable`` if the store does not answer in time."""
        room = cls(code, store, config, clock, entropy, deal, health)
        settings = [{"kind": "bot", "level": level} if level else {"kind": "open"}
                    for level in (bots + [None] * seats)[:seats]]
        entry = LogEntry(0, clock(), "created", {
            "rules": rules.to_json(), "seats": settings, "timer": timer, "public": public,
            "quick": quick, "invite": entropy(16), "show_lost_dice": show_lost_dice})
        try:
            made = await within(store.create_room(code, public, entry, reuse_closed_before),
                                config.write_patience)
        except Exception as error:  # refused, broken or too slow: try again later
            room.health.failed(code, error)
            raise unavailable() from None
        room.health.succeeded()
        if not made:
            return None
        room.state.apply(entry)
        return room

    @classmethod
    async def load(cls, code: str, store: Store, config: RoomConfig,
                   clock: Callable[[], float] = time.time,
                   entropy: Callable[[int], str] = system_entropy,
                   deal: Callable[..., Cups] = derive_dice,
                   health: StoreHealth | None = None) -> Room:
        """Rebuild a room by replaying its log."""
        room = cls(code, store, config, clock, entropy, deal, health)
        entries = await store.load_log(code)
        if not entries or entries[0].kind != "created":
            raise StoreError(f"room {code}: its log does not begin with its creation")
        for entry in entries:
            room.state.apply(entry)
        # Idle time counts from the last thing that happened, not from the restart: a site
        # restarted more often than its idle limits must still close idle rooms.
        room.last_activity = entries[-1].at
        room.audience.restarted(clock())
        if room.state.status == "over":
            # The crash may have come between the last action's commit and the record's
            # save; saving is idempotent, so a record already kept stays as it was.
            await room._save_game()
        return room

    def start_task(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"room-{self.code}")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        for connection in self.audience.connections():
            connection.close()

    async def hand_off(self, timeout: float = 5.0) -> None:
        """Stop between two commands (never inside a commit) and send every socket away to
        reconnect: another node rebuilds the room from its log and carries on (a node
        draining before it exits, DESIGN.md "games are logs")."""
        if self.task is not None and not self.task.done():
            with contextlib.suppress(TimeoutError, RoomError):
                await asyncio.wait_for(self.call("stop"), timeout)
        self.closed = True
        self.audience.send_away(p.error_message("moved", "this room is moving to another "
                                                         "server: reconnect"), CLOSE_MOVED)
        await self.stop()

    # -- the log --------------------------------------------------------------------------

    async def _commit(self, kind: str, data: dict[str, Any],
                      ack: tuple[int, str] | None = None) -> list[RoomEvent]:
        """Store an entry, then apply it: nobody hears of a change that is not stored.

        ``ack`` (seat, message id) is logged with the entry, so the answer to that message
        is remembered even after a restart (exactly once).
        """
        if ack is not None:
            data = {**data, "ack": list(ack)}
        if self.backoff is not None:
            await self._recover()
        entry = LogEntry(self.state.seq, self.clock(), kind, data)
        await self._store(entry)
        return self.state.apply(entry)

    async def _store(self, entry: LogEntry) -> None:
        """Append one entry, waiting at most ``write_patience``: on failure the room backs
        off and the caller gets ``unavailable`` (a write that timed out is kept as in
        flight: it may still land, see :meth:`_recover`)."""
        write = asyncio.ensure_future(self.store.append(self.code, [entry]))
        try:
            async with asyncio.timeout(self.config.write_patience):
                await asyncio.shield(write)
        except LogConflict:
            self._let_go()
            raise RoomError("moved", "this room is now held elsewhere: reconnect") from None
        except Exception as error:  # StoreError, a driver's own, or TimeoutError
            backoff = self.backoff = self.backoff or Backoff()
            backoff.failed(asyncio.get_running_loop().time())
            backoff.unconfirmed.append(entry)  # it may have landed all the same
            if not write.done():
                backoff.inflight = write
            else:
                write.exception()  # (retrieved: it is handled here)
            self.health.failed(self.code, error)
            raise unavailable() from None
        if self.backoff is not None:
            self.backoff = None
            if self.record_unsaved:
                await self._save_game()
        self.health.succeeded()
        # (A failed record save above set a new backoff: the next write waits for it.)

    async def _recover(self) -> None:
        """Before writing again after a failure: wait out the backoff and any write still
        in flight, then take back whatever of ours the log holds beyond our state (a
        write that failed or timed out, yet landed): its sender was told ``unavailable``
        and that nothing changed, so nothing did; the same id sent again is judged anew,
        exactly once. Entries beyond our state that are not ours mean another writer
        holds the room now (it is let go). Raises ``unavailable`` while the store is
        still out of reach."""
        backoff = self.backoff
        assert backoff is not None
        now = asyncio.get_running_loop().time()
        if backoff.inflight is not None:
            if not backoff.inflight.done():
                if backoff.ready(now):
                    backoff.failed(now)  # still stuck: try again later
                raise unavailable()
            if not backoff.inflight.cancelled():
                backoff.inflight.exception()  # retrieved: landed or not, the log says below
            backoff.inflight = None
        if not backoff.ready(now):
            raise unavailable()
        patience = self.config.write_patience
        try:
            stored = await within(self.store.load_log(self.code), patience)
            beyond = [entry for entry in stored if entry.seq >= self.state.seq]
            ours = {(entry.seq, entry.kind, entry.at, entry.data_json())
                    for entry in backoff.unconfirmed}
            if any((entry.seq, entry.kind, entry.at, entry.data_json()) not in ours
                   for entry in beyond):
                self._let_go()
                raise RoomError("moved", "this room is now held elsewhere: reconnect")
            if beyond:
                await within(self.store.forget_entries(
                    self.code, [entry.seq for entry in beyond]), patience)
                log_event(log, "writes_taken_back", room=self.code,
                          kinds=[entry.kind for entry in beyond])
        except RoomError:
            raise
        except Exception as error:
            backoff.failed(now)
            self.health.failed(self.code, error)
            raise unavailable() from None
        backoff.unconfirmed.clear()

    async def settle_store(self) -> bool:
        """Before judging anything after a failed write: learn what the store holds (see
        :meth:`_recover`), so a move is judged on the state the log says, never twice.
        True if the room may go on to write; False while the store is still away."""
        if self.backoff is None:
            return True
        try:
            await self._recover()
        except RoomError as error:
            if error.code != "unavailable":
                raise
            return False
        if self.record_unsaved:
            await self._save_game()
        return True

    def _let_go(self) -> None:
        """Another writer appended to our log first (two processes on one database, or a
        node that lost its lease): nothing of ours was stored, so stop at once and send
        everyone away to reconnect, rather than show them a table that does not exist."""
        log_event(log, "room_lost", room=self.code, seq=self.state.seq)
        self.closed = True
        self.audience.send_away(p.error_message("moved", "this room is now held elsewhere: "
                                                         "reconnect"), CLOSE_MOVED)

    async def _refuse(self, seat: int, action_id: str, reply: dict[str, Any]) -> str:
        """Store a refusal under its message id before answering, so that a retry, even
        after a restart, gets the same answer instead of being judged again (exactly
        once). The per-socket rate limit bounds how many a client can make us store."""
        try:
            if self.backoff is not None:
                await self._recover()
            entry = LogEntry(self.state.seq, self.clock(), "refused",
                             {"seat": seat, "id": action_id, "reply": reply})
            await self._store(entry)
        except RoomError as error:
            if error.code == "moved":
                return dumps(reply)
            # The answer still goes out; only a restart would forget it.
            return self.state.remember(seat, action_id, reply)
        self.state.apply(entry)
        await self._forget_old_refusals(seat)
        return self.state.seats[seat].replies[action_id]

    async def _forget_old_refusals(self, seat: int) -> None:
        """Keep the stored refusals of a seat bounded: only the last REFUSALS_STORED can
        still be asked for again (the seat remembers no more answers than that), so older
        ones are deleted from the log, a batch at a time."""
        stored = self.state.stored_refusals.get(seat)
        if stored is None or len(stored) < REFUSALS_STORED + 64:
            return
        old = [stored.popleft() for _ in range(len(stored) - REFUSALS_STORED)]
        try:
            await within(self.store.forget_entries(self.code, old), self.config.write_patience)
        except Exception:  # kept a little longer; the next batch tries again
            stored.extendleft(reversed(old))

    # -- the actor loop -------------------------------------------------------------------

    async def _run(self) -> None:
        while not self.closed:
            command = None
            if not self.inbox.empty():
                command = self.inbox.get_nowait()
            else:
                wake = self._next_wake()
                if wake is None:  # nothing timed: no timeout to set up per wait
                    command = await self.inbox.get()
                else:
                    try:
                        async with asyncio.timeout_at(wake):
                            command = await self.inbox.get()
                    except TimeoutError:
                        command = None
            try:
                if command is not None:
                    await self._handle(command)
                # (Not if stopped by that command: nothing more of ours.)
                if not self.closed and await self.settle_store():
                    await self._run_due()
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
                kind = str(command[0]) if command else "timer"
                log.exception("room error", extra={"fields": {
                    "event": "room_error", "room": self.code, "command": kind}})
                self._fail_waiting(command, RoomError("internal", "internal error"))

    def _next_wake(self) -> float | None:
        """When the loop must look again without a command (loop time): what the schedule
        has due, but while backing off not before the next try."""
        loop = asyncio.get_running_loop()
        due = self.schedule.next_due()
        wake = None if due is None else loop.time() + max(0.0, due - self.clock())
        if self.backoff is not None and (due is not None or self.backoff.inflight is not None
                                         or self.record_unsaved):
            wake = max(wake or 0.0, self.backoff.next_try)
        return wake

    @staticmethod
    def _fail_waiting(command: tuple[Any, ...] | None, error: RoomError) -> None:
        """Answer a command someone waits on (an HTTP request) with ``error``."""
        if command is not None and isinstance(command[-1], asyncio.Future):
            future = command[-1]
            if not future.done():
                future.set_exception(error)

    async def call(self, *command: Any) -> Any:
        """Send a command that expects an answer (used by HTTP handlers)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.inbox.put_nowait((*command, future))
        return await future

    async def _handle(self, command: tuple[Any, ...]) -> None:
        kind = command[0]
        if kind == "join" or (kind in ("message", "connect", "disconnect")
                              and command[1].seat is not None):
            self.last_activity = self.clock()  # spectators and lookups keep no room open
        if kind in ("message", "join") and self.backoff is not None:
            await self.settle_store()  # judged on what the log holds (a resent message)
        if kind == "message":
            _, connection, message = command
            await self._on_message(connection, message)
        elif kind == "connect":
            _, connection = command
            self.audience.connect(connection)
        elif kind == "disconnect":
            _, connection = command
            self.audience.disconnect(connection)
        elif kind == "join":
            _, name, invite, *profile, future = command
            try:
                future.set_result(await self._join(name, invite, *profile))
            except RoomError as error:
                future.set_exception(error)
        elif kind == "summary":
            _, future = command
            future.set_result(self.summary())
        elif kind == "invite_matches":
            _, invite, future = command
            future.set_result(self.invite_matches(invite))
        elif kind == "stop":
            _, future = command
            self.closed = True
            future.set_result(None)

    async def _run_due(self) -> None:
        """Carry out what the schedule says is due now, if anything."""
        due = self.schedule.due()
        if isinstance(due, Fill):
            await self._fill_with_bots(due)
        elif isinstance(due, Roll):
            await self._roll()
        elif isinstance(due, Move):
            await self._play(due.seat, due.action, None, due.by)

    # -- people arriving and leaving ------------------------------------------------------

    def invite_matches(self, invite: str | None) -> bool:
        """Whether ``invite`` is this room's invite key (compared in constant time, as
        bytes: compare_digest refuses text that is not ASCII)."""
        key = self.state.invite
        return bool(invite and key and hmac.compare_digest(invite.encode(), key.encode()))

    async def _join(self, name: str, invite: str | None = None,
                    profile: str | None = None) -> dict[str, Any]:
        state = self.state
        # Between games (after the game is over) open seats take players too: a spectator
        # can sit down for the rematch.
        if state.status == "playing":
            raise RoomError("started", "the game has already started: watch, or wait for "
                                       "a rematch")
        if state.locked and not self.invite_matches(invite):
            raise RoomError("locked", "the host has locked this room: ask them for the "
                                      "invite link")
        open_seats = [index for index, seat in enumerate(state.seats) if seat.kind == "open"]
        if not open_seats:
            raise RoomError("full", "the table is full")
        token = secrets.token_urlsafe(24)
        seat = open_seats[0]
        name = distinct_name(name, [other.name for other in state.seats if other.name])
        joined: dict[str, Any] = {"seat": seat, "name": name, "token_hash": hash_token(token)}
        if profile is not None:  # a profile's public id (dudo.profiles), never its secret
            joined["profile"] = profile
        await self._commit("joined", joined)
        self.audience.broadcast([])
        if state.quick and not any(s.kind == "open" for s in state.seats):
            await self._start_game()
        return {"code": self.code, "seat": seat, "token": token, "name": name}

    def idle(self, now: float) -> bool:
        """Whether no player has been here for long enough to close the room: a few
        minutes for a lobby nobody sits in, a while after its game ended, much longer
        before or during one. Spectators do not keep a room open (they are told it
        closed); players at their seats do."""
        if self.audience.players_here():
            return False
        if self.state.status == "over":
            limit = self.config.close_after_game
        elif self.state.status == "lobby":
            limit = self.config.close_empty_lobby
        else:
            limit = self.config.close_when_idle
        return now - self.last_activity >= limit

    # -- messages ---------------------------------------------------------------------------

    async def _on_message(self, connection: Connection, message: Any) -> None:
        seat = connection.seat
        action_id = getattr(message, "id", None)
        if isinstance(message, p.PingMessage):
            connection.send({"type": "pong", "v": p.PROTOCOL_VERSION,
                             "version": self.state.version})
            return
        if seat is None:
            connection.send(p.error_message("spectator", "spectators cannot act", action_id))
            return
        replies = self.state.seats[seat].replies
        if action_id is not None and action_id in replies:
            connection.send(replies[action_id])  # exactly once
            return
        try:
            acknowledged = await self._act(seat, message)
        except RoomError as error:
            reply = p.error_message(error.code, str(error), action_id)
            if error.code == "unavailable":
                # Not remembered: the same id, sent again once the store is back, is
                # judged then (and answered exactly once).
                reply["retry_after"] = RETRY_ADVICE
                connection.send(reply)
            elif action_id is None:
                connection.send(reply)
            elif not error.stored:
                connection.send(self.state.remember(seat, action_id, reply))
            else:
                connection.send(await self._refuse(seat, action_id, reply))
            return
        if acknowledged and action_id is not None:
            text = self.state.seats[seat].replies.get(action_id) or self.state.remember(
                seat, action_id, p.ack_message(action_id, self.state.version))
            connection.send(text)

    async def _act(self, seat: int, message: Any) -> bool:
        """Carry out a message; True if it still needs its ``ack`` (bids and calls are
        acknowledged as they are applied, so a replayed log remembers them too)."""
        state = self.state
        if isinstance(message, p.SeedMessage):
            await self._seed(seat, message)
            return False
        if isinstance(message, p.EmoteMessage):
            now = self.clock()
            if now - state.seats[seat].last_emote < self.config.emote_interval:
                raise RoomError("rate_limited", "one reaction at a time, please")
            state.seats[seat].last_emote = now
            self.audience.tell_everyone({"type": "emote", "v": p.PROTOCOL_VERSION,
                                         "seat": seat, "emote": message.emote})
            return False
        if isinstance(message, p.ChatMessage):
            self._chat(seat, message.text)
            return False
        if isinstance(message, p.BidMessage | p.CallMessage):
            action: Action
            if isinstance(message, p.CallMessage):
                action = Call(message.call)
            elif (message.bid is not None) != (state.rules.bids == "poker"):
                raise RoomError("bad_bid", 'this table bids poker hands (Common Hand): send '
                                'the hand as "bid", like {"hand": "pair", "faces": [3]}'
                                if state.rules.bids == "poker" else
                                "this table bids a quantity and a face, not a hand")
            elif message.bid is not None:
                try:
                    action = Hand.from_json(message.bid.model_dump())
                except BadHandText as error:
                    raise RoomError("bad_bid", str(error)) from None
            else:
                assert message.quantity is not None and message.face is not None
                action = Bid(message.quantity, message.face)
            if message.version is not None and message.version != state.version:
                raise RoomError("stale", f"the table changed (version {state.version}); "
                                         "look again before acting")
            await self._play(seat, action, message.id, "player")
            return False
        if isinstance(message, p.NextRoundMessage):
            if (state.game is None or state.game.phase is not Phase.ROLL
                    or state.status != "playing"):
                raise RoomError("not_now", "there is no round waiting to be rolled")
            await self._roll(ack=(seat, message.id))
            return True
        if isinstance(message, p.StartMessage):
            self._require_host(seat, "start the game")
            if state.status != "lobby":
                raise RoomError("not_now", "the game has already started")
            if any(s.kind == "open" for s in state.seats):
                raise RoomError("not_ready", "every seat needs a player or a bot: fill the "
                                             "open seats with bots or wait for friends")
            await self._start_game(ack=(seat, message.id))
            return True
        if isinstance(message, p.RematchMessage):
            if state.status != "over":
                raise RoomError("not_now", "a rematch is for after the game")
            if any(s.kind == "open" for s in state.seats):
                raise RoomError("not_ready", "every seat needs a player or a bot: fill the "
                                             "open seats with bots or wait for friends")
            await self._start_game(rematch=True, ack=(seat, message.id))
            return True
        if isinstance(message, p.ConfigureMessage):
            self._require_host(seat, "change the room")
            talk_only = message.chat is not None and set(message.model_fields_set) <= {
                "type", "id", "v", "chat"}
            if state.status == "playing" and not talk_only:  # table talk: any time
                raise RoomError("not_now", "the room can change only before a game or "
                                           "between games")
            await self._configure(message, ack=(seat, message.id))
            return True
        if isinstance(message, p.RemoveMessage):
            self._require_host(seat, "remove a player")
            if state.status == "playing":
                raise RoomError("not_now", "players can be removed only before a game or "
                                           "between games")
            if message.seat >= len(state.seats) or state.seats[message.seat].kind != "human":
                raise RoomError("bad_seats", f"seat {message.seat} holds no player")
            # The entry opens the seat (a new Seat); its old sockets are told why they go.
            leaving = state.seats[message.seat].connections
            # A new invite key: the removed player's link (the host's) no longer lets
            # them back into a locked room; the host's state brings the new link.
            await self._commit("removed", {"seat": message.seat,
                                           "invite": self.entropy(16)}, (seat, message.id))
            self.audience.send_away(p.error_message("removed", "the host gave your seat to "
                                                               "someone else: you can watch"),
                                    CLOSE_REMOVED, list(leaving))
            self.audience.broadcast([])
            return True
        if isinstance(message, p.LeaveMessage):
            await self._leave(seat, message.id)
            return False
        raise RoomError("unknown_type", f"{type(message).__name__} is not handled")

    def _chat(self, seat: int, text: str) -> None:
        """Table talk: a cleaned line to every socket of the room, spectators too. Not
        logged nor stored: it lives as long as the message on the wire (docs/protocol.md)."""
        state = self.state
        if not state.chat:
            raise RoomError("chat_off", "the host has turned table talk off")
        line = clean_chat(text)
        if not line:
            raise RoomError("bad_message", "chat: text: nothing to say")
        now = self.clock()
        if now - state.seats[seat].last_chat < self.config.chat_interval:
            raise RoomError("rate_limited", "one line of table talk every two seconds, please")
        state.seats[seat].last_chat = now
        self.audience.tell_everyone({"type": "chat", "v": p.PROTOCOL_VERSION, "seat": seat,
                                     "text": line})

    async def _leave(self, seat: int, action_id: str) -> None:
        """The player leaves: the seat opens (lobby), a bot plays it to the end of the game
        and keeps it (playing), or a bot takes it (between games). The seat's sockets get
        the ack, then close 4411 (one message: a closing socket drops what is still queued);
        its token holds nothing any more."""
        state = self.state
        leaving = list(state.seats[seat].connections)
        await self._commit("left", {"seat": seat})
        self.audience.send_away(p.ack_message(action_id, state.version), CLOSE_LEFT, leaving)
        state.seats[seat].connections.difference_update(leaving)
        self.audience.broadcast([])

    def _require_host(self, seat: int, what: str) -> None:
        if seat != self.state.host_seat():
            raise RoomError("not_host", f"only the host may {what}")

    async def _configure(self, message: p.ConfigureMessage,
                         ack: tuple[int, str] | None = None) -> None:
        seats = self.state.seats
        data: dict[str, Any] = {}
        if message.rules is not None:
            try:
                data["rules"] = Rules.from_json(message.rules).to_json()
            except RulesError as error:
                raise RoomError("bad_rules", str(error)) from None
        if message.timer is not None:
            if message.timer and not 5 <= message.timer <= 600:
                raise RoomError("bad_timer", "the turn timer is 0 (off) or 5 to 600 seconds")
            data["timer"] = message.timer
        if message.public is not None:
            data["public"] = message.public
        if message.locked is not None:
            data["locked"] = message.locked
            if message.locked and not self.state.locked and self.state.locked_before:
                # Locked again: links shared while it was open stop working.
                data["invite"] = self.entropy(16)
        if message.show_lost_dice is not None:
            data["show_lost_dice"] = message.show_lost_dice
        if message.chat is not None:
            data["chat"] = message.chat
        if message.seats is not None:
            if len(message.seats) != len(seats):
                raise RoomError("bad_seats", f"seats lists {len(message.seats)} entries for "
                                             f"{len(seats)} seats")
            for index, setting in enumerate(message.seats):
                if setting is not None and seats[index].kind == "human":
                    raise RoomError("bad_seats", f"seat {index} belongs to a player")
            data["seats"] = [None if s is None else s.model_dump() for s in message.seats]
        if data:
            await self._commit("configured", data, ack)
            self.audience.broadcast([])

    # -- playing ----------------------------------------------------------------------------

    async def _play(self, seat: int, action: Action, action_id: str | None, by: str) -> None:
        state = self.state
        game = state.game
        if game is None or state.status != "playing":
            raise RoomError("not_now", "no game is being played")
        reason = game.reason(seat, action)
        if reason is not None:
            raise RoomError(reason, REASONS[reason])
        data: dict[str, Any] = {"seat": seat, "action": action_to_json(action),
                                "id": action_id, "by": by}
        if isinstance(action, Call):
            # The next round's commitment goes out with the reveal. If the call ends the
            # game the seed is never used (nor shown).
            seed = self.entropy(32)
            bots = state.bot_seats()
            data["next"] = {"server_seed": seed, "bot_seats": bots,
                            "commitment": commitment(seed, game.round_number + 1, bots)}
        events = await self._commit("action", data)
        if action_id is not None:
            # Remembered as the entry was applied.
            self.audience.tell_seat(seat, state.seats[seat].replies[action_id])
        # A move the player did not make is marked, so the table can say so: a bot
        # standing in for an absent player, or the turn timer running out.
        moved_by = ("timer" if by == "timer" else
                    "stand_in" if by == "bot" and state.seats[seat].kind == "human" else None)
        self.audience.broadcast(events, moved_by=moved_by)
        if any(isinstance(event, GameOver) for event in events):
            await self._save_game()
            log_event(log, "game_over", room=self.code, game_id=state.game_id,
                      rounds=state.game.round_number if state.game else None,
                      winners=list(state.game.winners) if state.game else [])

    async def _seed(self, seat: int, message: p.SeedMessage) -> None:
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
            waiting = (f"round {fair.round} is waiting for seeds" if game.phase is Phase.ROLL
                       else "no round is waiting for seeds")
            raise RoomError("wrong_round", f"round {message.round} takes no seeds now "
                                           f"({waiting})")
        if state.seats[seat].seed is not None:
            # One stored seed per seat and round: the first counts. Never accepted later
            # (the round's seeds end with its roll), so the refusal is not stored either.
            raise RoomError("seeded", f"this seat's seed for round {message.round} is in: "
                                      "one seed a round", stored=False)
        action_id = message.id
        await self._commit("seeded", {"seat": seat, "round": message.round, "seed": seed},
                           None if action_id is None else (seat, action_id))
        if action_id is not None:
            self.audience.tell_seat(seat, state.seats[seat].replies[action_id])

    async def _roll(self, ack: tuple[int, str] | None = None) -> None:
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
            cups = self.state.deal(fair.server_seed, seeds, fair.round,
                                   rolloff_counts(players, roll_off.rolling))
            trial = RollOff(roll_off.seats)
            for attempt in roll_off.attempts:
                trial.roll(attempt.rolls)
            trial.roll([cups[seat] for seat in roll_off.rolling])
            label = 1 if trial.opener is not None else rolloff_label(len(trial.attempts) + 1)
            seed = self.entropy(32)
            bots = self.state.bot_seats()
            data["next"] = {"server_seed": seed, "bot_seats": bots,
                            "commitment": commitment(seed, label, bots)}
        events = await self._commit("rolled", data, ack)
        self.audience.broadcast(events)

    async def _start_game(self, rematch: bool = False,
                          ack: tuple[int, str] | None = None) -> None:
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
        log_event(log, "game_started", room=self.code, game=state.game_number + 1,
                  seats=[seat.kind for seat in state.seats], rules=state.rules.to_overrides())
        data: dict[str, Any] = {
            "game": state.game_number + 1, "game_id": self.entropy(16),
            "first_opener": opener, "server_seed": seed, "bot_seats": state.bot_seats(),
            "commitment": commitment(seed, first, state.bot_seats())}
        if how == "rolloff":
            data["rolloff"] = True
        await self._commit("rematch" if rematch else "started", data, ack)
        self.audience.broadcast([])

    async def _fill_with_bots(self, fill: Fill) -> None:
        """A quick game nobody else joined in time: bots take the open seats and, with a
        player at the table, the game starts."""
        # Fired: a table left to bots alone stays in the lobby, and must not fill again.
        self.state.fill_at = None
        if any(fill.seats):
            await self._commit("configured", {"seats": fill.seats})
        if any(seat.kind == "human" for seat in self.state.seats):
            await self._start_game()
        else:
            self.audience.broadcast([])

    async def _save_game(self) -> None:
        """Keep the finished game's record; if the store is away, keep trying (after the
        backoff) until it takes it (saving twice changes nothing)."""
        if self.state.game is None:
            return
        record = self.state.record()
        try:
            await within(self.store.save_game(self.state.game_id, self.code, record),
                         self.config.write_patience)
        except Exception as error:
            self.record_unsaved = True
            backoff = self.backoff = self.backoff or Backoff()
            backoff.failed(asyncio.get_running_loop().time())
            self.health.failed(self.code, error)
            return
        self.record_unsaved = False
        if self.backoff is not None and self.backoff.inflight is None:
            self.backoff = None
        self.health.succeeded()
        after = self.config.after_game
        if after is not None:
            try:
                await after(record, [seat.profile for seat in self.state.seats],
                            self.state.created_at)
            except Exception:  # the game is saved; stats and ratings must not stop the room
                log.exception("room %s: the finished game could not be entered for profiles",
                              self.code)
