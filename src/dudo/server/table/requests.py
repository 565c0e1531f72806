"""What the people at a room's table ask of it, judged: seats, messages, the host's say.

The :class:`Requests` of a room answer a join (the first open seat, under a name nobody
else at the table has) and every message a seat's socket sends, matched over the
protocol's closed set of client messages (:data:`dudo.server.protocol.AnyClientMessage`).
Each message is checked here (whose turn, who is host, when it may be done) and carried
out through the :class:`~dudo.server.table.dealer.Dealer` and the
:class:`~dudo.server.table.journal.Journal`; the answer to a message id is given once,
remembered and, if refused, stored, so a retry is answered the same even after a restart.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Callable
from typing import Any, assert_never

from dudo.bids import Bid
from dudo.game import Action, Call, Phase
from dudo.hands import Hand
from dudo.refusals import explain_bad_bid
from dudo.rules import Rules, RulesError
from dudo.server import protocol as p
from dudo.server.outage import RETRY_ADVICE
from dudo.server.table.audience import CLOSE_LEFT, CLOSE_REMOVED, Audience
from dudo.server.table.connection import Connection
from dudo.server.table.dealer import Dealer
from dudo.server.table.errors import RoomError
from dudo.server.table.journal import Journal
from dudo.server.table.names import clean_chat, distinct_name
from dudo.server.table.state import RoomConfig, RoomState, hash_token


class Requests:
    """Judges and carries out what one room's people ask."""

    def __init__(
        self,
        code: str,
        state: RoomState,
        config: RoomConfig,
        journal: Journal,
        dealer: Dealer,
        audience: Audience,
        clock: Callable[[], float],
        entropy: Callable[[int], str],
    ) -> None:
        self.code = code
        self.state = state
        self.config = config
        self.journal = journal
        self.dealer = dealer
        self.audience = audience
        self.clock = clock
        self.entropy = entropy

    # -- people arriving ----------------------------------------------------------------

    def invite_matches(self, invite: str | None) -> bool:
        """Whether ``invite`` is this room's invite key (compared in constant time, as
        bytes: compare_digest refuses text that is not ASCII)."""
        key = self.state.invite
        return bool(invite and key and hmac.compare_digest(invite.encode(), key.encode()))

    async def join(
        self, name: str, invite: str | None = None, profile: str | None = None
    ) -> dict[str, Any]:
        state = self.state
        # Between games (after the game is over) open seats take players too: a spectator
        # can sit down for the rematch.
        if state.status == "playing":
            raise RoomError("started", "the game has already started: watch, or wait for a rematch")
        if state.locked and not self.invite_matches(invite):
            raise RoomError("locked", "the host has locked this room: ask them for the invite link")
        open_seats = [index for index, seat in enumerate(state.seats) if seat.kind == "open"]
        if not open_seats:
            raise RoomError("full", "the table is full")
        token = secrets.token_urlsafe(24)
        seat = open_seats[0]
        # In the lobby a bot gives way: the player keeps their name and a bot that had it
        # takes another persona's (RoomState._apply_joined). Between games the bots' names
        # are in the games already played, so the newcomer's name gives way instead.
        taken = [
            other.name
            for other in state.seats
            if other.name and (other.kind != "bot" or state.status != "lobby")
        ]
        name = distinct_name(name, taken)
        joined: dict[str, Any] = {"seat": seat, "name": name, "token_hash": hash_token(token)}
        if profile is not None:  # a profile's public id (dudo.profiles), never its secret
            joined["profile"] = profile
        await self.journal.commit("joined", joined)
        self.audience.broadcast([])
        if state.quick and not any(s.kind == "open" for s in state.seats):
            await self.dealer.start_game()
        return {"code": self.code, "seat": seat, "token": token, "name": name}

    # -- messages -------------------------------------------------------------------------

    async def answer(self, connection: Connection, message: p.AnyClientMessage) -> None:
        seat = connection.seat
        action_id = p.message_id(message)
        if isinstance(message, p.PingMessage):  # anyone may ask, spectators too
            connection.send(
                {"type": "pong", "v": p.PROTOCOL_VERSION, "version": self.state.version}
            )
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
            reply = p.error_message(error.code, str(error), action_id, error.detail)
            if error.code == "unavailable":
                # Not remembered: the same id, sent again once the store is back, is
                # judged then (and answered exactly once).
                reply["retry_after"] = RETRY_ADVICE
                connection.send(reply)
            elif action_id is None:
                connection.send(reply)
            elif not error.stored:
                connection.send(self.journal.remember(seat, action_id, reply))
            else:
                connection.send(await self.journal.refuse(seat, action_id, reply))
            return
        if acknowledged and action_id is not None:
            text = self.state.seats[seat].replies.get(action_id) or self.journal.remember(
                seat, action_id, p.ack_message(action_id, self.state.version)
            )
            connection.send(text)

    async def _act(self, seat: int, message: p.AnyClientMessage) -> bool:
        """Carry out a message; True if it still needs its ``ack`` (bids and calls are
        acknowledged as they are applied, so a replayed log remembers them too)."""
        match message:
            case p.BidMessage() | p.CallMessage():
                await self._move(seat, message)
                return False
            case p.SeedMessage():
                await self.dealer.seed(seat, message)
                return False
            case p.EmoteMessage():
                self._emote(seat, message.emote)
                return False
            case p.ChatMessage():
                self._chat(seat, message.text)
                return False
            case p.LeaveMessage():
                await self._leave(seat, message.id)
                return False
            case p.NextRoundMessage():
                await self._next_round(seat, message.id)
            case p.StartMessage():
                await self._start(seat, message.id)
            case p.RematchMessage():
                await self._rematch(seat, message.id)
            case p.ConfigureMessage():
                await self._configure_room(seat, message)
            case p.RemoveMessage():
                await self._remove(seat, message)
            case p.PingMessage():  # answered before: it needs no seat
                return False
            case _:
                assert_never(message)
        return True

    async def _move(self, seat: int, message: p.BidMessage | p.CallMessage) -> None:
        """A bid or a call: read as the engine's action, then played if the player saw
        the table as it is."""
        state = self.state
        action: Action = (
            Call(message.call) if isinstance(message, p.CallMessage) else self._bid_of(message)
        )
        if message.version is not None and message.version != state.version:
            raise RoomError(
                "stale", f"the table changed (version {state.version}); look again before acting"
            )
        await self.dealer.play(seat, action, message.id, "player")

    def _bid_of(self, message: p.BidMessage) -> Bid | Hand:
        """The bid a message names. A bid of the other form than the table's, or a hand
        that does not exist, is refused here (``bad_bid``, before the game is asked, so at
        any time) with the engine's detail (:func:`dudo.refusals.explain_bad_bid`), as any
        refused bid has; the message names the hand as sent, in JSON."""
        poker = self.state.rules.bids == "poker"
        bid: Bid | Hand
        if message.bid is not None:
            bid = Hand.from_json_lenient(message.bid.model_dump())
        else:
            assert message.quantity is not None and message.face is not None
            bid = Bid(message.quantity, message.face)
        if isinstance(bid, Bid) and poker:
            words = (
                "this table bids poker hands (Common Hand): send "
                'the hand as "bid", like {"hand": "pair", "faces": [3]}'
            )
        elif isinstance(bid, Hand) and not poker:
            words = "this table bids a quantity and a face, not a hand"
        elif isinstance(bid, Hand) and not bid.is_valid:
            assert message.bid is not None
            sent = json.dumps(message.bid.model_dump(exclude_unset=True))
            words = f"not a hand: {sent}: {bid.problem()}"
        else:
            return bid
        # A hand that does not exist can never be accepted: answered without a write (a
        # flood of them stores nothing). A bid of the other form could be, once the host
        # changes the rules between games: stored, as the rules' refusals are.
        never = isinstance(bid, Hand) and not bid.is_valid
        raise RoomError(
            "bad_bid",
            words,
            stored=not never,
            detail=explain_bad_bid(bid, poker=poker).to_json(),
        )

    def _emote(self, seat: int, emote: str) -> None:
        """A quick reaction to everyone at the table, one at a time per seat."""
        now = self.clock()
        if now - self.state.seats[seat].last_emote < self.config.emote_interval:
            raise RoomError("rate_limited", "one reaction at a time, please")
        self.state.seats[seat].last_emote = now
        self.audience.tell_everyone(
            {"type": "emote", "v": p.PROTOCOL_VERSION, "seat": seat, "emote": emote}
        )

    async def _next_round(self, seat: int, action_id: str) -> None:
        state = self.state
        if state.game is None or state.game.phase is not Phase.ROLL or state.status != "playing":
            raise RoomError("not_now", "there is no round waiting to be rolled")
        await self.dealer.roll(ack=(seat, action_id))

    async def _start(self, seat: int, action_id: str) -> None:
        self._require_host(seat, "start the game")
        if self.state.status != "lobby":
            raise RoomError("not_now", "the game has already started")
        self._require_full_table()
        await self.dealer.start_game(ack=(seat, action_id))

    async def _rematch(self, seat: int, action_id: str) -> None:
        if self.state.status != "over":
            raise RoomError("not_now", "a rematch is for after the game")
        self._require_full_table()
        await self.dealer.start_game(rematch=True, ack=(seat, action_id))

    def _require_full_table(self) -> None:
        if any(s.kind == "open" for s in self.state.seats):
            raise RoomError(
                "not_ready",
                "every seat needs a player or a bot: fill the "
                "open seats with bots or wait for friends",
            )

    async def _configure_room(self, seat: int, message: p.ConfigureMessage) -> None:
        self._require_host(seat, "change the room")
        changes = set(message.model_fields_set) - {"type", "id", "v"}
        talk_only = message.chat is not None and changes <= {"chat"}
        if self.state.status == "playing" and not talk_only:  # table talk: any time
            raise RoomError("not_now", "the room can change only before a game or between games")
        if self.state.quick and self.state.status == "lobby":
            # Its players were matched to these rules, timer and seats: until its first
            # game is over the host may only give open seats to bots (and start).
            if changes - {"chat", "seats"}:
                raise RoomError(
                    "not_now",
                    "a quick table's rules, timer and privacy are fixed until its first "
                    "game is over: only its open seats can go to bots",
                )
            for setting in message.seats or ():
                if setting is not None and setting.kind != "bot":
                    raise RoomError(
                        "bad_seats", "on a quick table an open seat can only go to a bot"
                    )
        await self._configure(message, ack=(seat, message.id))

    async def _remove(self, seat: int, message: p.RemoveMessage) -> None:
        state = self.state
        self._require_host(seat, "remove a player")
        if state.status == "playing":
            raise RoomError("not_now", "players can be removed only before a game or between games")
        if state.quick and state.status == "lobby":
            raise RoomError(
                "not_now", "nobody can be removed from a quick table before its first game"
            )
        if message.seat == seat:
            raise RoomError("bad_seats", "that is your own seat: to go, send leave")
        if message.seat >= len(state.seats) or state.seats[message.seat].kind != "human":
            raise RoomError("bad_seats", f"seat {message.seat} holds no player")
        # The entry opens the seat (a new Seat); its old sockets are told why they go.
        leaving = state.seats[message.seat].connections
        # A new invite key: the removed player's link (the host's) no longer lets
        # them back into a locked room; the host's state brings the new link.
        await self.journal.commit(
            "removed", {"seat": message.seat, "invite": self.entropy(16)}, (seat, message.id)
        )
        self.audience.send_away(
            p.error_message("removed", "the host gave your seat to someone else: you can watch"),
            CLOSE_REMOVED,
            list(leaving),
        )
        self.audience.broadcast([])

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
        self.audience.tell_everyone(
            {"type": "chat", "v": p.PROTOCOL_VERSION, "seat": seat, "text": line}
        )

    async def _leave(self, seat: int, action_id: str) -> None:
        """The player leaves: the seat opens (lobby), a bot plays it to the end of the game
        and keeps it (playing), or a bot takes it (between games). The seat's sockets get
        the ack, then close 4411 (one message: a closing socket drops what is still queued);
        its token holds nothing any more."""
        state = self.state
        leaving = list(state.seats[seat].connections)
        await self.journal.commit("left", {"seat": seat})
        self.audience.send_away(p.ack_message(action_id, state.version), CLOSE_LEFT, leaving)
        state.seats[seat].connections.difference_update(leaving)
        self.audience.broadcast([])

    def _require_host(self, seat: int, what: str) -> None:
        if seat != self.state.host_seat():
            raise RoomError("not_host", f"only the host may {what}")

    async def _configure(
        self, message: p.ConfigureMessage, ack: tuple[int, str] | None = None
    ) -> None:
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
                raise RoomError(
                    "bad_seats", f"seats lists {len(message.seats)} entries for {len(seats)} seats"
                )
            for index, setting in enumerate(message.seats):
                if setting is not None and seats[index].kind == "human":
                    raise RoomError("bad_seats", f"seat {index} belongs to a player")
            data["seats"] = [None if s is None else s.model_dump() for s in message.seats]
        data = self._changes(data)
        if data:
            await self.journal.commit("configured", data, ack)
            self.audience.broadcast([])

    def _changes(self, data: dict[str, Any]) -> dict[str, Any]:
        """What of a configure changes the room: a setting it already has is left out, so
        that a configure that changes nothing stores nothing and keeps the version (which
        players' bids may be conditioned on) where it was."""
        state = self.state
        now: dict[str, Any] = {
            "rules": state.rules.to_json(),
            "timer": state.timer,
            "public": state.public,
            "locked": state.locked,
            "show_lost_dice": state.show_lost_dice,
            "chat": state.chat,
        }
        changed = {key: value for key, value in data.items() if now.get(key, not value) != value}
        if "locked" not in changed:
            changed.pop("invite", None)  # a new key goes only with locking again
        if "seats" in changed:
            seats = [
                None
                if setting is None
                or (
                    setting["kind"] == seat.kind
                    and (seat.kind != "bot" or setting.get("level", "normal") == seat.level)
                )
                else setting
                for seat, setting in zip(state.seats, changed["seats"], strict=True)
            ]
            if any(setting is not None for setting in seats):
                changed["seats"] = seats
            else:
                del changed["seats"]
        return changed

    # -- playing ----------------------------------------------------------------------------
