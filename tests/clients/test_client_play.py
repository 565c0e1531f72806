"""The Python client against a real ``dudo serve``: the README's example as written, and a
plug-in bot's mistake as one line naming the bot and its seat."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dudo.bots.table import BotError
from dudo.client import Client, PlayTimeout, Table
from dudo.game import Game
from dudo.rules import Rules
from dudo.server.table.state import RoomConfig
from dudo.view import SeatView, view
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
    assert re.fullmatch(r"room [A-Z]{4}: playing to the end \(a few minutes\)\.\.\.", lines[0]), (
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


# -- Table.play's limits, against a scripted socket ----------------------------------------


class ScriptedSocket:
    """A socket that hands out ``(delay, message)`` pairs, then stays silent."""

    def __init__(self, script: list[tuple[float, dict[str, object]]]) -> None:
        self.script = list(script)
        self.sent: list[str] = []

    async def recv(self) -> str:
        if not self.script:
            await asyncio.sleep(3600)
        delay, message = self.script.pop(0)
        await asyncio.sleep(delay)
        return json.dumps(message)

    async def send(self, text: str) -> None:
        self.sent.append(text)

    async def close(self) -> None:
        pass


def a_state(version: int, phase: str = "bidding") -> dict[str, object]:
    """Room ABCD mid-round: Marisol (seat 0) to move, this seat (1) watching."""
    rules = Rules()
    game = Game(rules, 2, opener=0)
    game.roll()
    seen = view(game, 1).to_json()
    if phase == "over":
        seen.update(phase="over", turn=None, winners=[1], legal={"bids": [], "calls": []})
    return {
        "type": "state",
        "version": version,
        "room": {
            "code": "ABCD",
            "rules": rules.to_json(),
            "seats": [{"name": "Marisol"}, {"name": "Robo"}],
        },
        "game": seen,
        "fair": {},
    }


class Quiet:
    name = "Quiet"

    def act(self, view: SeatView) -> None:
        return None


def scripted_table(script: list[tuple[float, dict[str, object]]]) -> Table:
    table = Table("ws://nowhere", None)
    table.socket = ScriptedSocket(script)
    return table


def test_a_silent_server_stops_table_play_with_a_line_saying_what_it_waited_for() -> None:
    table = scripted_table([(0, a_state(1))])
    with pytest.raises(PlayTimeout) as caught:
        asyncio.run(table.play(Quiet(), idle=0.3))
    assert isinstance(caught.value, TimeoutError)
    assert str(caught.value) == (
        "Table.play heard nothing from room ABCD for 0.3 s while waiting for "
        "Marisol (seat 0) to move in round 1; idle=None waits without limit"
    )
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_idle_limits_each_wait_not_the_whole_game() -> None:
    # Two seconds of play in all, never more than 0.2 s without a message: idle=0.5 lets
    # the game run to its end (the old limit on the whole game would stop it at 1 s).
    states = [(0.2, a_state(version)) for version in range(1, 11)]
    table = scripted_table([*states, (0.2, a_state(11, "over"))])
    assert asyncio.run(table.play(Quiet(), idle=0.5)) == [1]


def test_a_limit_on_the_whole_game_says_so() -> None:
    table = scripted_table([(0.05, a_state(version)) for version in range(1, 200)])
    with pytest.raises(PlayTimeout) as caught:
        asyncio.run(table.play(Quiet(), timeout=0.4))
    assert str(caught.value) == (
        "Table.play gave up after 0.4 s (its timeout) in room ABCD, waiting for "
        "Marisol (seat 0) to move in round 1; timeout=None lets the game run to its end"
    )


def test_by_default_table_play_outlasts_a_paced_game() -> None:
    # No limit on the whole game, and a wait per message longer than the server's
    # longest quiet spell between messages (the pause after a reveal, then the seeds).
    defaults = inspect.signature(Table.play).parameters
    assert defaults["timeout"].default is None
    paced = RoomConfig()
    quiet_spell = paced.reveal_pause + paced.seed_window + paced.bot_delay
    assert defaults["idle"].default >= 10 * quiet_spell


# -- a bot that thinks long, against a real server -----------------------------------------

PING = 0.3
"""The server's WebSocket ping interval and timeout in these tests (20 s each by default)."""


class SlowStarter:
    """A bot that blocks the thread it runs on for its first decision (a sleep, or busy
    CPU work holding the interpreter), longer than the server waits for a pong, then plays
    as ``normal``."""

    name = "SlowStarter"

    def __init__(self, how: str, seconds: float) -> None:
        from dudo.bots import make_bot

        self.how, self.seconds = how, seconds
        self.inner = make_bot("normal", seed=3)
        self.slow_turns = 0

    def act(self, view: SeatView) -> object:
        if view.my_turn and not self.slow_turns:
            self.slow_turns += 1
            if self.how == "sleep":
                time.sleep(self.seconds)
            else:
                deadline = time.monotonic() + self.seconds
                while time.monotonic() < deadline:
                    sum(range(1000))
        return self.inner.act(view)


@pytest.mark.parametrize("how", ["sleep", "spin"])
def test_a_bot_that_thinks_longer_than_the_ping_timeout_keeps_its_connection(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bot used to run on the event loop: while it thought, nobody answered the server's
    # pings, the server closed the socket (1011 keepalive ping timeout) and Table.play had
    # to connect again, or, with a long enough thought, lost the seat.
    drops: list[str] = []

    async def no_reconnect(self: Table, lost: Exception, budget: float) -> None:
        drops.append(str(lost))
        raise lost

    monkeypatch.setattr(Table, "_reconnect", no_reconnect)
    bot = SlowStarter(how, seconds=8 * PING)

    async def run(base: str) -> list[int]:
        async with Client(base) as client:
            seat = await client.create_room("Robo", seats=2, bots=[None, "normal"])
            async with client.table(seat) as table:
                await table.start()
                return await table.play(bot, timeout=120)  # type: ignore[arg-type]

    server_env = {"DUDO_WS_PING_INTERVAL": str(PING), "DUDO_WS_PING_TIMEOUT": str(PING)}
    with server_process(sqlite_url(tmp_path), env=server_env) as (base, _process):
        winners = asyncio.run(run(base))
    assert drops == []
    assert bot.slow_turns == 1 and len(winners) == 1
