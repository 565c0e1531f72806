"""What a room's actor can be sent: a closed set of frozen messages.

The room (:class:`~dudo.server.table.room.Room`) takes these one at a time from its inbox
and dispatches them with ``match``, so what it can be asked is a list one can read here,
checked by mypy, not strings and tuples. Two kinds, after Cosmic Python's commands:

- a :data:`Notice` is told (:meth:`Room.tell`) and answers nothing: a socket arrived,
  sent a message, went away;
- a :data:`Question` is asked (:meth:`Room.ask`) and carries the future its answer comes
  back in: an HTTP request waits on it (a join, a look at the room, an invite check, a
  stop before a hand-off). A refusal comes back as the future's
  :class:`~dudo.server.table.room.RoomError`.

Each message names itself with ``kind`` for the room's logs ("room_error" lines).

>>> Describe().kind
'summary'
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dudo.server import protocol as p
from dudo.server.table.connection import Connection

__all__ = [
    "CheckInvite",
    "Connect",
    "Deliver",
    "Describe",
    "Disconnect",
    "Join",
    "Message",
    "Notice",
    "Question",
    "Stop",
]


def _pending() -> asyncio.Future[Any]:
    """A future for the answer, on the running loop (questions are built inside it)."""
    return asyncio.get_running_loop().create_future()


@dataclass(frozen=True, slots=True)
class Connect:
    """A socket opened on the room: a player at their seat, or a spectator."""

    kind: ClassVar[str] = "connect"
    connection: Connection


@dataclass(frozen=True, slots=True)
class Deliver:
    """One validated message from a socket (see :data:`dudo.server.protocol.ClientMessage`)."""

    kind: ClassVar[str] = "message"
    connection: Connection
    message: p.AnyClientMessage


@dataclass(frozen=True, slots=True)
class Disconnect:
    """A socket closed."""

    kind: ClassVar[str] = "disconnect"
    connection: Connection


@dataclass(frozen=True, slots=True)
class Join:
    """Someone asks for the first open seat under ``name``; answered with the seat, its
    token, the name as the table will show it and the room's code."""

    kind: ClassVar[str] = "join"
    name: str
    invite: str | None = None
    profile: str | None = None  # a profile's public id, never its secret
    answer: asyncio.Future[dict[str, Any]] = field(
        default_factory=_pending, compare=False, repr=False
    )


@dataclass(frozen=True, slots=True)
class Describe:
    """What anyone with the code may know about the room (the room's summary)."""

    kind: ClassVar[str] = "summary"
    answer: asyncio.Future[dict[str, Any]] = field(
        default_factory=_pending, compare=False, repr=False
    )


@dataclass(frozen=True, slots=True)
class CheckInvite:
    """Whether ``invite`` is the room's invite key."""

    kind: ClassVar[str] = "invite_matches"
    invite: str | None
    answer: asyncio.Future[bool] = field(default_factory=_pending, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Stop:
    """Stop between two messages (never inside a commit): the room is handed off."""

    kind: ClassVar[str] = "stop"
    answer: asyncio.Future[None] = field(default_factory=_pending, compare=False, repr=False)


Notice = Connect | Deliver | Disconnect
"""Told: nobody waits for an answer."""

Question = Join | Describe | CheckInvite | Stop
"""Asked: the answer (or the refusal) comes back in its ``answer``."""

Message = Notice | Question
"""Everything a room's inbox holds."""
