"""A TCP proxy a test can break: in front of a real database, it forwards bytes, refuses
connections (``down``: the port closed, every link cut) or swallows them (``blackhole``:
connections are accepted and bytes go nowhere, the way a dead network path looks).

It runs its own event loop on a thread, so a test can drive a server process and the
proxy from plain synchronous code.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator


class Proxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.mode = "open"
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, daemon=True, name="tcp-proxy"
        )
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()

    # -- from the test's thread -----------------------------------------------------------

    def start(self) -> None:
        self._thread.start()
        self._call(self._listen())

    def stop(self) -> None:
        self._call(self._close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def down(self) -> None:
        """Refuse connections: the port is closed and open links are cut."""
        self.mode = "down"
        self._call(self._close())

    def blackhole(self) -> None:
        """Accept connections and drop every byte, both ways, on old links and new."""
        self.mode = "blackhole"

    def restore(self) -> None:
        """Forward again. Links that lived through a blackhole are cut (their streams lost
        bytes); new ones work."""
        was = self.mode
        self.mode = "open"
        if was == "blackhole":
            self._call(self._cut_links())
        elif was == "down":
            self._call(self._listen())

    def _call(self, coroutine: object) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)  # type: ignore[arg-type]

    # -- on the proxy's loop --------------------------------------------------------------

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(
            self._serve, "127.0.0.1", self.port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        await self._cut_links()

    async def _cut_links(self) -> None:
        for writer in list(self._links):
            with contextlib.suppress(Exception):
                writer.transport.abort()
        self._links.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "down":
            writer.transport.abort()
            return
        self._links.add(writer)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._links.add(upstream_writer)
        await asyncio.gather(
            self._pump(reader, upstream_writer),
            self._pump(upstream_reader, writer),
            return_exceptions=True,
        )
        for end in (writer, upstream_writer):
            self._links.discard(end)
            with contextlib.suppress(Exception):
                end.transport.abort()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if self.mode == "open":
                writer.write(data)
                await writer.drain()
            # blackhole: the bytes are dropped (the other side waits for an answer)
        writer.transport.abort()


@contextlib.contextmanager
def proxy_to(host: str, port: int) -> Iterator[Proxy]:
    proxy = Proxy(host, port)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()
