"""The WebSocket protocol: one JSON object per message, validated against these schemas.

Version 1. Every message a client sends is one of :data:`ClientMessage` (the ``type`` field
picks the schema); anything else gets an ``error`` naming the problem and changes nothing.
Actions that change the game carry an ``id`` chosen by the client: a repeated id is answered
with the first answer and never applied twice (exactly once, even across reconnects and
server restarts). The full description with examples is docs/protocol.md.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from dudo.printable import clipped

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 4096
EMOTES = ("👍", "😂", "😮", "🤔", "😈", "🎲")
LEVELS = ("easy", "normal", "hard")

MAX_ACTION_ID = 64
ActionId = Annotated[str, Field(min_length=1, max_length=MAX_ACTION_ID)]
Name = Annotated[str, Field(min_length=1, max_length=24)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    v: Literal[1] = 1


class HandObject(BaseModel):
    """A Common Hand bid (``bids: poker``): ``{"hand": "full_house", "faces": [4, 2]}``,
    ``faces`` left out (or ``[]``) for the straights. Whether it names a hand at all is the
    room's check (``bad_bid`` with the reason), not the schema's."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    hand: Annotated[str, Field(min_length=1, max_length=20)]
    faces: Annotated[list[Annotated[int, Field(ge=-1000, le=1000)]], Field(max_length=2)] = []


class BidMessage(_Message):
    """Raise to ``quantity`` x ``face``, or (Common Hand) to the hand ``bid``: exactly one
    of the two forms (the engine judges whether it is legal)."""

    type: Literal["bid"]
    id: ActionId
    quantity: Annotated[int, Field(ge=-1000, le=1000)] | None = None
    face: Annotated[int, Field(ge=-1000, le=1000)] | None = None
    bid: HandObject | None = None
    version: int | None = None

    @model_validator(mode="after")
    def _one_form(self) -> BidMessage:
        if self.bid is not None:
            if self.quantity is not None or self.face is not None:
                raise ValueError("a bid is quantity and face, or a hand as 'bid', not both")
        elif self.quantity is None:
            raise ValueError("Field required: quantity (or a hand as 'bid')")
        elif self.face is None:
            raise ValueError("Field required: face")
        return self


class CallMessage(_Message):
    """Call the standing bid: ``dudo`` (false) or ``calza`` (exact)."""

    type: Literal["call"]
    id: ActionId
    call: Literal["dudo", "calza"]
    version: int | None = None


class NextRoundMessage(_Message):
    """Roll the next round now instead of waiting for the pause to end."""

    type: Literal["next_round"]
    id: ActionId


class StartMessage(_Message):
    """The host starts the game."""

    type: Literal["start"]
    id: ActionId


class RematchMessage(_Message):
    """After the game: play again with the same table."""

    type: Literal["rematch"]
    id: ActionId


class SeatSetting(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    kind: Literal["open", "bot"]
    level: Literal["easy", "normal", "hard"] = "normal"


class ConfigureMessage(_Message):
    """The host changes the room before the start: house rules, seats, timer, visibility."""

    type: Literal["configure"]
    id: ActionId
    rules: dict[str, Any] | None = None
    seats: Annotated[list[SeatSetting | None], Field(max_length=6)] | None = None
    timer: Annotated[int, Field(ge=0, le=600)] | None = None
    public: bool | None = None
    locked: bool | None = None
    chat: bool | None = None
    show_lost_dice: bool | None = None


class RemoveMessage(_Message):
    """The host frees a player's seat (in the lobby or between games)."""

    type: Literal["remove"]
    id: ActionId
    seat: Annotated[int, Field(ge=1, le=5)]


RollOffLabel = Annotated[str, Field(pattern=r"^rolloff-[1-9][0-9]{0,3}$")]


class LeaveMessage(_Message):
    """A player leaves the table: the seat opens in the lobby; during a game a bot plays
    it to the end (then keeps it); between games a bot takes it."""

    type: Literal["leave"]
    id: ActionId


class SeedMessage(_Message):
    """This seat's contribution to the roll of ``round`` (hex, up to 128 digits): taken
    only while that round's commitment is out and its dice are not yet dealt. ``round`` is
    a round's number, or a roll-off attempt's label (``"rolloff-1"``, ...) as the state's
    ``fair.round`` names it."""

    type: Literal["seed"]
    round: Annotated[int, Field(ge=1)] | RollOffLabel
    seed: Annotated[str, Field(min_length=1, max_length=128)]
    id: ActionId | None = None


class EmoteMessage(_Message):
    """A quick reaction everyone at the table sees."""

    type: Literal["emote"]
    emote: Literal["👍", "😂", "😮", "🤔", "😈", "🎲"]


CHAT_LIMIT = 140  # characters a table-talk line may have (after cleaning)


class ChatMessage(_Message):
    """A line of table talk for everyone at the table (text only; not kept)."""

    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1, max_length=CHAT_LIMIT)]


