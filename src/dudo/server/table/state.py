"""A room as its log makes it: seats, settings, the game, its fair dice and its deadlines.

:meth:`RoomState.apply` is the one place where a log entry changes a room, for a room
being played and for one rebuilt from its log after a restart alike, so live play and
replay cannot drift apart. It is pure: it sends nothing, waits for nothing and reads no
clock (every time comes from the entry), and returns the engine's events for the room to
broadcast. Deadlines (the turn timer, the roll after the seed window or the reveal
pause, the quick-game fill) are kept here as absolute times computed from the entries,
so a restarted room finds each one where it was and it fires once.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from dudo.bots.base import Bot, Persona
from dudo.bots.hard import BUDGET_MS
from dudo.bots.registry import LEVELS
from dudo.dice import Cups
from dudo.fairness import SCHEME, RoundLabel, rolloff_counts, rolloff_label
from dudo.game import Event, Game, Phase, action_from_json, action_to_json
from dudo.rolloff import RollOff, RollOffAttempt
from dudo.rules import Rules
from dudo.server.table.connection import Connection
from dudo.server.table.names import reads_alike
from dudo.store import LogEntry

__all__ = [
    "REPLIES_KEPT",
    "Fair",
    "RoomConfig",
    "RoomEvent",
    "RoomState",
    "Seat",
    "action_from_json",
    "action_to_json",
    "hash_token",
]

REPLIES_KEPT = 128

RoomEvent = Event | RollOffAttempt
"""What applying an entry tells the table: the engine's events, or a roll-off attempt."""


@dataclass(frozen=True, slots=True)
class Answered:
    """An entry answered a seat's message (its id): with ``reply`` (a stored refusal), or
    accepted (``reply`` None: an ``ack`` at ``version``). The room encodes and keeps the
    answer (:meth:`dudo.server.table.journal.Journal.apply`): the state has no wire form."""

    seat: int
    action_id: str
    version: int
    reply: dict[str, Any] | None = None


@dataclass
class RoomConfig:
    """Timings of a room, in seconds (tests set them to zero or near it)."""

    bot_delay: float = 0.9
    reveal_pause: float = 8.0
    seed_window: float = 1.5
    grace: float = 20.0
    quick_fill: float = 8.0
    emote_interval: float = 1.5
    chat_interval: float = 2.0  # one line of table talk per seat this often at most
    close_after_game: float = 600.0
    close_when_idle: float = 1800.0
    close_empty_lobby: float = 300.0  # a room nobody has sat in for this long
    max_spectators: int = 200  # per room; more are told the room is full of watchers
    # Milliseconds a hard bot may spend on one decision (DUDO_BOT_BUDGET_MS; None: no
    # budget), so a slow moment of the machine cannot hold the room's loop up for long
    # (dudo.bots.hard.BUDGET_MS says what the bot leaves out once it is spent).
    bot_budget_ms: float | None = BUDGET_MS
    # Told of each finished game (its record, each seat's profile id or None, and when the
    # room was created), after the record is saved and again when a room is rebuilt after
    # a crash: the profile book (dudo.profiles) enters a game once. A failure is retried
    # under a backoff while the room is up (Journal.enter_games).
    after_game: Callable[[dict[str, Any], list[str | None], float], Awaitable[None]] | None = None
    # How long a room waits for the store before answering 'unavailable' (the write may
    # still land: see dudo.server.outage); players hear back within about this long.
    write_patience: float = 1.5


