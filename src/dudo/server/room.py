"""A room: the table where one group plays, run as an actor.

One asyncio task per room takes commands from an inbox, one at a time, so the game is
changed by exactly one writer in a fixed order. For every accepted change it

1. writes a log entry and waits until the store has committed it,
2. applies the entry to the in-memory state (the same code that rebuilds a room from its
   log after a restart, so live play and replay cannot drift apart),
3. answers the sender and sends every connection its own view of the new state.

The room also owns the clock-driven parts: the turn timer, bots (in their own seats and
standing in for absent players), the pause after a reveal and the quick-game fill. Every
deadline is an absolute time kept in the state, so it survives a restart and fires once.
Rules are never decided here: legality comes from the engine and every outbound game
state from :func:`dudo.view.view`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dudo.bids import Bid
from dudo.bots.base import Bot
from dudo.bots.registry import LEVELS, make_bot
from dudo.bots.table import out_of_turn_seats
from dudo.dice import Cups
from dudo.fairness import (
    FairnessError,
    check_seat_seed,
    commitment,
    derive_dice,
    server_seat_seed,
)
from dudo.game import (
    CALZA,
    DUDO,
    REASONS,
    Action,
    Call,
    Event,
    Game,
    GameOver,
    Phase,
    Revealed,
)
from dudo.rules import Rules, RulesError
from dudo.server import protocol as p
from dudo.server.connection import Connection, dumps
from dudo.server.logs import log_event
from dudo.server.names import distinct_name, skeleton
from dudo.store import LogConflict, LogEntry, Store, StoreError
from dudo.view import view

log = logging.getLogger("dudo.room")

MIN_SEATS, MAX_SEATS = 2, 6
REPLIES_KEPT = 128
REFUSALS_STORED = REPLIES_KEPT  # per seat; older stored refusals are deleted in batches
SOCKETS_PER_SEAT = 4  # a fifth socket of a seat replaces its oldest
CLOSE_WATCHERS_FULL = 4429
CLOSE_REPLACED = 4409
CLOSE_REMOVED = 4410
CLOSE_MOVED = 4412


def system_entropy(size: int) -> str:
    """``size`` fresh random bytes from the operating system, as hex."""
    return secrets.token_hex(size)


@dataclass
class RoomConfig:
    """Timings of a room, in seconds (tests set them to zero or near it)."""

    bot_delay: float = 0.9
    reveal_pause: float = 8.0
    seed_window: float = 1.5
    grace: float = 20.0
    quick_fill: float = 8.0
    emote_interval: float = 1.5
    close_after_game: float = 600.0
    close_when_idle: float = 1800.0
    close_empty_lobby: float = 300.0  # a room nobody has sat in for this long
    max_spectators: int = 200  # per room; more are told the room is full of watchers


@dataclass
class Seat:
    """A place at the table: open, a person's (held by a token), or a bot's."""

    kind: str = "open"
    name: str = ""
    level: str = "normal"
    token_hash: str | None = None
    # The seed this seat sent for the round waiting to be rolled (logged as "seeded").
    seed: str | None = None
    # Runtime only (not logged): who is here, answers already given.
    connections: set[Connection] = field(default_factory=set)
    away_since: float | None = None
    # Answers kept as JSON text: strings are not tracked by the garbage collector, and
    # a busy server keeps thousands of them.
    replies: OrderedDict[str, str] = field(default_factory=OrderedDict)
    bot: Bot | None = None
    last_emote: float = 0.0

    def public(self, now: float, grace: float) -> dict[str, Any]:
        away = self.kind == "human" and not self.connections
        return {"kind": self.kind, "name": self.name,
                "level": self.level if self.kind == "bot" else None,
                "connected": bool(self.connections) if self.kind == "human" else None,
                "bot_playing": away and self.away_since is not None
                and now - self.away_since >= grace}


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RoomError(Exception):
    """A request the room refuses; ``code`` for programs, the message for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Fair:
    """Fair-dice material of the current (or next) round; ``server_seed`` stays secret
    until the round's reveal."""

    round: int
    commitment: str
    server_seed: str
    seat_seeds: list[str] | None = None
    server_seats: list[int] = field(default_factory=list)


