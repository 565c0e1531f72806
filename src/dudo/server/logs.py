"""Logs: JSON lines for operators, or short readable lines for a person at a terminal.

``log_event(logger, "game_over", room="ABCD", winners=[2])`` writes, as JSON,
``{"time": ..., "level": "info", "logger": "dudo.room", "event": "game_over", "room":
"ABCD", "winners": [2]}``, and as text ``21:04:05 info    game_over room=ABCD winners=[2]``.
Nothing secret is ever logged: no tokens, no dice before a reveal, no server seeds, and no
password of a database's or Redis's URL (every line is scrubbed of URL passwords,
whatever logged it: :func:`dudo.store.base.hide_password`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from typing import Any, TextIO
from urllib.parse import unquote_plus

from dudo.store.base import hide_password

# A parameter's name starts where no name character precedes it (without that anchor a long
# run of letters without "=", which anyone can put in a URL the server logs, is tried from
# every position: seconds of the event loop for one request). Its value stops at a "?" (an
# unencoded URL inside a value has parameters of its own) and at a backslash (a JSON line's
# escaped quote).
QUERY_PARAMETER = re.compile(r"(?<![\w%.~+-])([\w%.~+-]+)=([^&\s\"'?\\]+)")
LOG_FORMATS = ("auto", "text", "json")


def _hide_token(parameter: re.Match[str]) -> str:
    """A parameter's value hidden when its name, decoded as a server decodes a query's
    (``%74oken`` is ``token``), names a token."""
    name = parameter.group(1)
    if unquote_plus(name).lower().endswith("token"):
        return f"{name}=<redacted>"
    return parameter.group(0)


def redact(text: str) -> str:
    """Hide seat tokens that a URL in a message would carry (uvicorn logs WebSocket URLs as
    they were sent, so a name spelled with escapes is decoded first) and the password of
    any URL (a driver's traceback may quote its database's)."""
    return hide_password(QUERY_PARAMETER.sub(_hide_token, text))


class JsonFormatter(logging.Formatter):
    """Format records as JSON lines; fields given to :func:`log_event` become keys.
    Seat tokens and secrets are redacted."""

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
            data["message"] = record.getMessage()
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return redact(json.dumps(data, default=str))


def log_event(logger: logging.Logger, event: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log one event with named fields."""
    if logger.isEnabledFor(level):
        logger.log(level, event, extra={"fields": {"event": event, **fields}})


COLOURS = {"WARNING": "\033[33m", "ERROR": "\033[31m", "CRITICAL": "\033[1;31m", "DEBUG": "\033[2m"}


def _value(value: Any) -> str:
    if isinstance(value, str) and value and not any(c.isspace() or c in '"=' for c in value):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """One short line a record for a person: local time, level, event, ``key=value``
    fields (an exception's traceback follows, indented). Tokens and secrets redacted."""

    def __init__(self, colour: bool = False) -> None:
        super().__init__()
        self.colour = colour

    def format(self, record: logging.LogRecord) -> str:
        clock = time.strftime("%H:%M:%S", time.localtime(record.created))
        level = record.levelname.lower()
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            rest = dict(fields)
            words = [str(rest.pop("event", record.getMessage()))]
            words += [f"{key}={_value(value)}" for key, value in rest.items() if value is not None]
            text = " ".join(words)
        else:
            text = record.getMessage()
        line = f"{clock} {level:<7} {text}"
        if self.colour and record.levelname in COLOURS:
            line = f"{COLOURS[record.levelname]}{line}\033[0m"
        if record.exc_info:
            trace = self.formatException(record.exc_info)
            line += "\n" + "\n".join(f"    {part}" for part in trace.splitlines())
        return redact(line)


# What uvicorn says at every start and stop, which the banner (and "stopped") says better.
UVICORN_CHATTER = (
    "Started server process",
    "Waiting for application startup",
    "Application startup complete",
    "Uvicorn running on",
    "Waiting for application shutdown",
    "Application shutdown complete",
    "Finished server process",
    "Shutting down",
    "Started parent process",
)


class QuietUvicorn(logging.Filter):
    """Drop uvicorn's start and stop chatter from readable logs (JSON keeps it all)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            record.name.startswith("uvicorn")
            and record.levelno == logging.INFO
            and str(record.msg).startswith(UVICORN_CHATTER)
        )


def is_terminal(stream: TextIO | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


def resolve_format(log_format: str, stream: TextIO | None = None) -> str:
    """``text`` or ``json`` for a ``--log-format``: ``auto`` is text on a terminal
    (standard error, where logs go) and JSON lines anywhere else (a pipe, a file,
    systemd's journal, a container's log)."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"--log-format must be text, json or auto, not {log_format!r}")
    if log_format != "auto":
        return log_format
    return "text" if is_terminal(stream if stream is not None else sys.stderr) else "json"


def configure(level: str = "INFO", log_format: str = "json") -> None:
    """Send every log record of the process, uvicorn's included, to stderr: JSON lines,
    or readable lines (``log_format="text"``, coloured on a terminal unless NO_COLOR)."""
    handler = logging.StreamHandler()
    if resolve_format(log_format) == "text":
        colour = is_terminal(sys.stderr) and not os.environ.get("NO_COLOR")
        handler.setFormatter(TextFormatter(colour=colour))
        handler.addFilter(QuietUvicorn())
    else:
        handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    logging.Formatter.converter = time.gmtime
