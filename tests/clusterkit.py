"""Real servers for the cluster's tests: a Redis server of the test's own, a database all
nodes share (a PostgreSQL schema of the test's own when DUDO_TEST_POSTGRES is set, which
CI requires, else a SQLite file), and ``dudo serve --cluster`` node processes."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from serverkit import free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from scratchredis import ScratchRedis

POSTGRES = os.environ.get("DUDO_TEST_POSTGRES")
REDIS_SERVER = shutil.which("redis-server")

# Fast clocks for tests: a node is dead 1.5 s after its last renewal, renewed every 0.3 s.
FAST_CLUSTER = {
    "DUDO_LEASE": "1.5",
    "DUDO_RENEW_EVERY": "0.3",
    "DUDO_RESCAN_EVERY": "5",
    "DUDO_BOT_DELAY": "0.02",
    "DUDO_REVEAL_PAUSE": "0",
    "DUDO_SEED_WINDOW": "0",
    "DUDO_GRACE": "3600",
    "DUDO_CREATION_BURST": "100000",
    "DUDO_CONNECT_BURST": "100000",
    "DUDO_ACCEPT_BURST": "100000",
    "DUDO_ADDRESS_MESSAGE_BURST": "100000",
    "DUDO_MESSAGE_BURST": "100000",
    "DUDO_SOCKETS_PER_ADDRESS": "100000",
    "DUDO_GC": "python",
}


def need_redis() -> str:
    """redis-server's path; missing it fails under CI (.ci/run installs it) and skips
    elsewhere."""
    if REDIS_SERVER is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install redis-server (.ci/run)")
        pytest.skip("no redis-server on this machine")
    return REDIS_SERVER


@contextlib.contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A throwaway Redis on a free port; yields its URL."""
    with ScratchRedis(directory, need_redis()) as redis:
        yield redis.url


@contextlib.contextmanager
def shared_database(directory: Path) -> Iterator[str]:
    """A database URL for all nodes of one test, dropped at the end."""
    if not POSTGRES:
        if os.environ.get("CI"):
            pytest.fail("CI must provide PostgreSQL in DUDO_TEST_POSTGRES")
        yield f"sqlite:///{directory / 'cluster.db'}"
        return
    schema = f"dudo_cluster_{secrets.token_hex(4)}"
    separator = "&" if "?" in POSTGRES else "?"
    try:
        yield f"{POSTGRES}{separator}schema={schema}"
    finally:
        dsn = POSTGRES.replace("postgresql://", "postgres://", 1)
        subprocess.run(
            ["psql", dsn, "-q", "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'],
            capture_output=True,
            timeout=30,
        )


@dataclass
class Node:
    """One ``dudo serve --cluster`` process."""

    base: str
    process: subprocess.Popen[bytes]
    log: Path
    port: int

    def kill(self) -> None:
        """SIGKILL: no drain, no goodbye; the lease simply stops being renewed."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def terminate(self, timeout: float = 30) -> int:
        """SIGTERM, as a rolling deploy does: the node drains, then exits."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@dataclass
class Cluster:
    redis: str
    database: str
    directory: Path
    env: dict[str, str] = field(default_factory=dict)
    log_level: str = "warning"
    nodes: list[Node] = field(default_factory=list)

    def start_node(self, extra_env: dict[str, str] | None = None) -> Node:
        """A node process, ready (its /healthz answers 200); logs at ``log_level``."""
        port = free_port()
        log = self.directory / f"node-{port}.log"
        environment = {**os.environ, **FAST_CLUSTER, **self.env, **(extra_env or {})}
        with log.open("wb") as out:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "dudo",
                    "serve",
                    "--port",
                    str(port),
                    "--database",
                    self.database,
                    "--cluster",
                    self.redis,
                    "--advertise",
                    f"http://127.0.0.1:{port}",
                    "--log-level",
                    self.log_level,
                ],
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        node = Node(f"http://127.0.0.1:{port}", process, log, port)
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{node.base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                node.kill()
                raise RuntimeError(f"a node did not start:\n{node.output()}")
            time.sleep(0.1)
        self.nodes.append(node)
        return node

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()


@contextlib.contextmanager
def cluster(
    directory: Path, nodes: int = 3, env: dict[str, str] | None = None, log_level: str = "warning"
) -> Iterator[Cluster]:
    """Redis, a shared database and ``nodes`` node processes, all torn down at the end."""
    with redis_server(directory) as redis, shared_database(directory) as database:
        running = Cluster(redis, database, directory, env or {}, log_level)
        try:
            for _ in range(nodes):
                running.start_node()
            yield running
        finally:
            running.stop()
