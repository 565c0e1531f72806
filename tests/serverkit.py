"""Shared helpers for server tests: fast settings, a controllable clock and entropy, and
a real server process on a free port."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from dudo.client import Client, ClientError
from dudo.server.guard.gate import GateLimits
from dudo.server.site.lobby import Lobby, SiteLimits
from dudo.server.table.room import RoomConfig
from dudo.server.web.app import ServerSettings, create_app
from dudo.store import Store
from dudo.store.base import MemoryStore

OPEN_GATE = GateLimits(
    sockets_per_address=100_000,
    connect_burst=100_000,
    address_message_burst=100_000,
    message_burst=100_000,
)


def real_seat_limits() -> GateLimits:
    """The server's own per-seat message budget, with the per-address ones lifted (test
    clients all share one address)."""
    return GateLimits(
        sockets_per_address=100_000, connect_burst=100_000, address_message_burst=100_000
    )


def fast_config(**changes: Any) -> RoomConfig:
    """No pauses: bots act at once, rounds roll at once (timers still work)."""
    config = RoomConfig(
        bot_delay=0.0, reveal_pause=0.0, seed_window=0.0, grace=30.0, quick_fill=0.0
    )
    for name, value in changes.items():
        setattr(config, name, value)
    return config


class FakeClock:
    """Wall-clock time that only moves when a test says so."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class CountingEntropy:
    """Deterministic 'random' bytes: the same sequence every run (for exact replays)."""

    def __init__(self, label: str = "test") -> None:
        self.label = label
        self.count = 0

    def __call__(self, size: int) -> str:
        self.count += 1
        digest = b""
        block = 0
        while len(digest) < size:
            digest += hashlib.sha256(f"{self.label}|{self.count}|{block}".encode()).digest()
            block += 1
        return digest[:size].hex()


class LobbyHolder:
    """Filled in when the app's lifespan starts."""

    lobby: Lobby | None = None


def app_and_lobby(
    config: RoomConfig | None = None,
    store: Store | None = None,
    clock: Callable[[], float] | None = None,
    entropy: Callable[[int], str] | None = None,
    deal: Callable[..., Any] | None = None,
    **settings: Any,
) -> tuple[Any, LobbyHolder]:
    """An app on a memory store with the given clock, entropy and dealing rule, and a
    holder that gets its lobby; ``settings`` change ServerSettings (``gate``, ``limits``...)."""
    holder = LobbyHolder()
    # The collector's policy pays one full collection per app start-up, which over a
    # session of hundreds of apps and a big heap doubles the suite's time; it has tests of
    # its own (test_collector.py), including one in a live app. Pass gc_policy="clock".
    settings.setdefault("gc_policy", "python")
    # Tests make many rooms from one address; the limits have tests of their own.
    settings.setdefault("limits", SiteLimits(creation_burst=100_000))
    # All test clients share one address, and many tests open socket after socket for one
    # seat: the budgets are lifted (tests/server/guard/test_gate.py and the rate-limit tests pass
    # GateLimits of their own).
    settings.setdefault("gate", OPEN_GATE)
    server_settings = ServerSettings(database="memory://", room=config or fast_config(), **settings)

    def lobby_factory(store_: Store, room_config: RoomConfig) -> Lobby:
        options: dict[str, Any] = {}
        if clock is not None:
            options["clock"] = clock
        if entropy is not None:
            options["entropy"] = entropy
        if deal is not None:
            options["deal"] = deal
        holder.lobby = Lobby(store_, room_config, **options)
        return holder.lobby

    return create_app(server_settings, store or MemoryStore(), lobby_factory), holder


def make_app(
    config: RoomConfig | None = None,
    store: Store | None = None,
    clock: Callable[[], float] | None = None,
    entropy: Callable[[int], str] | None = None,
    deal: Callable[..., Any] | None = None,
    **settings: Any,
) -> Any:
    """An app on a memory store with the given clock, entropy and dealing rule."""
    return app_and_lobby(config, store, clock, entropy, deal, **settings)[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# A server started by a test dies with the process that started it: a worker that pytest's
# timeout ends (``os._exit``, no ``finally``) would otherwise leave its ``dudo serve`` running.
# util-linux's ``setpriv`` sets Linux's parent-death signal and execs the server (same pid);
# where it is missing, the server is started as before. The signal follows the thread that
# started the process, so only the main thread starts servers through this.
DIES_WITH_US = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []


@contextlib.contextmanager
def server_process(
    database: str,
    port: int | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``dudo serve`` as a real process; yields (base URL, process); killed at the end."""
    port = port or free_port()
    environment = {
        **os.environ,
        "DUDO_BOT_DELAY": "0",
        "DUDO_REVEAL_PAUSE": "0",
        "DUDO_SEED_WINDOW": "0",
        "DUDO_CREATION_BURST": "100000",
        "DUDO_CONNECT_BURST": "100000",
        "DUDO_ACCEPT_BURST": "100000",
        "DUDO_ADDRESS_MESSAGE_BURST": "100000",
        **(env or {}),
    }
    output = tempfile.NamedTemporaryFile(prefix="dudo-serve-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(
        [
            *DIES_WITH_US,
            sys.executable,
            "-m",
            "dudo",
            "serve",
            "--port",
            str(port),
            "--database",
            database,
            "--log-level",
            "warning",
        ],
        env=environment,
        stdout=output,
        stderr=subprocess.STDOUT,
    )
    # What the server writes goes to a file, read back through ``process.stdout`` (from the
    # start, when a test wants it): a pipe nobody reads while the server runs blocks the
    # server once 64 KiB of log lines fill it.
    output.close()
    process.stdout = open(output.name, "rb")  # noqa: SIM115 (closed in the finally below)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                printed = process.stdout.read().decode() if process.stdout else ""
                raise RuntimeError(f"the server did not start:\n{printed}")
            time.sleep(0.1)
        yield base, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        process.stdout.close()
        os.unlink(output.name)


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'dudo.db'}"


async def stored_record(client: Client, game_id: str) -> dict[str, Any]:
    """A finished game's record: it is stored a moment after the game-over state goes out,
    so a program that asks at once may hear ``no_game``; asked again for up to 5 s."""
    for _ in range(50):
        try:
            return await client.game_record(game_id)
        except ClientError:
            await asyncio.sleep(0.1)
    raise AssertionError(f"game {game_id} was not stored")
