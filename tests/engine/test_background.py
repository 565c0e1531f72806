"""Background work (endgame solves, analyses) yields the CPU unless told otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dudo.background import PRIORITY_VARIABLE, background_priority

SHOW_POLICY = (
    "import os\n"
    "from dudo.background import lower_priority\n"
    "lower_priority()\n"
    "print(os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, 0))\n"
)


def policy_after_lowering(priority: str | None) -> tuple[int, int]:
    """(Scheduling policy, nice value) of a fresh process after ``lower_priority``."""
    env = {key: value for key, value in os.environ.items() if key != PRIORITY_VARIABLE}
    if priority is not None:
        env[PRIORITY_VARIABLE] = priority
    shown = subprocess.run(
        [sys.executable, "-c", SHOW_POLICY], env=env, capture_output=True, text=True, check=True
    )
    policy, nice = shown.stdout.split()
    return int(policy), int(nice)


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's scheduling classes")
def test_by_default_background_work_takes_the_idle_class_and_normal_leaves_it() -> None:
    assert policy_after_lowering(None)[0] == os.SCHED_IDLE
    assert policy_after_lowering("idle")[0] == os.SCHED_IDLE
    assert policy_after_lowering("normal") == (
        os.sched_getscheduler(0),
        os.getpriority(os.PRIO_PROCESS, 0),
    )


def test_an_unknown_priority_is_refused_with_the_ones_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PRIORITY_VARIABLE, "Normal ")
    assert background_priority() == "normal"
    monkeypatch.setenv(PRIORITY_VARIABLE, "high")
    with pytest.raises(ValueError, match="idle, normal, not 'high'"):
        background_priority()


# A server's analysis pool, its worker made to start, then the server gone without a word
# (as after kill -9 or a crash: os._exit runs no clean-up, no pool shutdown).
KILLED_SERVER = (
    "import os, sys\n"
    "from dudo.server.web.replays import worker_pool\n"
    "pool = worker_pool()\n"
    "print(pool.submit(os.getpid).result(timeout=60), flush=True)\n"
    "os._exit(0)\n"
)


def test_an_analysis_worker_ends_with_its_server_however_it_ends(tmp_path: Path) -> None:
    """A pool's worker holds both ends of its own queue's pipe, so it never saw its server
    die: each killed server left one behind for good (84 MB each; 45 of them after a day
    of test runs). It now watches for its parent and ends with it."""
    import time

    said = tmp_path / "worker.txt"  # a file, not a pipe: a worker left behind holds a pipe
    with said.open("w") as out:
        ended = subprocess.run([sys.executable, "-c", KILLED_SERVER], stdout=out, timeout=120)
    assert ended.returncode == 0
    worker = int(said.read_text().split()[-1])
    deadline = time.monotonic() + 15
    while os.path.exists(f"/proc/{worker}") and time.monotonic() < deadline:
        time.sleep(0.2)
    alive = os.path.exists(f"/proc/{worker}")
    if alive:
        os.kill(worker, 9)  # not left behind by this test either
    assert not alive, "the analysis worker outlived its server"