@dataclass
class Seat:
    """A place at the table: open, a person's (held by a token), or a bot's.

    Besides what the log says, a seat carries the runtime slots of its occupant, so that
    a seat given to someone else (a new Seat) starts with none: its sockets and since
    when it has had none (the audience's), the bot that plays it (the schedule's), and
    its last reaction (the room's rate limit).
    """

    kind: str = "open"
    name: str = ""
    level: str = "normal"
    token_hash: str | None = None
    profile: str | None = None  # the public id of the profile that took the seat, if any
    # The seed this seat sent for the round waiting to be rolled (logged as "seeded").
    seed: str | None = None
    # The player left during a game (logged as "left"): a bot plays the seat to the end
    # of the game, and then takes it.
    left: bool = False
    # The log position of the entry that seated its player (0 for a seat nobody joined):
    # the host role passes in joining order, so a newcomer never takes it (host_seat).
    joined: int = 0
    # Runtime only (not logged): who is here, answers already given.
    connections: set[Connection] = field(default_factory=set)
    away_since: float | None = None
    # Answers kept as JSON text (the journal encodes them, see Journal.remember): strings
    # are not tracked by the garbage collector, and a busy server keeps thousands of them.
    replies: OrderedDict[str, str] = field(default_factory=OrderedDict)
    bot: Bot | None = None
    last_emote: float = 0.0
    last_chat: float = 0.0

    def public(self, now: float, grace: float, playing: bool) -> dict[str, Any]:
        """The seat as anyone with the room's code sees it. ``bot_playing`` only while a
        game is being played (``playing``): a bot stands in for a player who left, or who
        has been away for the ``grace`` period; in the lobby and after the game no bot
        plays for anyone, and an away player is only away."""
        away = self.kind == "human" and not self.connections
        public = {
            "kind": self.kind,
            "name": self.name,
            "level": self.level if self.kind == "bot" else None,
            "connected": bool(self.connections) if self.kind == "human" else None,
            "bot_playing": playing
            and (
                self.left
                or (away and self.away_since is not None and now - self.away_since >= grace)
            ),
        }
        if self.left:
            public["left"] = True
        return public


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Fair:
    """Fair-dice material of the current (or next) round, or of a roll-off attempt
    (``round`` is then its label, ``rolloff-k``); ``server_seed`` stays secret until the
    round's reveal (an attempt's, at its roll)."""

    round: RoundLabel
    commitment: str
    server_seed: str
    seat_seeds: list[str] | None = None
    server_seats: list[int] = field(default_factory=list)
    # The bot seats the commitment binds (None: a log from before they were bound).
    bot_seats: list[int] | None = None

    def revealed(self) -> dict[str, Any]:
        """The round's fairness material as published at its reveal."""
        material: dict[str, Any] = {
            "round": self.round,
            "commitment": self.commitment,
            "server_seed": self.server_seed,
            "seat_seeds": self.seat_seeds,
            "server_seats": self.server_seats,
        }
        if self.bot_seats is not None:
            material["version"] = SCHEME
            material["bot_seats"] = self.bot_seats
        return material


