"""Fixtures of the bot tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dudo.bots import solved


@pytest.fixture
def endgame_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh endgame cache folder, the default size limits, an empty memory and counters
    at zero; at the end, background solves waited for and the memory emptied again."""
    folder = tmp_path / "endgames"
    monkeypatch.setenv("DUDO_ENDGAME_CACHE", str(folder))
    monkeypatch.delenv("DUDO_ENDGAME_CACHE_MB", raising=False)
    monkeypatch.delenv("DUDO_ENDGAME_MAX_NODES", raising=False)
    solved.forget()
    for name in solved.counters:
        solved.counters[name] = 0
    yield folder
    solved.wait_background(600)
    solved.forget()
