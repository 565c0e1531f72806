"""A ``dudo serve`` started by a test (``serverkit.server_process``) dies with the process
that started it, even when that process ends without running its ``finally`` blocks: that is
how pytest's timeout ends a worker (``os._exit``), and its server used to stay behind.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from serverkit import DIES_WITH_US

TESTS = Path(__file__).resolve().parents[2]

# A worker in miniature: starts a server, says its pid, and ends at once, skipping the
# context manager's cleanup.
WORKER = """
import os, sys
from pathlib import Path
from serverkit import server_process, sqlite_url
with server_process(sqlite_url(Path(sys.argv[1]))) as (base, process):
    print(process.pid, flush=True)
    os._exit(3)
"""


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_tests_server_dies_when_the_worker_that_started_it_is_ended(tmp_path: Path) -> None:
    assert DIES_WITH_US, "setpriv (util-linux) is needed to tie a server to its test"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    worker = subprocess.run(
        [sys.executable, "-c", WORKER, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert worker.returncode == 3, worker.stderr
    server = int(worker.stdout.split()[0])
    deadline = time.monotonic() + 10
    while alive(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    still = alive(server)
    if still:
        os.kill(server, 9)
    assert not still, f"the server {server} outlived the worker that started it"
