"""Logs are JSON lines and never carry a seat token."""

from __future__ import annotations

import json
import logging

from dudo.server.logs import JsonFormatter, log_event, redact


def test_tokens_in_urls_are_redacted() -> None:
    line = '127.0.0.1:1 - "WebSocket /ws/ABCD?token=s3cr3t-T0ken_x" [accepted]'
    assert "s3cr3t" not in redact(line)
    assert "token=<redacted>" in redact(line)
    assert redact("/ws/ABCD?token=abc&x=1") == "/ws/ABCD?token=<redacted>&x=1"


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
