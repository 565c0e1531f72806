"""Ctrl-C (or a failing bot) stops a parallel arena or ladder at once: the games still
queued are cancelled instead of played to the end behind a process that looks stuck, and
no worker process outlives the run (before, once the run had returned, its workers could
go on playing every queued game: seen as four processes busy for the rest of a test run)."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from dudo.bots.arena import run_arena
from dudo.bots.ladder import run_ladder
from dudo.rules import Rules


def interrupt(done: int) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize("run", [run_arena, run_ladder])
def test_an_interrupt_stops_a_parallel_run_without_playing_the_queued_games(run: object) -> None:
    before = set(multiprocessing.active_children())
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run(  # type: ignore[operator]
            ["normal", "easy"], 200_000, Rules.preset("perudo"), jobs=2, progress=interrupt
        )
    assert time.monotonic() - started < 10  # 200,000 games of normal take minutes
    # The workers end once the games they had started are over (a few seconds at most).
    deadline = time.monotonic() + 30
    while set(multiprocessing.active_children()) - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not set(multiprocessing.active_children()) - before, "workers still playing"