class PingMessage(_Message):
    type: Literal["ping"]


AnyClientMessage = (
    BidMessage
    | CallMessage
    | NextRoundMessage
    | StartMessage
    | RematchMessage
    | ConfigureMessage
    | RemoveMessage
    | LeaveMessage
    | SeedMessage
    | EmoteMessage
    | ChatMessage
    | PingMessage
)
"""A validated client message, as the room's actor takes it (see :data:`ClientMessage`)."""

ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)


class ProtocolError(ValueError):
    """A message that is not part of the protocol; ``code`` is machine-readable.
    ``action_id`` is the message's own ``id`` when one could be read (a JSON object with
    an id of the right form): the error then answers it, and a client waiting on that id
    is not left waiting."""

    def __init__(self, code: str, message: str, action_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.action_id = action_id


def _readable_id(data: dict[str, Any]) -> str | None:
    """The ``id`` of a message that failed validation, if it is a valid id itself."""
    action_id = data.get("id")
    if isinstance(action_id, str) and 1 <= len(action_id) <= MAX_ACTION_ID:
        return action_id
    return None


def parse_client_message(text: str | bytes) -> AnyClientMessage:
    """Validate one inbound message; raises :class:`ProtocolError` naming the problem."""
    # The limit is on bytes: a text frame's characters may take up to four bytes each.
    size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ProtocolError("bad_json", f"not valid JSON: {error}") from None
    except RecursionError:  # a few thousand brackets are enough to reach the limit
        raise ProtocolError("bad_json", "not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object")
    action_id = _readable_id(data)
    version = data.get("v", PROTOCOL_VERSION)
    if type(version) is not int or version != PROTOCOL_VERSION:  # true == 1 in Python
        raise ProtocolError(
            "bad_version", f"this server speaks protocol version {PROTOCOL_VERSION}", action_id
        )
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a 'type'", action_id)
    try:
        parsed: AnyClientMessage = _ADAPTER.validate_python(data)
        return parsed
    except ValidationError as error:
        first = error.errors()[0]
        where = (
            ".".join(clipped(str(part)) for part in first["loc"][1:] if _field_part(part))
            or "message"
        )
        if first["type"] == "union_tag_invalid":
            raise ProtocolError(
                "unknown_type", f"unknown message type {clipped(kind)!r}", action_id
            ) from None
        detail = first["msg"]
        if first["type"] == "model_type":  # pydantic names its class: say what JSON it wants
            detail = "should be a JSON object"
            if kind == "bid" and where == "bid":
                detail += (
                    ' naming a Common Hand, e.g. {"hand": "full_house", "faces": [4, 2]};'
                    " a bid of quantity and face is sent as 'quantity' and 'face'"
                )
        if kind == "seed" and where == "round":
            detail = (
                "a round's number (1 or more) or a roll-off attempt's label, like \"rolloff-1\""
            )
        raise ProtocolError("bad_message", f"{kind}: {where}: {detail}", action_id) from None


_UNION_MEMBERS = {"str", "int", "float", "bool", "list", "dict", "none"}


def _field_part(part: str | int) -> bool:
    """Whether a step of pydantic's error location names a field or an index, not one of
    its own names for a union's member (``constrained-int``, ``function-after[...]``)."""
    if isinstance(part, int):
        return True
    return not ("-" in part or "[" in part or part in _UNION_MEMBERS)


def message_id(message: AnyClientMessage) -> str | None:
    """The client's id of a message, if its type carries one (a seed's is optional)."""
    match message:
        case EmoteMessage() | ChatMessage() | PingMessage():
            return None
        case _:
            return message.id


def error_message(
    code: str,
    message: str,
    action_id: str | None = None,
    detail: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``error`` reply: a code for programs and a sentence for people; for a bid or
    call the rules refuse, the ``detail`` of its cause (:class:`RefusalDetail`)."""
    reply: dict[str, Any] = {
        "type": "error",
        "v": PROTOCOL_VERSION,
        "code": code,
        "message": message,
    }
    if action_id is not None:
        reply["id"] = action_id
    if detail is not None:
        reply["detail"] = detail
    return reply


def ack_message(action_id: str, version: int) -> dict[str, Any]:
    """The ``ack`` reply to an accepted action, with the state version it produced."""
    return {"type": "ack", "v": PROTOCOL_VERSION, "id": action_id, "version": version}


# -- what the server sends ----------------------------------------------------------------
#
# Every message the server sends is one of :data:`ServerMessage`. The room builds the
# frequent ones (``state`` above all) as pre-encoded JSON text for speed
# (dudo.server.table.audience); these models are their declaration, which a test holds the
# server to across whole games (tests/server/table/test_server_messages.py).
# docs/protocol.md describes each with examples.


class _Sent(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _SentMessage(_Sent):
    v: Literal[1]


class AckMessage(_SentMessage):
    """An accepted action, with the state version it produced."""

    type: Literal["ack"]
    id: str
    version: int


class RefusalDetail(_Sent):
    """Which cause of an engine reason code refused a bid or call (dudo.refusals):
    ``key`` (``code.cause``) and ``params`` to say it in the page's language, ``text`` the
    same in English."""

    key: str
    params: dict[str, Any]
    text: str


class ErrorMessage(_SentMessage):
    """A refusal: ``code`` for programs, ``message`` for people; ``id`` if the message had
    one; ``retry_after`` (seconds) when the store is away and nothing changed; ``detail``
    when the rules refused a bid or call."""

    type: Literal["error"]
    code: str
    message: str
    id: str | None = None
    retry_after: float | None = None
    detail: RefusalDetail | None = None


class PongMessage(_SentMessage):
    """The answer to a ping, with the room's state version."""

    type: Literal["pong"]
    version: int


class EmoteSent(_SentMessage):
    """A seat's quick reaction, to everyone at the table."""

    type: Literal["emote"]
    seat: int
    emote: str


class ChatSent(_SentMessage):
    """A line of table talk, cleaned, to everyone at the table."""

    type: Literal["chat"]
    seat: int
    text: str


BidJson = list[int] | HandObject  # [quantity, face], or a Common Hand


class SeatSummary(_Sent):
    kind: Literal["open", "human", "bot"]
    name: str
    level: str | None
    connected: bool | None
    bot_playing: bool
    left: Literal[True] | None = None


class RoomSummary(_Sent):
    """What anyone with the code may know about a room (``GET /api/rooms/{code}`` too)."""

    code: str
    status: Literal["lobby", "playing", "over"]
    public: bool
    quick: bool
    timer: int
    rules: dict[str, Any]
    seats: list[SeatSummary]
    host: int
    game: int
    spectators: int
    locked: bool
    show_lost_dice: bool
    chat: bool
    fill_at: float | None = None  # quick tables only


class You(_Sent):
    seat: int | None
    role: Literal["player", "spectator"]
    host: bool
    invite: str | None = None  # the host's only


class RoundEvent(_Sent):
    event: Literal["round"]
    number: int
    opener: int
    palifico: bool
    wild: bool
    dice_counts: list[int]


class BidEvent(_Sent):
    event: Literal["bid"]
    seat: int
    quantity: int | None = None
    face: int | None = None
    hand: str | None = None
    faces: list[int] | None = None
    by: Literal["timer", "stand_in"] | None = None


class Reveal(_Sent):
    """A round's call with every cup, as the game view's ``last_reveal`` carries it."""

    call: Literal["dudo", "calza"]
    caller: int
    bidder: int
    bid: BidJson
    count: int | None = None
    outcome: str
    dice_counts: list[int]
    points: list[int] | None = None
    loser: int | None
    change: int
    wild: bool
    cups: list[list[int]]
    bids: list[tuple[int, BidJson]] = []


class RevealEvent(Reveal):
    event: Literal["reveal"]
    by: Literal["timer", "stand_in"] | None = None


class OutEvent(_Sent):
    event: Literal["out"]
    seat: int


class GameOverEvent(_Sent):
    event: Literal["game_over"]
    winners: list[int]


class RollOffAttemptJson(_Sent):
    seats: list[int]
    rolls: list[list[int]]
    tied: list[int]


class RollOffEvent(RollOffAttemptJson):
    event: Literal["rolloff"]


Event = Annotated[
    RoundEvent | BidEvent | RevealEvent | OutEvent | GameOverEvent | RollOffEvent,
    Field(discriminator="event"),
]


class RoundFairness(_Sent):
    """A finished round's (or roll-off attempt's) fairness material, as published."""

    round: int | RollOffLabel
    commitment: str
    server_seed: str
    seat_seeds: list[str] | None
    server_seats: list[int]
    version: int | None = None
    bot_seats: list[int] | None = None
    attempt: int | None = None


class Fairness(_Sent):
    game_id: str
    round: int | RollOffLabel | None
    commitment: str | None
    bot_seats: list[int] | None
    last_revealed: RoundFairness | None
    rolloff_revealed: list[RoundFairness] | None = None


class RollOffJson(_Sent):
    attempts: list[RollOffAttemptJson]
    rolling: list[int]
    opener: int | None


class Legal(_Sent):
    bids: list[BidJson]
    calls: list[Literal["dudo", "calza"]]


class GameView(_Sent):
    """One seat's view of the game (dudo.view.SeatView.to_json): its own dice only."""

    seat: int | None
    players: int
    phase: Literal["roll", "bidding", "over"]
    round: int
    opener: int
    palifico: bool
    wild: bool
    dice_counts: list[int]
    points: list[int]
    dice: list[int]
    bids: list[tuple[int, BidJson]]
    turn: int | None
    standing: BidJson | None
    bidder: int | None
    legal: Legal
    last_reveal: Reveal | None
    winners: list[int]
    rolloff: list[RollOffAttemptJson]


class StateMessage(_SentMessage):
    """The table as one recipient may see it, after every change: the room, what just
    happened (``events``), and the recipient's own view of the game (or ``null``)."""

    type: Literal["state"]
    version: int
    you: You
    room: RoomSummary
    events: list[Event]
    deadline: float | None = None
    roll_at: float | None = None
    names: list[str] | None = None
    fair: Fairness | None = None
    rolloff: RollOffJson | None = None
    game: GameView | None


ServerMessage = Annotated[
    AckMessage | ErrorMessage | PongMessage | EmoteSent | ChatSent | StateMessage,
    Field(discriminator="type"),
]
SERVER_MESSAGES: TypeAdapter[Any] = TypeAdapter(ServerMessage)
"""Validates a message the server sent (``SERVER_MESSAGES.validate_json(text)``)."""
