"""A room's socket: written at once when it can be, queued in order when it cannot, bounded."""

from __future__ import annotations

import asyncio
import json

from dudo.server.table.connection import Connection


class Socket:
    """An ASGI-like send: writes at once while ``open_`` is set, else waits for it."""

    def __init__(self, writable: bool = True) -> None:
        self.written: list[str] = []
        self.open_ = asyncio.Event()
        if writable:
            self.open_.set()
        self.calls = 0

    async def send(self, text: str) -> None:
        self.calls += 1
        if not self.open_.is_set():
            await self.open_.wait()
        self.written.append(text)


async def settle(connection: Connection) -> None:
    """Let the connection's flusher task (if any) run to the end."""
    for _ in range(100):
        if connection._flusher is None:
            return
        await asyncio.sleep(0)
    raise AssertionError("the flusher never finished")


def test_a_writable_socket_is_written_synchronously_in_order() -> None:
    """send() writes before returning, without a task, and encodes dicts as compact JSON."""

    async def scenario() -> None:
        socket = Socket()
        connection = Connection(socket.send, 0)
        connection.send("first")
        assert socket.written == ["first"]
        connection.send({"type": "bid", "count": 3, "face": 4})
        connection.send("third")
        assert socket.written == ["first", '{"type":"bid","count":3,"face":4}', "third"]
        assert json.loads(socket.written[1]) == {"type": "bid", "count": 3, "face": 4}
        assert connection._flusher is None
        assert not connection.pending
        assert not connection.closed

    asyncio.run(scenario())


def test_a_slow_socket_queues_and_catches_up_in_order() -> None:
    """While a write waits, later messages queue; once released all arrive once, in order."""

    async def scenario() -> None:
        socket = Socket(writable=False)
        connection = Connection(socket.send, 1)
        for number in range(10):
            connection.send(f"m{number}")
        assert socket.written == []
        assert connection._flusher is not None
        assert list(connection.pending) == [f"m{number}" for number in range(1, 10)]
        socket.open_.set()
        await settle(connection)
        assert socket.written == [f"m{number}" for number in range(10)]
        assert socket.calls == 10
        connection.send("after")  # writable again: back to the eager path
        assert socket.written[-1] == "after"
        assert not connection.closed

    asyncio.run(scenario())


def test_a_socket_that_falls_too_far_behind_is_closed() -> None:
    """More than QUEUE_LIMIT pending messages close the connection; later sends are ignored."""

    async def scenario() -> None:
        socket = Socket(writable=False)
        connection = Connection(socket.send, None)
        connection.send("stuck")  # waits: the rest queue behind it
        for number in range(Connection.QUEUE_LIMIT):
            connection.send(f"q{number}")
        assert not connection.closed
        assert len(connection.pending) == Connection.QUEUE_LIMIT
        connection.send("one too many")
        assert connection.closed
        assert connection.finished.is_set()
        assert not connection.pending
        calls = socket.calls
        connection.send("ignored")
        assert socket.calls == calls
        await asyncio.wait_for(connection.write_forever(), 1)
        socket.open_.set()
        await settle(connection)
        assert "ignored" not in socket.written
        assert "one too many" not in socket.written
        assert socket.written == ["stuck"]  # the write in progress ends; the queue was dropped

    asyncio.run(scenario())


def test_a_send_that_raises_closes_the_connection_quietly() -> None:
    """A gone socket (send raises, at once or after waiting) closes without raising."""

    async def scenario() -> None:
        async def gone(_text: str) -> None:
            raise ConnectionResetError("gone")

        connection = Connection(gone, 0)
        connection.send("hello")
        assert connection.closed
        assert connection.finished.is_set()
        connection.send("again")  # ignored, no error

        release = asyncio.Event()

        async def gone_later(_text: str) -> None:
            await release.wait()
            raise ConnectionResetError("gone")

        later = Connection(gone_later, 1)
        later.send("hello")
        later.send("queued")
        assert not later.closed
        release.set()
        await settle(later)
        assert later.closed
        assert later.finished.is_set()
        assert not later.pending

    asyncio.run(scenario())


def test_a_cancelled_write_closes_the_connection() -> None:
    """A flusher cancelled while it waits, or before it ever ran, leaves a gap in the
    stream: the connection is closed (the client reconnects and gets a fresh state)
    instead of going on silently or out of order; the room sees no CancelledError."""

    async def scenario(steps_before_cancel: int) -> None:
        socket = Socket(writable=False)
        connection = Connection(socket.send, 0)
        connection.send("waiting")
        connection.send("queued")
        flusher = connection._flusher
        assert flusher is not None
        for _ in range(steps_before_cancel):
            await asyncio.sleep(0)
        flusher.cancel()
        for _ in range(3):
            await asyncio.sleep(0)
        assert flusher.cancelled()
        assert connection._flusher is None
        assert connection.closed and connection.finished.is_set()
        assert not connection.pending
        connection.send("after")
        socket.open_.set()
        await asyncio.sleep(0)
        assert socket.written == []

    asyncio.run(scenario(0))  # cancelled before its first step
    asyncio.run(scenario(1))  # cancelled inside the socket's send


class DirectWriter:
    """The server's direct frame writer as a Connection sees it: takes frames (one or
    more, in one write) while ``can`` is set, else refuses them all."""

    def __init__(self) -> None:
        self.can = True
        self.writes: list[tuple[bytes, ...]] = []

    def __call__(self, *payloads: bytes) -> bool:
        if not self.can:
            return False
        self.writes.append(payloads)
        return True


def test_an_ack_and_its_state_go_out_in_one_write() -> None:
    """send_both hands both texts to the direct writer at once (one system call), in order;
    where it cannot take them, they go the usual way, still in order, each once."""

    async def scenario() -> None:
        socket = Socket()
        direct = DirectWriter()
        connection = Connection(socket.send, 0, direct)
        connection.send_both("ack", "state")
        assert direct.writes == [(b"ack", b"state")]
        assert socket.written == []
        direct.can = False  # a full buffer: through ASGI, one message after the other
        connection.send_both("ack 2", "state 2")
        assert socket.written == ["ack 2", "state 2"]
        assert direct.writes == [(b"ack", b"state")]

    asyncio.run(scenario())


def test_an_ack_and_its_state_queue_behind_a_write_in_flight() -> None:
    """While an earlier message waits for a slow reader, send_both must not overtake it."""

    async def scenario() -> None:
        socket = Socket(writable=False)
        direct = DirectWriter()
        direct.can = False
        connection = Connection(socket.send, 0, direct)
        connection.send("earlier")
        direct.can = True  # the buffer drained, but a write is still in flight
        connection.send_both("ack", "state")
        assert direct.writes == []
        socket.open_.set()
        await settle(connection)
        assert socket.written == ["earlier", "ack", "state"]
        connection.close()
        connection.send_both("late ack", "late state")  # closed: nothing more
        assert direct.writes == [] and socket.written == ["earlier", "ack", "state"]

    asyncio.run(scenario())
