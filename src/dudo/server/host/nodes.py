"""Running the server: one process, one cluster node, or N nodes behind one port.

``dudo serve`` runs one process. ``dudo serve --cluster redis://...`` runs one node of a
cluster: on SIGTERM it hands its rooms off *before* it stops listening (a rolling deploy
drops no game). ``dudo serve --cluster ... --workers N`` starts N nodes on this machine
that share one listening socket (the kernel spreads connections over them), each with a
private port of its own where the others relay requests for rooms it holds; a node that
dies is started again, and its rooms were taken over by the others meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from dudo.server.guard.gate import Gate
from dudo.server.host.banner import Banner
from dudo.server.host.direct_frames import direct_frames_protocol
from dudo.server.logs import configure as configure_logs
from dudo.server.logs import log_event
from dudo.server.web.app import ServerSettings, create_app

log = logging.getLogger("dudo.nodes")


@dataclass
class Launch:
    """How ``dudo serve`` was asked to run (what a worker process needs to start)."""

    host: str
    port: int
    database: str
    log_level: str = "info"
    proxies: list[str] = field(default_factory=list)
    cluster: str | None = None
    advertise: str | None = None
    workers: int = 1
    log_format: str = "json"  # "text" or "json" (resolved: workers inherit the terminal)
    share_origins: list[str] = field(default_factory=list)  # what friends open (ServerSettings)
    banner: Banner | None = None  # shown once the server listens


class DrainingServer(uvicorn.Server):
    """uvicorn, but a cluster node hands its rooms to the others before it closes its
    sockets and waits for connections: clients are sent to reconnect with 4412 while the
    surviving nodes are already taking the rooms over. ``banner`` is shown once it
    listens (the application started, the sockets bound), not before."""

    def __init__(self, config: uvicorn.Config, banner: Banner | None = None) -> None:
        super().__init__(config)
        self.banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.banner is not None and self.started and not self.should_exit:
            self.banner.show()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        app = self.config.app
        drain = getattr(getattr(app, "state", None), "drain", None)
        if drain is not None:
            try:
                await drain()
            except Exception:
                log.exception("handing rooms off failed")
        await super().shutdown(sockets)


def gated_protocol(gate: Gate) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol, but a connection from an address that is flooding (more new
    connections than Gate.accept allows) is closed as soon as it is accepted, before its
    request is read. Only where the server sees its clients' own addresses: not behind a
    proxy (every client would share the proxy's address), and not in a cluster, whose
    nodes relay each other's players from their own few addresses (a cluster stands
    behind a balancer, which is where its flood limit belongs, docs/deploy.md)."""

    class GatedProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
        dropped = False

        def connection_made(self, transport: Any) -> None:
            peer = transport.get_extra_info("peername")
            if peer and not gate.accept(peer[0]):
                self.dropped = True
                transport.abort()
                return
            super().connection_made(transport)

        def data_received(self, data: bytes) -> None:
            if not self.dropped:
                super().data_received(data)

        def eof_received(self) -> None:
            if not self.dropped:
                super().eof_received()

        def connection_lost(self, exc: Exception | None) -> None:
            if not self.dropped:
                super().connection_lost(exc)

    return GatedProtocol


def uvicorn_config(
    launch: Launch, app: Any, settings: ServerSettings | None = None
) -> uvicorn.Config:
    # No access log: WebSocket URLs carry seat tokens, which must not land in logs. No
    # per-message compression: state messages are small and compressing them cost more
    # server time and memory than it saved (docs/benchmarks.md).
    gate = getattr(app.state, "gate", None)
    options: dict[str, Any] = {}
    if gate is not None and not launch.proxies and not launch.cluster:
        options["http"] = gated_protocol(gate)
    # Tables write their frames without an ASGI message each (direct_frames).
    options["ws"] = direct_frames_protocol()
    return uvicorn.Config(
        app,
        host=launch.host,
        port=launch.port,
        **options,
        log_level=launch.log_level.lower(),
        log_config=None,
        # The app believes the proxies itself (dudo.server.guard.proxies).
        proxy_headers=False,
        access_log=False,
        ws_max_size=16 * 1024,
        ws_ping_interval=settings.ws_ping_interval if settings else 20.0,
        ws_ping_timeout=settings.ws_ping_timeout if settings else 20.0,
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=10,
    )


