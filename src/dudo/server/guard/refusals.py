"""Refused WebSocket handshakes: counted, and told to the operator at most once a minute.

The gate refuses a flooding address in the handshake itself (HTTP 429). uvicorn then logs
"ASGI callable returned without completing handshake." at error level for every one, as
if the app had failed: a flood of refusals became a flood of error lines. The refusal is
the app's own decision, so that line is dropped (only for handshakes this app denied,
known by a context variable set in the same task), each refusal is counted by reason for
/metrics, and one warning a minute says how many there were since the last.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from contextvars import ContextVar

from dudo.server.logs import log_event

log = logging.getLogger("dudo.gate")

UVICORN_LINE = "ASGI callable returned without completing handshake."
_DENIED: ContextVar[bool] = ContextVar("dudo_handshake_denied", default=False)


class HandshakeRefusals(logging.Filter):
    """Counts refused handshakes and quiets uvicorn's line about each (install it as a
    filter on the ``uvicorn.error`` logger)."""

    def __init__(self, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        self.by_reason: Counter[str] = Counter()
        self.unreported = 0
        self.warnings = 0
        self._last_warning: float | None = None

    @property
    def total(self) -> int:
        return sum(self.by_reason.values())

    def refused(self, reason: str) -> None:
        """A handshake this app is about to deny, for ``reason`` (the error code)."""
        _DENIED.set(True)
        self.by_reason[reason] += 1
        self.unreported += 1
        now = self.clock()
        if self._last_warning is None or now - self._last_warning >= self.every:
            log_event(
                log,
                "handshakes_refused",
                logging.WARNING,
                count=self.unreported,
                total=self.total,
                reasons=dict(self.by_reason),
                every_seconds=self.every,
            )
            self._last_warning = now
            self.unreported = 0
            self.warnings += 1

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_DENIED.get() and record.getMessage() == UVICORN_LINE)

    def metrics(self) -> list[str]:
        lines = ["# TYPE dudo_handshakes_refused_total counter"]
        for reason in sorted(self.by_reason) or ["too_many_sockets"]:
            lines.append(
                f'dudo_handshakes_refused_total{{reason="{reason}"}} {self.by_reason[reason]}'
            )
        return lines
