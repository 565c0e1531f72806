"""A room's log, as the room writes it: commit before anyone hears, and ride out outages.

The :class:`Journal` is the room's one writer to its store. An entry is stored first and
applied to the state (:meth:`RoomState.apply`) only once the store has it, so nobody hears of
a change that is not stored. While the store fails, the journal backs off (one warning per
outage, through the shared :class:`~dudo.server.outage.StoreHealth`) and the room answers
``unavailable``; before writing again it takes back whatever of ours landed all the same,
so a message is judged on what the log holds, exactly once. Refusals are stored under their
message id too, and a finished game's record is saved (again after a crash: idempotent),
then entered for the profiles (``after_game``), retried under a backoff until the book
takes it (idempotent too: counted and rated exactly once).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from dudo.server import protocol as p
from dudo.server.logs import log_event
from dudo.server.outage import Backoff, StoreHealth, settled_within, within
from dudo.server.table.connection import dumps
from dudo.server.table.errors import RoomError, unavailable
from dudo.server.table.state import REPLIES_KEPT, RoomConfig, RoomEvent, RoomState
from dudo.store import LogConflict, LogEntry, Store

log = logging.getLogger("dudo.room")

REFUSALS_STORED = REPLIES_KEPT  # per seat; older stored refusals are deleted in batches


class Journal:
    """Writes one room's log and keeps its state in step with it."""

    def __init__(
        self,
        code: str,
        store: Store,
        config: RoomConfig,
        state: RoomState,
        clock: Callable[[], float],
        health: StoreHealth,
        lost: Callable[[], None],
    ) -> None:
        self.code = code
        self.store = store
        self.config = config
        self.state = state
        self.clock = clock
        # The database's health, shared by the lobby's rooms (one log line per outage),
        # and this room's own backoff while its writes fail (None: they work).
        self.health = health
        self.backoff: Backoff | None = None
        self.record_unsaved = False
        # Finished games saved but not yet taken by the profile book (game id -> record,
        # each seat's profile, the series), and the backoff of its tries while it fails.
        self.unentered: dict[str, tuple[dict[str, Any], list[str | None], float]] = {}
        self.entering: Backoff | None = None
        # Called when another writer appended to our log first (two processes on one
        # database, or a node that lost its lease): the room stops and sends its sockets
        # away (nothing of ours was stored).
        self.lost = lost

    async def commit(
        self, kind: str, data: dict[str, Any], ack: tuple[int, str] | None = None
    ) -> list[RoomEvent]:
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
        return self.apply(entry)

    def apply(self, entry: LogEntry) -> list[RoomEvent]:
        """Apply a stored (or replayed) entry to the state, and keep the answers to the
        messages it answered, as their JSON text (remembered across restarts: the log
        holds them)."""
        events = self.state.apply(entry)
        for answered in self.state.answered:
            reply = answered.reply
            if reply is None:
                reply = p.ack_message(answered.action_id, answered.version)
            self.remember(answered.seat, answered.action_id, reply)
        self.state.answered.clear()
        return events

    def remember(self, seat: int, action_id: str, reply: dict[str, Any] | str) -> str:
        """Keep the answer to a message id (exactly once); returns it as JSON text."""
        text = reply if isinstance(reply, str) else dumps(reply)
        replies = self.state.seats[seat].replies
        replies[action_id] = text
        while len(replies) > REPLIES_KEPT:
            replies.popitem(last=False)
        return text

    async def _store(self, entry: LogEntry) -> None:
        """Append one entry, waiting at most ``write_patience``: on failure the room backs
        off and the caller gets ``unavailable`` (a write that timed out is kept as in
        flight: it may still land, see :meth:`_recover`)."""
        # A store that queues appends (SqlStore.submit) hands back its future: no task
        # per commit. Any other store's append runs as a task.
        submit = getattr(self.store, "submit", None)
        write: asyncio.Future[None] | None = None
        try:
            write = (
                submit(self.code, [entry])
                if submit is not None
                else asyncio.ensure_future(self.store.append(self.code, [entry]))
            )
            if not await settled_within(write, self.config.write_patience):
                raise TimeoutError(f"the store took over {self.config.write_patience} s")
            write.result()
        except LogConflict:
            self.lost()
            raise RoomError("moved", "this room is now held elsewhere: reconnect") from None
        except Exception as error:  # StoreError, a driver's own, or TimeoutError
            backoff = self.backoff = self.backoff or Backoff()
            backoff.failed(asyncio.get_running_loop().time())
            backoff.unconfirmed.append(entry)  # it may have landed all the same
            if write is not None and not write.done():
                backoff.inflight = write
            elif write is not None:
                write.exception()  # (retrieved: it is handled here)
            self.health.failed(self.code, error)
            raise unavailable() from None
        if self.backoff is not None:
            self.backoff = None
            if self.record_unsaved:
                await self.save_game()
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
            ours = {
                (entry.seq, entry.kind, entry.at, entry.data_json())
                for entry in backoff.unconfirmed
            }
            if any(
                (entry.seq, entry.kind, entry.at, entry.data_json()) not in ours for entry in beyond
            ):
                self.lost()
                raise RoomError("moved", "this room is now held elsewhere: reconnect")
            if beyond:
                await within(
                    self.store.forget_entries(self.code, [entry.seq for entry in beyond]), patience
                )
                log_event(
                    log, "writes_taken_back", room=self.code, kinds=[entry.kind for entry in beyond]
                )
        except RoomError:
            raise
        except Exception as error:
            backoff.failed(now)
            self.health.failed(self.code, error)
            raise unavailable() from None
        backoff.unconfirmed.clear()

    async def settle(self) -> bool:
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
            await self.save_game()
        return True

    async def refuse(self, seat: int, action_id: str, reply: dict[str, Any]) -> str:
        """Store a refusal under its message id before answering, so that a retry, even
        after a restart, gets the same answer instead of being judged again (exactly
        once). The per-socket rate limit bounds how many a client can make us store."""
        try:
            if self.backoff is not None:
                await self._recover()
            entry = LogEntry(
                self.state.seq,
                self.clock(),
                "refused",
                {"seat": seat, "id": action_id, "reply": reply},
            )
            await self._store(entry)
        except RoomError as error:
            if error.code == "moved":
                return dumps(reply)
            # The answer still goes out; only a restart would forget it.
            return self.remember(seat, action_id, reply)
        self.apply(entry)
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

    async def save_game(self) -> None:
        """Keep the finished game's record; if the store is away, keep trying (after the
        backoff) until it takes it (saving twice changes nothing). Once it is kept, the
        game is entered for the profiles (:meth:`enter_games`)."""
        if self.state.game is None:
            return
        record = self.state.record()
        try:
            await within(
                self.store.save_game(self.state.game_id, self.code, record),
                self.config.write_patience,
            )
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
        if self.config.after_game is not None:
            profiles = [seat.profile for seat in self.state.seats]
            self.unentered[self.state.game_id] = (record, profiles, self.state.created_at)
            await self.enter_games()

    async def enter_games(self) -> None:
        """Tell the profile book (``after_game``) of the finished games it has not taken
        yet. A failure (the database away just after the record was saved) is retried
        under a backoff of its own, spaced as the writes' (0.25 s doubling to 5 s), and
        counted in the shared :class:`StoreHealth` (one warning per outage); the room's
        loop calls this again when the next try is due (:meth:`entry_due`). Entering is
        idempotent (the game id and the ratings are one transaction), so a try that
        timed out yet landed makes the next one change nothing: each game is counted and
        rated exactly once. The room stays open while a game waits (see Room.idle)."""
        after = self.config.after_game
        if after is None or not self.unentered:
            return
        now = asyncio.get_running_loop().time()
        backoff = self.entering
        if backoff is not None and not backoff.ready(now):
            return
        for game_id, (record, profiles, series) in list(self.unentered.items()):
            try:
                await within(after(record, profiles, series), self.config.write_patience)
            except Exception as error:
                backoff = self.entering = self.entering or Backoff()
                backoff.failed(now)
                self.health.failed(self.code, error)
                return
            del self.unentered[game_id]
            if backoff is not None:
                log_event(log, "game_entered", room=self.code, game_id=game_id, tries=backoff.tries)
        self.entering = None
        self.health.succeeded()

    def entry_due(self) -> float | None:
        """When (loop time) the next try at entering a waiting game is due; None if no
        game waits."""
        if not self.unentered or self.config.after_game is None:
            return None
        return 0.0 if self.entering is None else self.entering.next_try
