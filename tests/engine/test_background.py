"""Background work (endgame solves, analyses) yields the CPU unless told otherwise."""

from __future__ import annotations

import os
import subprocess
import sys

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
