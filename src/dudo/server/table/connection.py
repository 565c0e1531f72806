"""One socket of a room, as the room sees it: an ordered, bounded outbox.

The room must never wait on a socket (a slow phone would hold up the whole table), and with
thousands of sockets the way a message is written matters too (docs/benchmarks.md):

- A message is written at once when the socket can take it: by the server's direct frame
  writer where it offers one (``write_now``: ``dudo serve``'s, in
  dudo.server.host.direct_frames), else by running the ASGI ``send`` coroutine eagerly, in
  the room's own step: for a writable socket it finishes without ever waiting, so no task
  is made, scheduled and dropped per message.
- Only when ``send`` has to wait (the client reads slowly) does a task carry it on, and
  messages queue behind it in a bounded buffer; a socket that falls too far behind is
  closed.
- No task stays parked per socket: a waiting task leaves a fresh coroutine and future per
  message for the garbage collector's young generation.
"""

from __future__ import annotations

import asyncio
import itertools
import types
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, Protocol

import orjson


class WriteNow(Protocol):
    """Writes text frames at once, in one write to the socket: False (none written) when
    the socket cannot take them now (see dudo.server.host.direct_frames)."""

    def __call__(self, *payloads: bytes) -> bool: ...


def dumps(data: Any) -> str:
    """Compact JSON text; orjson because encoding states is the server's hottest path."""
    return orjson.dumps(data).decode()


@types.coroutine
def _carry_on(started: Coroutine[Any, Any, Any], waiting_on: Any) -> Generator[Any, None, Any]:
    """Continue a coroutine that already ran up to its first wait, inside a task.

    ``waiting_on`` is what the coroutine yielded (the future it waits for); handing it to
    the task makes the task wake us when it is done, exactly as ``await`` would have.
    """
    try:
        yield waiting_on
    except BaseException:  # cancelled while waiting: let the coroutine clean up
        started.close()
        raise
    return (yield from started.__await__())


_opened = itertools.count()


class Connection:
    """One socket in a room: a seat's, or a spectator's (``seat is None``)."""

    QUEUE_LIMIT = 256
    FLUSH_PATIENCE = 2.0

    def __init__(
        self,
        send: Callable[[str], Awaitable[Any]],
        seat: int | None,
        write_now: WriteNow | None = None,
    ) -> None:
        self._send = send
        self._write_now = write_now
        self.seat = seat
        self.opened = next(_opened)  # orders a seat's sockets, oldest first
        self.pending: deque[str] = deque()
        self.closed = False
        self._closed_with_reason = False  # closed by the room with a code (see close)
        # The WebSocket close code the transport should use once the room lets go of
        # us: 1008 (policy) for a reader too slow to keep up, or the room's own reason.
        self.close_code = 1008
        self.finished = asyncio.Event()
        self._flusher: asyncio.Task[None] | None = None

    def send(self, message: dict[str, Any] | str) -> None:
        """Write ``message`` now if the socket can take it, else queue it behind the
        write in progress. Never waits."""
        if self.closed:
            return
        text = message if isinstance(message, str) else dumps(message)
        if self._flusher is not None:
            if len(self.pending) >= self.QUEUE_LIMIT:
                self.close()  # too slow to keep up: the socket is closed
                return
            self.pending.append(text)
            return
        if self._write_now is not None:
            try:
                if self._write_now(text.encode()):
                    return  # written
            except Exception:  # the socket went away
                self.close()
                return
            # Not now (a full write buffer, a closing socket): through ASGI, which waits
            # for the buffer or tells that the socket is gone.
        write = self._send(text)
        # (An exact type check: an ABC's isinstance costs more than the write's frame.)
        if type(write) is not types.CoroutineType:  # a plain awaitable: no eager path
            self._start_flusher(write)
            return
        try:
            waiting_on = write.send(None)
        except StopIteration:
            return  # written
        except Exception:  # the socket went away
            self.close()
            return
        self._start_flusher(_carry_on(write, waiting_on))

    def send_both(self, first: str, second: str) -> None:
        """Send two messages in order (an action's ack, then the state it led to): in one
        write to the socket when the server writes frames directly and the socket can take
        them now (one system call instead of two), else as two :meth:`send`."""
        if not self.closed and self._flusher is None and self._write_now is not None:
            try:
                if self._write_now(first.encode(), second.encode()):
                    return  # both written
            except Exception:  # the socket went away
                self.close()
                return
        self.send(first)
        self.send(second)

    def _start_flusher(self, first: Awaitable[Any]) -> None:
        self._flusher = asyncio.get_running_loop().create_task(self._flush(first))
        self._flusher.add_done_callback(self._flush_ended)

    async def _flush(self, first: Awaitable[Any]) -> None:
        try:
            await first
            while self.pending and not self.closed:
                await self._send(self.pending.popleft())
        except Exception:  # the socket went away while we wrote
            self.close()
        finally:
            self._flusher = None  # at once: a send right after must start a new flusher

    def _flush_ended(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():  # cut off, perhaps before it began: the stream has a gap
            if self._flusher is task:
                self._flusher = None
            self.close()

    async def write_forever(self) -> None:
        """Wait until the connection is closed (by the room, or for being too slow). When
        the room let it go with a reason, also for a write still in flight then (up to
        ``FLUSH_PATIENCE`` seconds): the close frame must not overtake the message that
        says why. A reader too slow to keep up is closed at once."""
        await self.finished.wait()
        flusher = self._flusher
        if flusher is not None and self._closed_with_reason:
            await asyncio.wait({flusher}, timeout=self.FLUSH_PATIENCE)

    def close(self, code: int | None = None) -> None:
        if code is not None and not self.closed:
            self.close_code = code
            self._closed_with_reason = True
        self.closed = True
        self.pending.clear()
        self.finished.set()
