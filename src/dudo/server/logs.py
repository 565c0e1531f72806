"""Structured logs: one JSON object a line, so operators can filter and count them.

``log_event(logger, "game_over", room="ABCD", winners=[2])`` writes
``{"time": ..., "level": "info", "logger": "dudo.room", "event": "game_over", "room":
"ABCD", "winners": [2]}``. Nothing secret is ever logged: no tokens, no dice before a
reveal, no server seeds.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

TOKEN_IN_URL = re.compile(r"(token=)[^&\s\"']+")


def redact(text: str) -> str:
    """Hide seat tokens that a URL in a message would carry (uvicorn logs WebSocket URLs)."""
    return TOKEN_IN_URL.sub(r"\1<redacted>", text)


class JsonFormatter(logging.Formatter):
    """Format records as JSON lines; fields given to :func:`log_event` become keys.
    Seat tokens in messages are redacted."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            data.update(fields)
        else:
            data["message"] = redact(record.getMessage())
        if record.exc_info:
            data["error"] = redact(self.formatException(record.exc_info))
        return json.dumps(data, default=str)


def log_event(logger: logging.Logger, event: str, level: int = logging.INFO,
              **fields: Any) -> None:
    """Log one event with named fields."""
    if logger.isEnabledFor(level):
        logger.log(level, event, extra={"fields": {"event": event, **fields}})


def configure(level: str = "INFO") -> None:
    """Send every log record of the process, uvicorn's included, as JSON lines to stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    logging.Formatter.converter = time.gmtime