class Room:
    """One room's state and actor loop. Build with :meth:`create` or :meth:`load`."""

    def __init__(self, code: str, store: Store, config: RoomConfig,
                 clock: Callable[[], float] = time.time,
                 entropy: Callable[[int], str] = system_entropy,
                 deal: Callable[..., Cups] = derive_dice) -> None:
        self.code = code
        self.store = store
        self.config = config
        self.clock = clock
        # Injected so tests can replay a room exactly; production uses the defaults.
        self.entropy = entropy
        self.deal = deal
        self.inbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.seq = 0
        self.version = 0
        self.rules = Rules.preset("perudo")
        self.seats: list[Seat] = []
        self.timer: int = 0
        self.public = False
        self.quick = False
        # A locked room takes no one by code alone: joining needs the host's invite key
        # (in the link the host shares), so a guessed code never takes a seat.
        self.locked = False
        self.invite = ""
        self.show_lost_dice = True  # a display option: dice lost so far, drawn greyed
        self.status = "lobby"
        self.created_at = 0.0
        self.game: Game | None = None
        self.game_id = ""
        self.game_number = 0
        self.first_opener: int | None = None
        self.fair: Fair | None = None
        self.revealed: list[dict[str, Any]] = []
        self.turn_started = 0.0
        self.deadline: float | None = None
        self.roll_at: float | None = None
        self.fill_at: float | None = None
        self.calza_checked = -1
        self.spectators: set[Connection] = set()
        self.stored_refusals: dict[int, deque[int]] = {}  # seat -> log seqs, oldest first
        self.closed = False
        self.last_activity = clock()
        self._rules_json: tuple[Rules | None, dict[str, Any]] = (None, {})

    # -- building -----------------------------------------------------------------------

    @classmethod
    async def create(cls, code: str, store: Store, config: RoomConfig, *, rules: Rules,
                     seats: int, bots: list[str | None], timer: int, public: bool,
                     quick: bool = False, show_lost_dice: bool = True,
                     clock: Callable[[], float] = time.time,
                     entropy: Callable[[int], str] = system_entropy,
                     deal: Callable[..., Cups] = derive_dice,
                     reuse_closed_before: float | None = None) -> Room | None:
        """A new room, logged; None if the code is taken (see Store.create_room)."""
        room = cls(code, store, config, clock, entropy, deal)
        settings = [{"kind": "bot", "level": level} if level else {"kind": "open"}
                    for level in (bots + [None] * seats)[:seats]]
        entry = LogEntry(0, clock(), "created", {
            "rules": rules.to_json(), "seats": settings, "timer": timer, "public": public,
            "quick": quick, "invite": entropy(16), "show_lost_dice": show_lost_dice})
        if not await store.create_room(code, public, entry, reuse_closed_before):
            return None
        room._apply(entry)
        return room

    @classmethod
    async def load(cls, code: str, store: Store, config: RoomConfig,
                   clock: Callable[[], float] = time.time,
                   entropy: Callable[[int], str] = system_entropy,
                   deal: Callable[..., Cups] = derive_dice) -> Room:
        """Rebuild a room by replaying its log."""
        room = cls(code, store, config, clock, entropy, deal)
        entries = await store.load_log(code)
        if not entries or entries[0].kind != "created":
            raise StoreError(f"room {code}: its log does not begin with its creation")
        for entry in entries:
            room._apply(entry)
        # Idle time counts from the last thing that happened, not from the restart: a site
        # restarted more often than its idle limits must still close idle rooms.
        room.last_activity = entries[-1].at
        now = clock()
        for seat in room.seats:
            if seat.kind == "human":
                seat.away_since = now  # nobody is connected right after a restart
        if room.status == "over":
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
        for connection in self._connections():
            connection.close()

    async def hand_off(self, timeout: float = 5.0) -> None:
        """Stop between two commands (never inside a commit) and send every socket away to
        reconnect: another node rebuilds the room from its log and carries on (a node
        draining before it exits, DESIGN.md "games are logs")."""
        if self.task is not None and not self.task.done():
            with contextlib.suppress(TimeoutError, RoomError):
                await asyncio.wait_for(self.call("stop"), timeout)
        self.closed = True
        for connection in self._connections():
            connection.send(p.error_message("moved", "this room is moving to another "
                                                     "server: reconnect"))
            connection.close(CLOSE_MOVED)
        await self.stop()

    # -- the log --------------------------------------------------------------------------

    async def _commit(self, kind: str, data: dict[str, Any],
                      ack: tuple[int, str] | None = None) -> list[Event]:
        """Store an entry, then apply it: nobody hears of a change that is not stored.

        ``ack`` (seat, message id) is logged with the entry, so the answer to that message
        is remembered even after a restart (exactly once).
        """
        if ack is not None:
            data = {**data, "ack": list(ack)}
        entry = LogEntry(self.seq, self.clock(), kind, data)
        try:
            await self.store.append(self.code, [entry])
        except LogConflict:
            self._let_go()
            raise RoomError("moved", "this room is now held elsewhere: reconnect") from None
        return self._apply(entry)

    def _let_go(self) -> None:
        """Another writer appended to our log first (two processes on one database, or a
        node that lost its lease): nothing of ours was stored, so stop at once and send
        everyone away to reconnect, rather than show them a table that does not exist."""
        log_event(log, "room_lost", room=self.code, seq=self.seq)
        self.closed = True
        for connection in self._connections():
            connection.send(p.error_message("moved", "this room is now held elsewhere: "
                                                     "reconnect"))
            connection.close(CLOSE_MOVED)

    def _apply(self, entry: LogEntry) -> list[Event]:
        self.seq = entry.seq + 1
        if entry.kind not in ("refused", "seeded"):  # these change nothing anyone sees
            self.version += 1
        handler = getattr(self, f"_apply_{entry.kind}")
        events: list[Event] = handler(entry.at, entry.data)
        if "ack" in entry.data:
            seat, action_id = entry.data["ack"]
            self._remember(seat, action_id, p.ack_message(action_id, self.version))
        return events

    async def _refuse(self, seat: int, action_id: str, reply: dict[str, Any]) -> str:
        """Store a refusal under its message id before answering, so that a retry, even
        after a restart, gets the same answer instead of being judged again (exactly
        once). The per-socket rate limit bounds how many a client can make us store."""
        entry = LogEntry(self.seq, self.clock(), "refused",
                         {"seat": seat, "id": action_id, "reply": reply})
        try:
            await self.store.append(self.code, [entry])
        except LogConflict:
            self._let_go()
            return dumps(reply)
        except StoreError:  # the answer still goes out; only a restart would forget it
            return self._remember(seat, action_id, reply)
        self._apply(entry)
        await self._forget_old_refusals(seat)
        return self.seats[seat].replies[action_id]

    async def _forget_old_refusals(self, seat: int) -> None:
        """Keep the stored refusals of a seat bounded: only the last REFUSALS_STORED can
        still be asked for again (the seat remembers no more answers than that), so older
        ones are deleted from the log, a batch at a time."""
        stored = self.stored_refusals.get(seat)
        if stored is None or len(stored) < REFUSALS_STORED + 64:
            return
        old = [stored.popleft() for _ in range(len(stored) - REFUSALS_STORED)]
        try:
            await self.store.forget_entries(self.code, old)
        except StoreError:  # kept a little longer; the next batch tries again
            stored.extendleft(reversed(old))

    def _apply_refused(self, at: float, data: dict[str, Any]) -> list[Event]:
        self._remember(data["seat"], data["id"], data["reply"])
        self.stored_refusals.setdefault(data["seat"], deque()).append(self.seq - 1)
        return []

    def _apply_created(self, at: float, data: dict[str, Any]) -> list[Event]:
        self.created_at = at
        self.rules = Rules.from_json(data["rules"])
        self.seats = [Seat(kind=s["kind"], level=s.get("level", "normal")) for s in data["seats"]]
        for seat in self.seats:
            if seat.kind == "bot":
                seat.name = self._bot_name(seat)
        self.timer = data["timer"]
        self.public = data["public"]
        self.quick = data.get("quick", False)
        self.invite = data.get("invite", "")
        self.show_lost_dice = data.get("show_lost_dice", True)
        if self.quick:
            self.fill_at = at + self.config.quick_fill
        return []

    def _apply_joined(self, at: float, data: dict[str, Any]) -> list[Event]:
        seat = self.seats[data["seat"]]
        seat.kind, seat.name, seat.token_hash = "human", data["name"], data["token_hash"]
        seat.away_since = None
        return []

    def _apply_removed(self, at: float, data: dict[str, Any]) -> list[Event]:
        seat = self.seats[data["seat"]]
        for connection in list(seat.connections):
            connection.send(p.error_message("removed", "the host gave your seat to someone "
                                                       "else: you can watch"))
            connection.close(CLOSE_REMOVED)
        self.seats[data["seat"]] = Seat()  # open again; the old token holds nothing
        return []

    def _apply_configured(self, at: float, data: dict[str, Any]) -> list[Event]:
        if "rules" in data:
            self.rules = Rules.from_json(data["rules"])
        if "timer" in data:
            self.timer = data["timer"]
        if "public" in data:
            self.public = data["public"]
        if "locked" in data:
            self.locked = data["locked"]
        if "show_lost_dice" in data:
            self.show_lost_dice = data["show_lost_dice"]
        if "seats" in data:
            for seat, setting in zip(self.seats, data["seats"], strict=False):
                if setting is None or seat.kind == "human":
                    continue
                seat.kind = setting["kind"]
                seat.level = setting.get("level", "normal")
                seat.bot = None
                seat.name = self._bot_name(seat) if seat.kind == "bot" else ""
        return []

    def _apply_started(self, at: float, data: dict[str, Any]) -> list[Event]:
        self.status = "playing"
        self.game_number = data["game"]
        self.game_id = data["game_id"]
        self.first_opener = data["first_opener"]
        self.fill_at = None
        players = len(self.seats)
        self.game = Game(self.rules, players, opener=data["first_opener"])
        self.fair = Fair(1, data["commitment"], data["server_seed"])
        self.revealed = []
        self.roll_at = at + self.config.seed_window
        self.deadline = None
        return [self.game.round_header()]

    _apply_rematch = _apply_started

    def _apply_seeded(self, at: float, data: dict[str, Any]) -> list[Event]:
        self.seats[data["seat"]].seed = data["seed"]
        return []

    def _apply_rolled(self, at: float, data: dict[str, Any]) -> list[Event]:
        game, fair = self.game, self.fair
        assert game is not None and fair is not None
        cups = self.deal(fair.server_seed, data["seat_seeds"], game.round_number,
                         game.dice_counts)
        game.roll(cups)
        fair.seat_seeds = list(data["seat_seeds"])
        # Logs written before seat seeds were bound to the server seed have no list.
        fair.server_seats = list(data.get("server_seats", []))
        for seat in self.seats:
            seat.seed = None  # a seed counts for one round
        self.roll_at = None
        self._turn_begins(at)
        return []

    def _apply_action(self, at: float, data: dict[str, Any]) -> list[Event]:
        game = self.game
        assert game is not None
        seat = data["seat"]
        action = action_from_json(data["action"])
        events = game.apply(seat, action)
        if data.get("id"):
            self._remember(seat, data["id"], p.ack_message(data["id"], self.version))
        if game.phase is not Phase.BIDDING:
            self._round_ends(at, data)
        else:
            self._turn_begins(at)
        return events

    def _round_ends(self, at: float, data: dict[str, Any]) -> None:
        game, fair = self.game, self.fair
        assert game is not None and fair is not None
        self.revealed.append({"round": fair.round, "commitment": fair.commitment,
                              "server_seed": fair.server_seed, "seat_seeds": fair.seat_seeds,
                              "server_seats": fair.server_seats})
        self.deadline = None
        if game.phase is Phase.OVER:
            self.status = "over"
            self.fair = None
            self.roll_at = None
        else:
            following = data["next"]
            self.fair = Fair(game.round_number, following["commitment"],
                             following["server_seed"])
            self.roll_at = at + self.config.reveal_pause

    def _turn_begins(self, at: float) -> None:
        self.turn_started = at
        self.deadline = at + self.timer if self.timer else None

    def _remember(self, seat: int, action_id: str, reply: dict[str, Any] | str) -> str:
        """Keep the answer to a message id (exactly once); returns it as JSON text."""
        text = reply if isinstance(reply, str) else dumps(reply)
        replies = self.seats[seat].replies
        replies[action_id] = text
        while len(replies) > REPLIES_KEPT:
            replies.popitem(last=False)
        return text

    def _bot_name(self, seat: Seat) -> str:
        """A persona's name no other seat at the table uses."""
        taken = {skeleton(other.name) for other in self.seats if other is not seat}
        index = self.seats.index(seat)
        personas = list(getattr(LEVELS[seat.level], "personas", ()))
        if not personas:
            return f"Bot {index + 1}"
        for shift in range(len(personas)):
            name: str = personas[(index + shift) % len(personas)].name
            if skeleton(name) not in taken:
                return name
        return f"{personas[index % len(personas)].name} {index + 1}"

    # -- the actor loop -------------------------------------------------------------------

    async def _run(self) -> None:
        while not self.closed:
            command = None
            if not self.inbox.empty():
                command = self.inbox.get_nowait()
            else:
                due = self._next_due()
                if due is None:  # nothing timed: no timeout to set up per wait
                    command = await self.inbox.get()
                else:
                    loop = asyncio.get_running_loop()
                    try:
                        async with asyncio.timeout_at(loop.time() + max(0.0, due - self.clock())):
                            command = await self.inbox.get()
                    except TimeoutError:
                        command = None
            try:
                if command is not None:
                    await self._handle(command)
                if not self.closed:  # stopped by that command: nothing more of ours
                    await self._run_due()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug must not take the room down with it
                kind = str(command[0]) if command else "timer"
                log.exception("room error", extra={"fields": {
                    "event": "room_error", "room": self.code, "command": kind}})
                if command is not None and isinstance(command[-1], asyncio.Future):
                    future = command[-1]
                    if not future.done():
                        future.set_exception(RoomError("internal", "internal error"))

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
        if kind == "message":
            _, connection, message = command
            await self._on_message(connection, message)
        elif kind == "connect":
            _, connection = command
            self._on_connect(connection)
        elif kind == "disconnect":
            _, connection = command
            self._on_disconnect(connection)
        elif kind == "join":
            _, name, invite, future = command
            try:
                future.set_result(await self._join(name, invite))
            except RoomError as error:
                future.set_exception(error)
        elif kind == "summary":
            _, future = command
            future.set_result(self.summary())
        elif kind == "stop":
            _, future = command
            self.closed = True
            future.set_result(None)

    # -- people arriving and leaving ------------------------------------------------------

    def seat_of(self, token: str) -> int | None:
        """The seat a token holds (compared in constant time), or None."""
        wanted = hash_token(token)
        found = None
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, wanted):
                found = index
        return found

    async def _join(self, name: str, invite: str | None = None) -> dict[str, Any]:
        # Between games (after the game is over) open seats take players too: a spectator
        # can sit down for the rematch.
        if self.status == "playing":
            raise RoomError("started", "the game has already started: watch, or wait for "
                                       "a rematch")
        if self.locked and not (invite and self.invite
                                and hmac.compare_digest(invite, self.invite)):
            raise RoomError("locked", "the host has locked this room: ask them for the "
                                      "invite link")
        open_seats = [index for index, seat in enumerate(self.seats) if seat.kind == "open"]
        if not open_seats:
            raise RoomError("full", "the table is full")
        token = secrets.token_urlsafe(24)
        seat = open_seats[0]
        name = distinct_name(name, [other.name for other in self.seats if other.name])
        await self._commit("joined", {"seat": seat, "name": name,
                                      "token_hash": hash_token(token)})
        self._broadcast([])
        if self.quick and not any(s.kind == "open" for s in self.seats):
            await self._start_game()
        return {"code": self.code, "seat": seat, "token": token, "name": name}

    def idle(self, now: float) -> bool:
        """Whether no player has been here for long enough to close the room: a few
        minutes for a lobby nobody sits in, a while after its game ended, much longer
        before or during one. Spectators do not keep a room open (they are told it
        closed); players at their seats do."""
        if any(seat.connections for seat in self.seats):
            return False
        if self.status == "over":
            limit = self.config.close_after_game
        elif self.status == "lobby":
            limit = self.config.close_empty_lobby
        else:
            limit = self.config.close_when_idle
        return now - self.last_activity >= limit

    def _on_connect(self, connection: Connection) -> None:
        """Greet a socket with its state. Only a seat coming back changes what others see
        (it is connected again), so only that is broadcast: a spectator joining costs the
        room one message, however many watch already."""
        if connection.seat is None:
            if len(self.spectators) >= self.config.max_spectators:
                connection.send(p.error_message(
                    "watchers_full", f"{self.config.max_spectators} people are watching "
                                     "this room already: try again later"))
                connection.close(CLOSE_WATCHERS_FULL)
                return
            self.spectators.add(connection)
            connection.send(self._state_text(None, self._shared_json([])))
            return
        seat = self.seats[connection.seat]
        returning = not seat.connections
        if len(seat.connections) >= SOCKETS_PER_SEAT:
            oldest = min(seat.connections, key=lambda other: other.opened)
            oldest.send(p.error_message("replaced", "this seat was opened elsewhere"))
            oldest.close(CLOSE_REPLACED)
            seat.connections.discard(oldest)
        seat.connections.add(connection)
        seat.away_since = None
        connection.send(self._state_text(connection.seat, self._shared_json([])))
        if returning:
            self._broadcast([], skip=connection)

    def _on_disconnect(self, connection: Connection) -> None:
        connection.close()
        if connection.seat is None:
            self.spectators.discard(connection)
            return
        seat = self.seats[connection.seat]
        seat.connections.discard(connection)
        if not seat.connections:
            seat.away_since = self.clock()
            self._broadcast([])

    # -- messages ---------------------------------------------------------------------------

    async def _on_message(self, connection: Connection, message: Any) -> None:
        seat = connection.seat
        action_id = getattr(message, "id", None)
        if isinstance(message, p.PingMessage):
            connection.send({"type": "pong", "v": p.PROTOCOL_VERSION, "version": self.version})
            return
        if seat is None:
            connection.send(p.error_message("spectator", "spectators cannot act", action_id))
            return
        if action_id is not None and action_id in self.seats[seat].replies:
            connection.send(self.seats[seat].replies[action_id])  # exactly once
            return
        try:
            acknowledged = await self._act(connection, seat, message)
        except RoomError as error:
            reply = p.error_message(error.code, str(error), action_id)
            connection.send(await self._refuse(seat, action_id, reply)
                            if action_id is not None else reply)
            return
        if acknowledged and action_id is not None:
            text = self.seats[seat].replies.get(action_id) or self._remember(
                seat, action_id, p.ack_message(action_id, self.version))
            connection.send(text)

    async def _act(self, connection: Connection, seat: int, message: Any) -> bool:
        """Carry out a message; True if it still needs its ``ack`` (bids and calls are
        acknowledged as they are applied, so a replayed log remembers them too)."""
        if isinstance(message, p.SeedMessage):
            await self._seed(seat, message)
            return False
        if isinstance(message, p.EmoteMessage):
            now = self.clock()
            if now - self.seats[seat].last_emote < self.config.emote_interval:
                raise RoomError("rate_limited", "one reaction at a time, please")
            self.seats[seat].last_emote = now
            for other in self._connections():
                other.send({"type": "emote", "v": p.PROTOCOL_VERSION, "seat": seat,
                            "emote": message.emote})
            return False
        if isinstance(message, p.BidMessage | p.CallMessage):
            action: Action = (Bid(message.quantity, message.face)
                              if isinstance(message, p.BidMessage) else Call(message.call))
            if message.version is not None and message.version != self.version:
                raise RoomError("stale", f"the table changed (version {self.version}); "
                                         "look again before acting")
            await self._play(seat, action, message.id, "player")
            return False
        if isinstance(message, p.NextRoundMessage):
            if self.game is None or self.game.phase is not Phase.ROLL or self.status != "playing":
                raise RoomError("not_now", "there is no round waiting to be rolled")
            await self._roll(ack=(seat, message.id))
            return True
        if isinstance(message, p.StartMessage):
            self._require_host(seat, "start the game")
            if self.status != "lobby":
                raise RoomError("not_now", "the game has already started")
            if any(s.kind == "open" for s in self.seats):
                raise RoomError("not_ready", "every seat needs a player or a bot: fill the "
                                             "open seats with bots or wait for friends")
            await self._start_game(ack=(seat, message.id))
            return True
        if isinstance(message, p.RematchMessage):
            if self.status != "over":
                raise RoomError("not_now", "a rematch is for after the game")
            if any(s.kind == "open" for s in self.seats):
                raise RoomError("not_ready", "every seat needs a player or a bot: fill the "
                                             "open seats with bots or wait for friends")
            await self._start_game(rematch=True, ack=(seat, message.id))
            return True
        if isinstance(message, p.ConfigureMessage):
            self._require_host(seat, "change the room")
            if self.status == "playing":
                raise RoomError("not_now", "the room can change only before a game or "
                                           "between games")
            await self._configure(message, ack=(seat, message.id))
            return True
        if isinstance(message, p.RemoveMessage):
            self._require_host(seat, "remove a player")
            if self.status == "playing":
                raise RoomError("not_now", "players can be removed only before a game or "
                                           "between games")
            if message.seat >= len(self.seats) or self.seats[message.seat].kind != "human":
                raise RoomError("bad_seats", f"seat {message.seat} holds no player")
            await self._commit("removed", {"seat": message.seat}, (seat, message.id))
            self._broadcast([])
            return True
        raise RoomError("unknown_type", f"{type(message).__name__} is not handled")

    def _require_host(self, seat: int, what: str) -> None:
        if seat != 0:
            raise RoomError("not_host", f"only the host may {what}")

    async def _configure(self, message: p.ConfigureMessage,
                         ack: tuple[int, str] | None = None) -> None:
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
        if message.show_lost_dice is not None:
            data["show_lost_dice"] = message.show_lost_dice
        if message.seats is not None:
            if len(message.seats) != len(self.seats):
                raise RoomError("bad_seats", f"seats lists {len(message.seats)} entries for "
                                             f"{len(self.seats)} seats")
            for index, setting in enumerate(message.seats):
                if setting is not None and self.seats[index].kind == "human":
                    raise RoomError("bad_seats", f"seat {index} belongs to a player")
            data["seats"] = [None if s is None else s.model_dump() for s in message.seats]
        if data:
            await self._commit("configured", data, ack)
            self._broadcast([])

    # -- playing ----------------------------------------------------------------------------

    async def _play(self, seat: int, action: Action, action_id: str | None, by: str) -> None:
        game = self.game
        if game is None or self.status != "playing":
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
            data["next"] = {"server_seed": seed, "commitment": commitment(seed)}
        events = await self._commit("action", data)
        if action_id is not None:
            ack = self.seats[seat].replies[action_id]  # remembered as the entry was applied
            for connection in self.seats[seat].connections:
                connection.send(ack)
        # A move the player did not make is marked, so the table can say so: a bot
        # standing in for an absent player, or the turn timer running out.
        moved_by = ("timer" if by == "timer" else
                    "stand_in" if by == "bot" and self.seats[seat].kind == "human" else None)
        self._broadcast(events, moved_by=moved_by)
        if any(isinstance(event, GameOver) for event in events):
            await self._save_game()
            log_event(log, "game_over", room=self.code, game_id=self.game_id,
                      rounds=self.game.round_number if self.game else None,
                      winners=list(self.game.winners) if self.game else [])

    async def _seed(self, seat: int, message: p.SeedMessage) -> None:
        """Take a seat's seed for the round named in the message, logged before it is
        acknowledged (a seed the server accepted is used even after a crash). Only the
        round whose commitment is out and whose dice are not dealt takes seeds: a seed for
        a later round would reach the server before it commits to that round's seed."""
        try:
            seed = check_seat_seed(message.seed)
        except FairnessError as error:
            raise RoomError("bad_seed", str(error)) from None
        game, fair = self.game, self.fair
        if self.status != "playing" or game is None or fair is None:
            raise RoomError("wrong_round", "no round is waiting for seeds")
        if game.phase is not Phase.ROLL or message.round != fair.round:
            waiting = (f"round {fair.round} is waiting for seeds" if game.phase is Phase.ROLL
                       else "no round is waiting for seeds")
            raise RoomError("wrong_round", f"round {message.round} takes no seeds now "
                                           f"({waiting})")
        action_id = message.id
        await self._commit("seeded", {"seat": seat, "round": message.round, "seed": seed},
                           None if action_id is None else (seat, action_id))
        if action_id is not None:
            for connection in self.seats[seat].connections:
                connection.send(self.seats[seat].replies[action_id])

    async def _roll(self, ack: tuple[int, str] | None = None) -> None:
        """Deal the round: each seat's seed if it sent one, otherwise a seed derived from
        the committed server seed (never a free draw: see dudo.fairness)."""
        game, fair = self.game, self.fair
        assert game is not None and fair is not None
        seeds: list[str] = []
        server_seats: list[int] = []
        for index, seat in enumerate(self.seats):
            if seat.seed is None:
                server_seats.append(index)
                seeds.append(server_seat_seed(fair.server_seed, fair.round, index))
            else:
                seeds.append(seat.seed)
        await self._commit("rolled", {"seat_seeds": seeds, "server_seats": server_seats}, ack)
        self._broadcast([])

    async def _start_game(self, rematch: bool = False,
                          ack: tuple[int, str] | None = None) -> None:
        seed = self.entropy(32)
        how = self.rules.first_opener
        players = len(self.seats)
        if how == "host":
            opener = 0
        elif how == "rotate":
            opener = 0 if self.first_opener is None else (self.first_opener + 1) % players
        else:
            opener = int(self.entropy(8), 16) % players
        log_event(log, "game_started", room=self.code, game=self.game_number + 1,
                  seats=[seat.kind for seat in self.seats], rules=self.rules.to_overrides())
        await self._commit("rematch" if rematch else "started", {
            "game": self.game_number + 1, "game_id": self.entropy(16),
            "first_opener": opener, "server_seed": seed, "commitment": commitment(seed)}, ack)
        self._broadcast([])

    async def _save_game(self) -> None:
        if self.game is None:
            return
        await self.store.save_game(self.game_id, self.code, self.record())

    def record(self) -> dict[str, Any]:
        """The finished (or running) game's record, fairness material of finished rounds
        included: what ``dudo verify`` checks."""
        assert self.game is not None
        record = self.game.record()
        record["game_id"] = self.game_id
        record["room"] = self.code
        record["names"] = [seat.name for seat in self.seats]
        record["bots"] = [index for index, seat in enumerate(self.seats) if seat.kind == "bot"]
        record["fairness"] = list(self.revealed)
        return record

    # -- clocks and bots ----------------------------------------------------------------------

    def _controlled_by_bot(self, index: int, now: float) -> bool:
        seat = self.seats[index]
        if seat.kind == "bot":
            return True
        return (seat.kind == "human" and seat.away_since is not None
                and now - seat.away_since >= self.config.grace)

    def _next_due(self) -> float | None:
        if self.status == "lobby":
            return self.fill_at
        game = self.game
        if self.status != "playing" or game is None:
            return None
        if game.phase is Phase.ROLL:
            return self.roll_at
        if game.phase is not Phase.BIDDING:
            return None
        if self.calza_checked != len(game.bids):
            return self.clock()
        seat = self.seats[game.turn]
        times = []
        if seat.kind == "bot":
            times.append(self.turn_started + self.config.bot_delay)
        elif seat.away_since is not None:
            times.append(max(seat.away_since + self.config.grace,
                             self.turn_started + self.config.bot_delay))
        if self.deadline is not None and seat.kind != "bot":
            times.append(self.deadline)
        return min(times) if times else None

    async def _run_due(self) -> None:
        now = self.clock()
        if self.status == "lobby":
            if self.fill_at is not None and now >= self.fill_at:
                await self._fill_with_bots()
            return
        game = self.game
        if self.status != "playing" or game is None:
            return
        if game.phase is Phase.ROLL:
            if self.roll_at is not None and now >= self.roll_at:
                await self._roll()
            return
        if game.phase is not Phase.BIDDING:
            return
        if self.calza_checked != len(game.bids):
            self.calza_checked = len(game.bids)
            for index in out_of_turn_seats(game):
                if (self._controlled_by_bot(index, now) and index != game.turn
                        and self._bot_for(index).act(view(game, index)) is CALZA):
                    await self._play(index, CALZA, None, "bot")
                    return
        index = game.turn
        by = None
        if (self._controlled_by_bot(index, now)
                and now >= self.turn_started + self.config.bot_delay):
            by = "bot"
        if by is None and self.deadline is not None and now >= self.deadline:
            by = "timer"
        if by is not None:
            action = self._bot_for(index).act(view(game, index))
            if action is None or action not in game.legal_actions(index):
                legal = game.legal_actions(index)
                action = DUDO if DUDO in legal else legal[0]
            await self._play(index, action, None, by)

    def _bot_for(self, index: int) -> Bot:
        seat = self.seats[index]
        if seat.bot is None:
            level = seat.level if seat.kind == "bot" else "normal"
            seat.bot = make_bot(level, seed=int(self.entropy(4), 16))
        return seat.bot

    async def _fill_with_bots(self) -> None:
        self.fill_at = None
        levels = ["easy", "normal", "normal", "hard", "easy"]
        seats = [None if seat.kind != "open" else {"kind": "bot", "level": levels[i % 5]}
                 for i, seat in enumerate(self.seats)]
        if any(seats):
            await self._commit("configured", {"seats": seats})
        if any(seat.kind == "human" for seat in self.seats):
            await self._start_game()
        else:
            self._broadcast([])

    # -- what people are told ------------------------------------------------------------------

    def _connections(self) -> list[Connection]:
        found = list(self.spectators)
        for seat in self.seats:
            found.extend(seat.connections)
        return found

    def _broadcast(self, events: list[Event], skip: Connection | None = None,
                   moved_by: str | None = None) -> None:
        """Send every connection its own state: one view per seat, one for spectators.

        The parts every recipient shares (room, events, clocks, fairness) are encoded once
        per broadcast; only the game view is encoded per seat.
        """
        connections = self._connections()
        if not connections:
            return
        shared = self._shared_json(events, moved_by)
        cache: dict[int | None, str] = {}
        for connection in connections:
            if connection is skip:
                continue
            text = cache.get(connection.seat)
            if text is None:
                text = self._state_text(connection.seat, shared)
                cache[connection.seat] = text
            connection.send(text)

    def summary(self) -> dict[str, Any]:
        """What anyone with the code may know about the room (no dice, no tokens)."""
        now = self.clock()
        if self._rules_json[0] is not self.rules:
            self._rules_json = (self.rules, self.rules.to_json())
        return {
            "code": self.code, "status": self.status, "public": self.public,
            "quick": self.quick, "timer": self.timer, "rules": self._rules_json[1],
            "seats": [seat.public(now, self.config.grace) for seat in self.seats],
            "host": 0, "game": self.game_number, "spectators": len(self.spectators),
            "locked": self.locked, "show_lost_dice": self.show_lost_dice,
        }

    def _shared_json(self, events: list[Event], moved_by: str | None = None) -> str:
        """The recipient-independent members of a state message, as JSON text.
        ``moved_by`` marks the action's own event (a bid, or a call's reveal)."""
        encoded = [event_json(event) for event in events]
        if moved_by is not None:
            for data in encoded:
                if data["event"] in ("bid", "reveal"):
                    data["by"] = moved_by
                    break
        shared: dict[str, Any] = {"room": self.summary(), "events": encoded}
        if self.game is not None:
            fair = self.fair
            shared["deadline"] = self.deadline
            shared["roll_at"] = self.roll_at
            shared["fair"] = {
                "game_id": self.game_id,
                "round": fair.round if fair else None,
                "commitment": fair.commitment if fair else None,
                "last_revealed": self.revealed[-1] if self.revealed else None,
            }
        return dumps(shared)[1:-1]

    def _state_text(self, seat: int | None, shared: str) -> str:
        """The full state for one recipient: the shared part plus its own game view."""
        you = _YOU_SPECTATOR if seat is None else (
            f'{{"seat":0,"role":"player","host":true,"invite":"{self.invite}"}}'
            if seat == 0 else f'{{"seat":{seat},"role":"player","host":false}}')
        game = "null" if self.game is None else dumps(view(self.game, seat).to_json())
        return (f'{{"type":"state","v":{p.PROTOCOL_VERSION},"version":{self.version},'
                f'"you":{you},{shared},"game":{game}}}')

    def state_for(self, seat: int | None, events: list[Event] = ()) -> dict[str, Any]:  # type: ignore[assignment]
        """The state message for one recipient, as a dict (what :meth:`_broadcast` sends)."""
        state: dict[str, Any] = json.loads(self._state_text(seat, self._shared_json(list(events))))
        return state


_YOU_SPECTATOR = '{"seat":null,"role":"spectator","host":false}'


def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Bid):
        return {"bid": [action.quantity, action.face]}
    return {"call": action.value}


def action_from_json(data: dict[str, Any]) -> Action:
    if "bid" in data:
        quantity, face = data["bid"]
        return Bid(quantity, face)
    return Call(data["call"])


def event_json(event: Event) -> dict[str, Any]:
    """An engine event for clients; a reveal also carries every cup (it is the reveal)."""
    data = event.to_json()
    if isinstance(event, Revealed):
        data["cups"] = [list(cup) for cup in event.cups]
        data["loser"] = event.loser
        data["change"] = event.change
        data["wild"] = event.wild
    return data