def settings_for(launch: Launch, advertise: str | None) -> ServerSettings:
    settings = ServerSettings.from_env(launch.database)
    settings.cluster = launch.cluster
    settings.proxies = tuple(launch.proxies)
    settings.advertise = advertise
    # DUDO_SHARE_ORIGINS, when set, names what to share instead of this machine's addresses.
    settings.share_origins = settings.share_origins or tuple(launch.share_origins)
    return settings


def default_advertise(host: str, port: int) -> str:
    """Where other nodes reach this one when --advertise is not given: the listening
    address, or this machine's own address when it listens on all of them (the address
    of its way out: a host name can resolve to 127.0.1.1 on Debian)."""
    if host in ("0.0.0.0", "::", ""):
        host = own_address()
    return f"http://{host}:{port}"


def own_address() -> str:
    """This machine's address on its default route (a UDP 'connection' sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere real
            address: str = probe.getsockname()[0]
            return address
        except OSError:
            return socket.gethostbyname(socket.gethostname())


def serve(launch: Launch) -> None:
    """Run the server in this process (one node), or start the workers."""
    if launch.workers > 1:
        run_workers(launch)
        return
    advertise = None
    if launch.cluster:
        advertise = launch.advertise or default_advertise(launch.host, launch.port)
    settings = settings_for(launch, advertise)
    app = create_app(settings)
    DrainingServer(uvicorn_config(launch, app, settings), launch.banner).run()


def _worker(launch: Launch, shared: socket.socket, number: int, first: bool) -> None:
    """One node of ``--workers``: the shared socket for clients and a private one for the
    other nodes' relays: on the loopback, or on all addresses under the host that
    ``--advertise http://HOST`` names (worker groups on several machines)."""
    configure_logs(launch.log_level.upper(), launch.log_format)
    private = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    private.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    private.bind(("0.0.0.0" if launch.advertise else "127.0.0.1", 0))
    private.listen(512)
    reached_at = launch.advertise.rstrip("/") if launch.advertise else "http://127.0.0.1"
    address = f"{reached_at}:{private.getsockname()[1]}"
    settings = settings_for(launch, address)
    app = create_app(settings)
    log_event(log, "worker_started", worker=number, relay_address=address)
    banner = launch.banner if number == 0 and first else None  # once, not per worker
    DrainingServer(uvicorn_config(launch, app, settings), banner).run(sockets=[shared, private])


def run_workers(launch: Launch) -> None:
    """Start ``launch.workers`` nodes sharing one listening socket; restart any that
    dies; on SIGTERM or Ctrl-C, ask each to drain and wait for them."""
    shared = socket.socket(
        socket.AF_INET6 if ":" in launch.host else socket.AF_INET, socket.SOCK_STREAM
    )
    shared.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    shared.bind((launch.host, launch.port))
    shared.listen(2048)
    shared.set_inheritable(True)
    spawn = multiprocessing.get_context("spawn")
    workers: dict[int, Any] = {}

    def start(number: int, first: bool = False) -> None:
        process = spawn.Process(
            target=_worker, args=(launch, shared, number, first), name=f"dudo-node-{number}"
        )
        process.start()
        workers[number] = process

    stopping = False

    def stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True
        for process in workers.values():
            if process.is_alive() and process.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for number in range(launch.workers):
        start(number, first=True)
    while not stopping:
        time.sleep(0.5)
        for number, process in list(workers.items()):
            if not process.is_alive() and not stopping:
                log_event(log, "worker_died", worker=number, exit_code=process.exitcode)
                start(number)
    for process in workers.values():
        process.join(timeout=30)
        if process.is_alive():
            process.kill()
    shared.close()
