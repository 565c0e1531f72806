"""The terminal game, driven end to end through its standard input."""

from __future__ import annotations

import subprocess
import sys


def play(lines: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dudo", "play", *args],
        input="".join(line + "\n" for line in lines), capture_output=True, text=True,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "TERM": "dumb"}, timeout=120)


def test_a_whole_game_through_standard_input() -> None:
    # Alternate an opening bid and a call: one of the two is always legal, the other is
    # refused with the engine's reason in words, and the game must still reach its end.
    result = play(["1 6s", "dudo"] * 200, "--bots", "easy,normal", "--seed", "3",
                  "--set", "starting_dice=2", "--name", "Tester")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Your dice:" in out and "╭─────╮" in out
    assert "Tester: DUDO!" in out
    assert "Cups up:" in out and "Counted:" in out
    assert "Not allowed:" in out
    assert "wins the game" in out or "You win the game!" in out


def test_bids_in_every_spelling_and_a_bad_one() -> None:
    result = play(["four 5s", "zebra", "quit"], "--bots", "easy", "--seed", "5",
                  "--rules", "tavern", "--set", "first_opener=host")
    out = result.stdout
    assert "not a bid: 'zebra'" in out
    assert result.returncode == 1
    assert "Game left" in out


def test_illegal_bid_is_explained_in_words() -> None:
    # Tavern: ones may never be bid; the player opens (host).
    result = play(["3 1s", "quit"], "--bots", "easy", "--seed", "5", "--rules", "tavern",
                  "--set", "first_opener=host")
    assert "Not allowed: ones may not be bid now" in result.stdout


def test_bad_arguments_fail_cleanly() -> None:
    result = play([], "--bots", "wizard")
    assert result.returncode == 2
    assert "unknown bot 'wizard'" in result.stderr
    result = play([], "--rules", "casino")
    assert result.returncode == 2
    assert "unknown preset 'casino'" in result.stderr