class RoomState:
    """Everything about one room that its log determines. Change it only with
    :meth:`apply` (the room sets a few runtime slots on seats, see :class:`Seat`).

    Long on purpose: it is the reducer of the room's log, one ``_apply_*`` per kind of
    entry beside the state each changes, so that what a stored log means is read in one
    place (and a log replays to the same room after a restart)."""

    def __init__(self, code: str, config: RoomConfig, deal: Callable[..., Cups]) -> None:
        self.code = code
        self.config = config
        # Injected so tests can replay a room exactly; production derives the dice.
        self.deal = deal
        self.seq = 0
        self.version = 0
        self.created_at = 0.0
        self.rules = Rules.preset("perudo")
        self.seats: list[Seat] = []
        self.timer: int = 0
        self.public = False
        self.quick = False
        # A locked room takes no one by code alone: joining needs the host's invite key
        # (in the link the host shares), so a guessed code never takes a seat.
        self.locked = False
        self.locked_before = False  # locking it again gives a new invite key
        self.invite = ""
        self.show_lost_dice = True  # a display option: dice lost so far, drawn greyed
        self.chat = True  # table talk; the host may turn it off
        # The host's language (en, de, es) when the room was made: the bots' names read
        # naturally in it ("Onkel Bo" at a German table). Only names depend on it.
        self.lang = "en"
        self.status = "lobby"
        self.game: Game | None = None
        self.game_id = ""
        self.game_number = 0
        # The names the game is played by, as they were at its start: what is shown about
        # it (winner, standings, log) stays its history when seats change afterwards.
        self.game_names: list[str] = []
        self.game_bots: list[int] = []  # its bot seats (seats that a player left stay out)
        # Moves a player did not make, per round: action index -> "timer" or "stand_in"
        # (in the record as the action's "by", so the analysis credits the bot).
        self.marks: list[dict[int, str]] = []
        self.actions_this_round = 0
        self.first_opener: int | None = None
        self.fair: Fair | None = None
        self.revealed: list[dict[str, Any]] = []
        # The roll-off of the game (first_opener: rolloff): in progress while the game is
        # a placeholder waiting for its opener, then kept for the table and the record.
        self.rolloff: RollOff | None = None
        self.rolloff_revealed: list[dict[str, Any]] = []
        self.turn_started = 0.0
        self.deadline: float | None = None
        self.roll_at: float | None = None
        self.fill_at: float | None = None
        self.stored_refusals: dict[int, deque[int]] = {}  # seat -> log seqs, oldest first
        self._rules_json: tuple[Rules | None, dict[str, Any]] = (None, {})
        # The messages the entries applied since the room last looked have answered.
        self.answered: list[Answered] = []

    def apply(self, entry: LogEntry) -> list[RoomEvent]:
        """Apply one committed (or replayed) entry; the engine events it caused. The
        messages it answered are added to :attr:`answered`."""
        self.seq = entry.seq + 1
        if entry.kind not in ("refused", "seeded"):  # these change nothing anyone sees
            self.version += 1
        events = self._applied(entry.kind, entry.at, entry.data)
        if "ack" in entry.data:
            seat, action_id = entry.data["ack"]
            self.answered.append(Answered(seat, action_id, self.version))
        return events

    def _applied(self, kind: str, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        """The one handler for each kind of entry a room's log holds (a closed list: an
        unknown kind is a log this code cannot replay)."""
        match kind:
            case "action":
                return self._apply_action(at, data)
            case "seeded":
                return self._apply_seeded(at, data)
            case "rolled":
                return self._apply_rolled(at, data)
            case "refused":
                return self._apply_refused(at, data)
            case "joined":
                return self._apply_joined(at, data)
            case "left":
                return self._apply_left(at, data)
            case "removed":
                return self._apply_removed(at, data)
            case "configured":
                return self._apply_configured(at, data)
            case "started" | "rematch":
                return self._apply_started(at, data)
            case "created":
                return self._apply_created(at, data)
            case _:
                raise ValueError(f"room {self.code}: unknown log entry kind {kind!r}")

    # -- what may be asked of it ------------------------------------------------------------

    def seat_of(self, token: str) -> int | None:
        """The seat a token holds (compared in constant time), or None."""
        wanted = hash_token(token)
        found = None
        for index, seat in enumerate(self.seats):
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, wanted):
                found = index
        return found

    def summary(self, now: float, spectators: int, host: int | None = None) -> dict[str, Any]:
        """What anyone with the code may know about the room (no dice, no tokens);
        ``host`` is :meth:`host_seat`, given by a caller that has it already."""
        if self._rules_json[0] is not self.rules:
            self._rules_json = (self.rules, self.rules.to_json())
        playing = self.status == "playing"
        summary: dict[str, Any] = {
            "code": self.code,
            "status": self.status,
            "public": self.public,
            "quick": self.quick,
            "timer": self.timer,
            "rules": self._rules_json[1],
            "seats": [seat.public(now, self.config.grace, playing) for seat in self.seats],
            "host": self.host_seat() if host is None else host,
            "game": self.game_number,
            "spectators": spectators,
            "locked": self.locked,
            "show_lost_dice": self.show_lost_dice,
            "chat": self.chat,
        }
        if self.quick:
            # When bots take the open seats of a quick table (and its game starts).
            summary["fill_at"] = self.fill_at
        return summary

    def host_seat(self) -> int:
        """Who runs the room: seat 0's creator, or once they have left, the player seated
        longest (seat 0 if nobody is). By joining order, not seat number: a newcomer who
        takes a seat the host left open must not take the room with it."""
        held = [
            (seat.joined, index)
            for index, seat in enumerate(self.seats)
            if seat.kind == "human" and not seat.left and seat.token_hash is not None
        ]
        return min(held)[1] if held else 0

    def bot_seats(self) -> list[int]:
        """The seats bots play (fixed while a game runs: seats change only between games)."""
        return [index for index, seat in enumerate(self.seats) if seat.kind == "bot"]

    def record(self) -> dict[str, Any]:
        """The finished (or running) game's record, fairness material of finished rounds
        included: what ``dudo verify`` checks."""
        assert self.game is not None
        record = self.game.record()
        record["reveals"] = self.game.reveals()
        record["game_id"] = self.game_id
        record["room"] = self.code
        record["names"] = list(self.game_names) or [seat.name for seat in self.seats]
        record["bots"] = list(self.game_bots) if self.game_names else self.bot_seats()
        record["fairness"] = list(self.revealed)
        if self.rolloff is not None:
            record["rolloff_fairness"] = list(self.rolloff_revealed)
        for played, marks in zip(record["rounds"], self.marks, strict=False):
            for index, by in marks.items():
                if index < len(played["actions"]):
                    played["actions"][index]["by"] = by
        return record

    def rolling_off(self) -> bool:
        """Whether the game's first opener is still being rolled off."""
        return self.rolloff is not None and self.rolloff.opener is None

    def rolloff_json(self) -> dict[str, Any] | None:
        """The roll-off as every client sees it (roll-off dice are public): each attempt's
        seats, pairs and tied seats, who rolls next and, once known, who opens."""
        if self.rolloff is None:
            return None
        attempts = []
        for attempt in self.rolloff.attempts:
            data = attempt.to_json()
            del data["event"]
            attempts.append(data)
        return {
            "attempts": attempts,
            "rolling": list(self.rolloff.rolling),
            "opener": self.rolloff.opener,
        }

    # -- one handler per kind of entry ------------------------------------------------------

    def _apply_refused(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        self.answered.append(Answered(data["seat"], data["id"], self.version, data["reply"]))
        self.stored_refusals.setdefault(data["seat"], deque()).append(self.seq - 1)
        return []

    def _apply_created(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        self.created_at = at
        self.rules = Rules.from_json(data["rules"])
        self.seats = [Seat(kind=s["kind"], level=s.get("level", "normal")) for s in data["seats"]]
        self.lang = data.get("lang", "en")
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

    def _apply_joined(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        seat = self.seats[data["seat"]]
        seat.kind, seat.name, seat.token_hash = "human", data["name"], data["token_hash"]
        seat.profile = data.get("profile")
        seat.away_since = None
        seat.joined = self.seq
        if self.status == "lobby":  # a bot with the player's name takes another one
            for other in self.seats:
                if other.kind == "bot" and reads_alike(other.name, seat.name):
                    other.name = self._bot_name(other)
        return []

    def _apply_removed(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        # Open again; the old token holds nothing (the room sends its sockets away).
        self.seats[data["seat"]] = Seat()
        if "invite" in data:
            self.invite = data["invite"]
        return []

    def _apply_left(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        index = data["seat"]
        seat = self.seats[index]
        if self.status == "lobby":
            self.seats[index] = Seat()
        elif self.status == "playing":
            # The token holds nothing from now on; a bot plays the seat (schedule.py).
            seat.token_hash = None
            seat.left = True
        else:
            self._bot_takes(index)
        return []

    def _bot_takes(self, index: int) -> None:
        """A bot (normal) takes the seat of a player who left."""
        seat = Seat(kind="bot", level="normal")
        self.seats[index] = seat
        seat.name = self._bot_name(seat)

    def _apply_configured(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        if "rules" in data:
            self.rules = Rules.from_json(data["rules"])
        if "timer" in data:
            self.timer = data["timer"]
        if "public" in data:
            self.public = data["public"]
        if "locked" in data:
            self.locked = data["locked"]
            self.locked_before = self.locked_before or self.locked
        if "invite" in data:
            self.invite = data["invite"]
        if "show_lost_dice" in data:
            self.show_lost_dice = data["show_lost_dice"]
        if "chat" in data:
            self.chat = data["chat"]
        if "seats" in data:
            for seat, setting in zip(self.seats, data["seats"], strict=False):
                if setting is None or seat.kind == "human":
                    continue
                seat.kind = setting["kind"]
                seat.level = setting.get("level", "normal")
                seat.bot = None
                seat.name = self._bot_name(seat) if seat.kind == "bot" else ""
        return []

    def _apply_started(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        self.status = "playing"
        self.game_number = data["game"]
        self.game_id = data["game_id"]
        self.first_opener = data["first_opener"]
        self.fill_at = None
        self.game_names = [seat.name for seat in self.seats]
        self.game_bots = self.bot_seats()
        self.marks = []
        players = len(self.seats)
        self.revealed = []
        self.rolloff_revealed = []
        self.roll_at = at + self.config.seed_window
        self.deadline = None
        if data.get("rolloff"):
            # Rolled off before round 1, attempt by attempt, each on the committed scheme
            # (dudo.fairness). Until the opener is known the game is a placeholder in its
            # roll phase: nobody bids, and the schedule's roll deals the next attempt.
            self.rolloff = RollOff(range(players))
            self.game = Game(self.rules, players, opener=0)
            self.fair = Fair(
                rolloff_label(1),
                data["commitment"],
                data["server_seed"],
                bot_seats=data.get("bot_seats"),
            )
            return []
        self.rolloff = None
        self.game = Game(self.rules, players, opener=data["first_opener"])
        self.fair = Fair(
            1, data["commitment"], data["server_seed"], bot_seats=data.get("bot_seats")
        )
        return [self.game.round_header()]

    def _apply_seeded(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        self.seats[data["seat"]].seed = data["seed"]
        return []

    def _apply_rolled(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        game, fair = self.game, self.fair
        assert game is not None and fair is not None
        if self.rolling_off():
            return self._rolled_off(at, data)
        cups = self.deal(fair.server_seed, data["seat_seeds"], game.round_number, game.dice_counts)
        game.roll(cups)
        self.marks.append({})
        self.actions_this_round = 0
        fair.seat_seeds = list(data["seat_seeds"])
        # Logs written before seat seeds were bound to the server seed have no list.
        fair.server_seats = list(data.get("server_seats", []))
        for seat in self.seats:
            seat.seed = None  # a seed counts for one round
        self.roll_at = None
        self._turn_begins(at)
        return []

    def _rolled_off(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        """One roll-off attempt dealt: its pairs are public at once, with its fairness
        material; then the next attempt's commitment, or round 1's once one seat opens."""
        roll_off, fair = self.rolloff, self.fair
        assert roll_off is not None and fair is not None
        players = len(self.seats)
        rolling = roll_off.rolling
        cups = self.deal(
            fair.server_seed, data["seat_seeds"], fair.round, rolloff_counts(players, rolling)
        )
        attempt = roll_off.roll([cups[seat] for seat in rolling])
        fair.seat_seeds = list(data["seat_seeds"])
        fair.server_seats = list(data.get("server_seats", []))
        material = fair.revealed()
        material["attempt"] = len(roll_off.attempts)
        self.rolloff_revealed.append(material)
        for seat in self.seats:
            seat.seed = None
        following = data["next"]
        events: list[RoomEvent] = [attempt]
        if roll_off.opener is None:
            label: RoundLabel = rolloff_label(len(roll_off.attempts) + 1)
        else:
            label = 1
            self.game = Game(self.rules, players, rolloff=roll_off)
            self.first_opener = roll_off.opener
            events.append(self.game.round_header())
        self.fair = Fair(
            label,
            following["commitment"],
            following["server_seed"],
            bot_seats=following.get("bot_seats"),
        )
        # A pause to see the dice (and a tie), as after a reveal.
        self.roll_at = at + self.config.reveal_pause
        return events

    def _apply_action(self, at: float, data: dict[str, Any]) -> list[RoomEvent]:
        game = self.game
        assert game is not None
        seat = data["seat"]
        action = action_from_json(data["action"])
        events: list[RoomEvent] = list(game.apply(seat, action))
        by = data.get("by")
        mark = (
            "timer"
            if by == "timer"
            else "stand_in"
            if by == "bot" and self.seats[seat].kind == "human"
            else None
        )
        if mark is not None and self.marks:
            self.marks[-1][self.actions_this_round] = mark
        self.actions_this_round += 1
        if data.get("id"):
            self.answered.append(Answered(seat, data["id"], self.version))
        if game.phase is not Phase.BIDDING:
            self._round_ends(at, data)
        else:
            self._turn_begins(at)
        return events

    def _round_ends(self, at: float, data: dict[str, Any]) -> None:
        game, fair = self.game, self.fair
        assert game is not None and fair is not None
        self.revealed.append(fair.revealed())
        self.deadline = None
        if game.phase is Phase.OVER:
            self.status = "over"
            for index, seat in enumerate(self.seats):
                if seat.left:
                    self._bot_takes(index)
            self.fair = None
            self.roll_at = None
        else:
            following = data["next"]
            self.fair = Fair(
                game.round_number,
                following["commitment"],
                following["server_seed"],
                bot_seats=following.get("bot_seats"),
            )
            self.roll_at = at + self.config.reveal_pause

    def _turn_begins(self, at: float) -> None:
        self.turn_started = at
        self.deadline = at + self.timer if self.timer else None

    def _bot_name(self, seat: Seat) -> str:
        """A persona's name, in the room's language, that reads like no other seat's
        (names.reads_alike): one of its level's personas, from the seat's own on; when
        every one of them is taken (five bots of a level beside players who took their
        names), another level's persona."""
        taken = [other.name for other in self.seats if other is not seat and other.name]
        index = self.seats.index(seat)
        own: list[Persona] = list(getattr(LEVELS[seat.level], "personas", ()))
        if not own:
            return f"Bot {index + 1}"
        others: list[Persona] = [
            persona
            for level in ("easy", "normal", "hard")
            if level != seat.level
            for persona in getattr(LEVELS[level], "personas", ())
        ]
        turned = own[index % len(own) :] + own[: index % len(own)]
        for persona in turned + others:
            name = persona.name_in(self.lang)
            if not any(reads_alike(name, other) for other in taken):
                return name
        # Not reached: the personas begin with some 17 different words, and at most five
        # other seats can take one each.
        return f"{own[index % len(own)].name_in(self.lang)} {index + 1}"
