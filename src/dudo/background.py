"""Background work yields the CPU: endgame solves and game analyses run beside live rooms.

A process that solves an endgame (:mod:`dudo.bots.solved`) or makes a game's analysis
(:mod:`dudo.server.web.replays`) calls :func:`lower_priority` first. By default it moves to
Linux's SCHED_IDLE class: a task of the normal class that wakes (a room's event loop, on a
player's message) preempts an idle-class task at once, where a nice-19 task may finish its
time slice first (milliseconds a live room's ping would wait, on a machine where the worker
shares the loop's core). Elsewhere it takes nice 19.

The price is that background work gets only CPU nobody else wants: on a machine kept busy
(an arena on every core, a test suite on both) a solve or an analysis may wait minutes.
``$DUDO_BACKGROUND_PRIORITY=normal`` leaves such processes at the normal priority, for a
machine that runs no live rooms; ``idle`` (the default) is the above.

Such a process also ends with the process it works for (:func:`stop_with_parent`): a
server killed outright (``kill -9``, a crash, the out-of-memory killer) does not leave its
workers behind, each holding its memory for nothing.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time

PRIORITY_VARIABLE = "DUDO_BACKGROUND_PRIORITY"
PRIORITIES = ("idle", "normal")


def background_priority() -> str:
    """The priority ``$DUDO_BACKGROUND_PRIORITY`` asks for (``idle`` if unset); a value
    it does not know is an error that names the ones it does."""
    asked = os.environ.get(PRIORITY_VARIABLE, "idle").strip().lower() or "idle"
    if asked not in PRIORITIES:
        raise ValueError(
            f"{PRIORITY_VARIABLE} must be one of {', '.join(PRIORITIES)}, not {asked!r}"
        )
    return asked


def lower_priority() -> None:
    """Make this process yield the CPU to live rooms (see the module), unless
    ``$DUDO_BACKGROUND_PRIORITY`` is ``normal``."""
    if background_priority() == "normal":
        return
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, idle, os.sched_param(0))
            return
    with contextlib.suppress(OSError):  # not allowed: it still runs outside the GIL
        os.nice(19)


def stop_with_parent() -> None:
    """Exit once the process that started this one is gone: its work was for that process.
    A worker of a ``multiprocessing`` pool never hears of its parent's death by itself (it
    holds both ends of its own call queue's pipe, so no end of file comes), and a killed
    server's analysis worker stayed for good. Checked once a second by a daemon thread."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def background_worker_started() -> None:
    """What a background worker process does first: :func:`lower_priority`, then
    :func:`stop_with_parent` (a pool's ``initializer``)."""
    lower_priority()
    stop_with_parent()
