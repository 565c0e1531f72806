"""Logs are JSON lines and never carry a seat token."""

from __future__ import annotations

import json
import logging
import math
import time

from dudo.server.logs import JsonFormatter, log_event, redact


def test_tokens_in_urls_are_redacted() -> None:
    line = '127.0.0.1:1 - "WebSocket /ws/ABCD?token=s3cr3t-T0ken_x" [accepted]'
    assert "s3cr3t" not in redact(line)
    assert "token=<redacted>" in redact(line)
    assert redact("/ws/ABCD?token=abc&x=1") == "/ws/ABCD?token=<redacted>&x=1"


def test_a_token_whose_name_is_spelled_with_escapes_is_redacted_too() -> None:
    """The server decodes a query's names (``?%74oken=`` is ``?token=``), and uvicorn logs
    the URL as it was sent: an audit got a working seat token into the log that way."""
    for spelled in ("token", "%74oken", "tok%65n", "to%6Ben", "%74%6F%6B%65%6E", "TOKEN"):
        line = f'"WebSocket /ws/JJNA?client=web&{spelled}=v4xFG7StzdEL" [accepted]'
        assert redact(line) == line.replace("v4xFG7StzdEL", "<redacted>"), spelled
    # Other parameters keep their values; a name merely containing the word stays too.
    assert redact("/ws/ABCD?client=web&x=1") == "/ws/ABCD?client=web&x=1"
    assert redact("/r/ABCD?tokens_left=3") == "/r/ABCD?tokens_left=3"


def test_records_become_json_objects_with_their_fields() -> None:
    formatter = JsonFormatter()
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("dudo.test-logs")
    logger.setLevel(logging.INFO)
    logger.addHandler(Keep())
    log_event(logger, "game_over", room="ABCD", winners=[2])
    logger.info("WebSocket /ws/ABCD?token=abcdef [accepted]")
    first, second = (json.loads(formatter.format(record)) for record in records)
    assert first["event"] == "game_over" and first["winners"] == [2] and first["level"] == "info"
    assert "abcdef" not in second["message"]


def test_text_lines_are_short_and_readable_and_hide_tokens() -> None:
    import io

    import pytest

    from dudo.server.logs import TextFormatter, resolve_format

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("dudo.test-text-logs")
    logger.setLevel(logging.INFO)
    logger.addHandler(Keep())
    log_event(logger, "game_over", room="ABCD", winners=[2], name="Ana Maria", node=None)
    logger.warning("WebSocket /ws/ABCD?token=abcdef [accepted]")
    first, second = (TextFormatter().format(record) for record in records)
    clock, level, _rest = first.split(maxsplit=2)
    assert len(clock) == 8 and clock.count(":") == 2 and level == "info"
    assert first.endswith('game_over room=ABCD winners=[2] name="Ana Maria"')  # no node=None
    assert " warning " in second and "abcdef" not in second
    assert "\033[" not in first  # colour only on a terminal
    assert resolve_format("auto", io.StringIO()) == "json"  # not a terminal
    assert resolve_format("text", io.StringIO()) == "text"
    with pytest.raises(ValueError, match="text, json or auto"):
        resolve_format("yaml")


def test_a_token_inside_a_nested_url_and_in_a_json_line_is_redacted() -> None:
    # A value ran on over an unencoded URL inside it, and over a JSON line's escaped quote.
    assert redact("connect url=ws://h:8000/ws/ABCD?token=abc") == (
        "connect url=ws://h:8000/ws/ABCD?token=<redacted>"
    )
    assert redact("GET /ws/ABCD?next=/x?token=abc") == "GET /ws/ABCD?next=/x?token=<redacted>"
    line = json.dumps({"message": '"WebSocket /ws/ABCD?token=s3cr3t" [accepted]'})
    assert json.loads(redact(line)) == {
        "message": '"WebSocket /ws/ABCD?token=<redacted>" [accepted]'
    }


def test_a_password_is_hidden_without_touching_the_fields_of_a_json_line() -> None:
    # The password of a URL as typed runs to the last "@", but never past a field's end:
    # a later "@" in another field took the fields between with it.
    fields = {"cluster": "redis://r:6379/0", "x": 1, "note": "mail a@b"}
    assert json.loads(redact(json.dumps(fields))) == fields
    typed = {"error": "cannot reach postgresql://u:sec ret@h/db", "note": "a@b"}
    assert json.loads(redact(json.dumps(typed))) == {
        "error": "cannot reach postgresql://u:***@h/db",
        "note": "a@b",
    }


def test_redacting_a_long_url_takes_time_in_proportion_to_its_length() -> None:
    """Every handshake's URL is logged, and redacted on the event loop: a run of 16,000
    letters without "=" took 8 s (each pattern was tried from every letter). A ratio of two
    timings of one run, not a duration: linear is 16 times for 16 times the length,
    quadratic 256."""

    def cost(letters: int) -> float:
        line = '127.0.0.1:1 - "WebSocket /ws/ABCD?' + "a" * letters + 'x://y" 403'
        best = math.inf
        for _ in range(5):
            start = time.perf_counter()
            redact(line)
            best = min(best, time.perf_counter() - start)
        return best

    assert cost(32_000) / cost(2_000) < 64
