"""Who is at a room and who watches it, and what each of them is told.

A seat may have a few sockets at once (a phone and a laptop); anyone else watches as a
spectator. Each recipient gets its own view of the state (:func:`dudo.view.view`), so
no socket ever sees another seat's dice before the reveal.

A socket here is a :class:`~dudo.server.table.connection.Connection`: an ordered outbox over
any ``send`` function, so nothing in this module cares whether the other end is a
WebSocket of this process or a pipe to another node (a relayed client).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from dudo.game import Revealed
from dudo.server import protocol as p
from dudo.server.table.connection import Connection, dumps
from dudo.server.table.state import RoomConfig, RoomEvent, RoomState
from dudo.view import ViewTexts

SOCKETS_PER_SEAT = 4  # a fifth socket of a seat replaces its oldest
CLOSE_WATCHERS_FULL = 4429
CLOSE_REPLACED = 4409
CLOSE_REMOVED = 4410
CLOSE_LEFT = 4411
CLOSE_MOVED = 4412

_YOU_SPECTATOR = '{"seat":null,"role":"spectator","host":false}'


class Audience:
    """The sockets of one room: each seat's (kept on its :class:`Seat`) and the
    spectators'."""

    def __init__(self, state: RoomState, config: RoomConfig, clock: Callable[[], float]) -> None:
        self.state = state
        self.config = config
        self.clock = clock
        self.spectators: set[Connection] = set()

    def connections(self) -> list[Connection]:
        found = list(self.spectators)
        for seat in self.state.seats:
            found.extend(seat.connections)
        return found

    def players_here(self) -> bool:
        """Whether any seat has a socket open (spectators do not count)."""
        return any(seat.connections for seat in self.state.seats)

    def restarted(self, now: float) -> None:
        """Nobody is connected to a room just rebuilt from its log: its players are away
        from now on (a bot stands in for those who do not come back in time)."""
        for seat in self.state.seats:
            if seat.kind == "human":
                seat.away_since = now

    # -- arriving and leaving ---------------------------------------------------------------

    def connect(self, connection: Connection) -> None:
        """Greet a socket with its state. Only a seat coming back changes what others see
        (it is connected again), so only that is broadcast: a spectator joining costs the
        room one message, however many watch already."""
        if connection.seat is None:
            if len(self.spectators) >= self.config.max_spectators:
                connection.send(
                    p.error_message(
                        "watchers_full",
                        f"{self.config.max_spectators} people are watching "
                        "this room already: try again later",
                    )
                )
                connection.close(CLOSE_WATCHERS_FULL)
                return
            self.spectators.add(connection)
            connection.send(self._state_text(None, self._shared_json([])))
            return
        seat = self.state.seats[connection.seat]
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
            self.broadcast([], skip=connection)

    def disconnect(self, connection: Connection) -> None:
        connection.close()
        if connection.seat is None:
            self.spectators.discard(connection)
            return
        seat = self.state.seats[connection.seat]
        seat.connections.discard(connection)
        if not seat.connections:
            seat.away_since = self.clock()
            self.broadcast([])

    def send_away(
        self,
        message: dict[str, Any],
        close_code: int,
        connections: Iterable[Connection] | None = None,
    ) -> None:
        """Tell sockets why they are let go, then close them: every socket of the room
        unless ``connections`` names some."""
        for connection in self.connections() if connections is None else connections:
            connection.send(message)
            connection.close(close_code)

    # -- what people are told ---------------------------------------------------------------

    def tell_seat(self, seat: int, text: str) -> None:
        """Send one message to every socket of a seat (the answer to what it asked)."""
        for connection in self.state.seats[seat].connections:
            connection.send(text)

    def tell_everyone(self, message: dict[str, Any]) -> None:
        for connection in self.connections():
            connection.send(message)

    def broadcast(
        self,
        events: list[RoomEvent],
        skip: Connection | None = None,
        moved_by: str | None = None,
        now: float | None = None,
        ack: tuple[int, str] | None = None,
    ) -> None:
        """Send every connection its own state: one view per seat, one for spectators.
        ``now`` is the time the room's summary is judged at (who is away, whom a bot
        plays for), if not the clock's (the schedule's, for a grace that just ended).
        ``ack`` (seat, text) is the answer to that seat's move: each of the seat's sockets
        gets it just before its state, in the same write where the socket allows.

        The parts every recipient shares (room, events, clocks, fairness, and the public
        members of the game view) are encoded once per broadcast; each seat's text is
        spliced from them and its own dice and legal actions (:class:`ViewTexts`), once
        per seat, shared by that seat's sockets (and one text for every spectator).
        """
        connections = self.connections()
        if not connections:
            return
        acked, ack_text = ack if ack is not None else (None, "")
        host = self.state.host_seat()  # once per broadcast, not once per seat
        shared = self._shared_json(events, moved_by, host, now)
        views = None if self.state.game is None else ViewTexts(self.state.game)
        cache: dict[int | None, str] = {}
        for connection in connections:
            seat = connection.seat
            if connection is skip:
                if seat is not None and seat == acked:
                    connection.send(ack_text)
                continue
            text = cache.get(seat)
            if text is None:
                text = self._state_text(seat, shared, views, host)
                cache[seat] = text
            if seat is not None and seat == acked:
                connection.send_both(ack_text, text)
            else:
                connection.send(text)

    def summary(self, host: int | None = None, now: float | None = None) -> dict[str, Any]:
        """What anyone with the code may know about the room, now or at ``now`` (``host``:
        the host's seat, if the caller has it already)."""
        when = self.clock() if now is None else now
        return self.state.summary(when, len(self.spectators), host)

    def _shared_json(
        self,
        events: list[RoomEvent],
        moved_by: str | None = None,
        host: int | None = None,
        now: float | None = None,
    ) -> str:
        """The recipient-independent members of a state message, as JSON text.
        ``moved_by`` marks the action's own event (a bid, or a call's reveal)."""
        state = self.state
        encoded = [event_json(event) for event in events]
        if moved_by is not None:
            for data in encoded:
                if data["event"] in ("bid", "reveal"):
                    data["by"] = moved_by
                    break
        shared: dict[str, Any] = {"room": self.summary(host, now), "events": encoded}
        if state.game is not None:
            fair = state.fair
            shared["deadline"] = state.deadline
            shared["roll_at"] = state.roll_at
            shared["names"] = state.game_names
            shared["fair"] = {
                "game_id": state.game_id,
                "round": fair.round if fair else None,
                "commitment": fair.commitment if fair else None,
                "bot_seats": fair.bot_seats if fair else None,
                "last_revealed": state.revealed[-1] if state.revealed else None,
            }
            rolloff = state.rolloff_json()
            if rolloff is not None:  # public: everyone sees every roll-off die
                shared["rolloff"] = rolloff
                shared["fair"]["rolloff_revealed"] = state.rolloff_revealed
        return dumps(shared)[1:-1]

    def _state_text(
        self,
        seat: int | None,
        shared: str,
        views: ViewTexts | None = None,
        host: int | None = None,
    ) -> str:
        """The full state for one recipient: the shared part plus its own game view
        (from ``views``, the broadcast's, when given; ``host`` the host's seat, likewise)."""
        state = self.state
        if seat is not None and host is None:
            host = state.host_seat()
        you = (
            _YOU_SPECTATOR
            if seat is None
            else (
                f'{{"seat":{seat},"role":"player","host":true,"invite":"{state.invite}"}}'
                if seat == host
                else f'{{"seat":{seat},"role":"player","host":false}}'
            )
        )
        game = "null" if state.game is None else (views or ViewTexts(state.game)).text(seat)
        return (
            f'{{"type":"state","v":{p.PROTOCOL_VERSION},"version":{state.version},'
            f'"you":{you},{shared},"game":{game}}}'
        )


def event_json(event: RoomEvent) -> dict[str, Any]:
    """An engine event for clients; a reveal also carries every cup (it is the reveal)."""
    if isinstance(event, Revealed):
        return event.table_json(as_event=True)
    return event.to_json()
