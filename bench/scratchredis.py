"""A throwaway Redis server for the cluster's benches and tests: ``redis-server`` on a free
port of 127.0.0.1, nothing saved to disk, killed at the end. One implementation for
bench/chaos.py, bench/cluster.py and tests/clusterkit.py (which imports it from here)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from types import TracebackType

from ports import free_port  # bench/ports.py, next to this file


class ScratchRedis:
    """``redis-server`` started in ``directory`` (its working folder) on a free port.

    :meth:`start` returns once the server answers a ping (``redis-cli``), or raises
    RuntimeError if it exits or stays silent for ``patience`` seconds; :meth:`stop` kills
    it. Also a context manager, yielding itself."""

    def __init__(self, directory: Path, binary: str = "redis-server", patience: float = 10.0):
        self.directory = directory
        self.binary = binary
        self.patience = patience
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None, "start() first"
        return self.process.pid

    def start(self) -> ScratchRedis:
        self.process = subprocess.Popen(
            [
                *(self.binary, "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--dir", str(self.directory)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + self.patience
        while not self.answers():
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)
        return self

    def answers(self) -> bool:
        """Whether the server answers a ping now."""
        probe = subprocess.run(
            ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True
        )
        return probe.stdout.strip() == "PONG"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def __enter__(self) -> ScratchRedis:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
