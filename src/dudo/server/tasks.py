"""Ending a task so that shutting down can never hang on it.

``task.cancel(); await task`` waits forever when the cancellation is lost, and on Python
3.11 that happens: ``asyncio.wait_for`` drops a cancellation that lands just as what it
waits for finishes, and redis-py's asyncio client can swallow one that lands
mid-command (redis/redis-py#2028). A room stopped just as it saved a finished game kept
running and parked on its inbox, and whoever stopped it waited for good (a CI run hung on
it). So a task is cancelled again until it ends, within a patience, and a task that will
not end is logged and left behind instead of holding up the caller.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from dudo.server.logs import log_event

log = logging.getLogger("dudo.server")


async def stop_task(task: asyncio.Task[Any], patience: float = 5.0) -> None:
    """Cancel ``task`` and wait for it to end, cancelling again if a cancellation was lost;
    after ``patience`` seconds, log it and return. A failure it ended with is logged. If
    the caller is cancelled meanwhile, that cancellation is the caller's: it propagates."""
    end = time.monotonic() + patience
    while not task.done():
        if time.monotonic() > end:
            log_event(log, "task_would_not_stop", logging.WARNING, task=task.get_name())
            return
        task.cancel()
        await asyncio.wait({task}, timeout=0.2)
    if not task.cancelled() and task.exception() is not None:
        log.error("background task failed", exc_info=task.exception())
