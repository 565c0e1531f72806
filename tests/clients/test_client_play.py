"""The Python client against a real ``dudo serve``: the README's example as written, and a
plug-in bot's mistake as one line naming the bot and its seat."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dudo.bots.table import BotError
from dudo.client import Client
from dudo.view import SeatView
from serverkit import server_process, sqlite_url

ROOT = Path(__file__).parents[2]


def readme_client_example() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## A program in a seat") :]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None
    return match.group(1)


def test_the_readme_client_example_prints_names_and_the_game_id(tmp_path: Path) -> None:
    with server_process(sqlite_url(tmp_path)) as (base, _process):
        code = readme_client_example().replace("http://localhost:8000", base)
        result = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"room [A-Z]{4}: playing to the end \(a minute or two\)\.\.\.", lines[0]), (
        lines
    )
    winners = lines[1].removeprefix("winners: ")
    assert lines[1].startswith("winners: ") and re.search(r"[A-Za-z]", winners), lines
    assert not re.fullmatch(r"[\d, \[\]]+", winners), lines  # names, not seat numbers
    game_id = lines[2].removeprefix("game id: ")
    assert re.fullmatch(r"[0-9a-f]{16,}", game_id), lines


class StringBot:
    name = "Stringy"

    def act(self, view: SeatView) -> object:
        return "dudo" if view.my_turn else None


def test_a_bot_that_returns_a_string_stops_table_play_with_one_line(tmp_path: Path) -> None:
    async def run(base: str) -> None:
        async with Client(base) as client:
            seat = await client.create_room("Robo", seats=2, bots=[None, "normal"])
            async with client.table(seat) as table:
                await table.start()
                await table.play(StringBot(), timeout=60)  # type: ignore[arg-type]

    with (
        server_process(sqlite_url(tmp_path)) as (base, _process),
        pytest.raises(BotError) as caught,
    ):
        asyncio.run(run(base))
    message = str(caught.value)
    assert message == (
        "bot 'Stringy' (StringBot) at seat 0 returned 'dudo', which is not an "
        "action: return one of view.legal (a Bid, DUDO or CALZA)"
    )
