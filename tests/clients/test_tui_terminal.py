"""The terminal game in a real pseudo-terminal at 80x24, read the way a person sees it.

``dudo play`` runs under pexpect with a terminal of 80 columns and 24 lines (or another
size: a small 60x20 one); everything it
writes (colours, screen clears, cursor moves) goes through pyte, a terminal emulator, and
the tests look at the emulated screen: what is on it when the game waits for a key.
Seeds make the games the same every run; nothing waits on a clock.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect  # both in the dev extra
import pyte
import pytest

from dudo.bids import Bid

SRC = Path(__file__).parents[2] / "src"
MOVE = r"Your move: "
CALZA = r"(let it go|stop asking\)): "
NEXT = r"type quit\): "


def default_ctrl_c() -> None:
    """In the child, before ``dudo play`` starts: Ctrl-C as a terminal gives it.

    A process started with SIGINT ignored keeps it ignored (Python then installs no
    KeyboardInterrupt handler), and a test process may be in that state: seen as a game that
    never heard Ctrl-C, in CI, after other tests had run in the same pytest worker. A player's
    shell starts ``dudo play`` with SIGINT at its default, unblocked; so does this.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class Player:
    """``dudo play`` in an 80x24 pseudo-terminal, its output on an emulated screen."""

    def __init__(
        self,
        records: Path | None,
        *args: str,
        home: Path | None = None,
        size: tuple[int, int] = (80, 24),
        command: str = "play",
    ) -> None:
        """Records go to ``records``, or with None to the default folder under ``home``;
        ``size`` is the terminal's columns and lines."""
        columns, lines = size
        self.size = size
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        self.output = bytearray()
        """Everything the game wrote so far, for what scrolled off the emulated screen."""
        env = {
            **os.environ,
            "PYTHONPATH": str(SRC),
            "TERM": "xterm-256color",
            "COLUMNS": str(columns),
            "LINES": str(lines),
        }
        env.pop("NO_COLOR", None)
        if records is not None:
            env["DUDO_GAMES"] = str(records)
        else:
            env.pop("DUDO_GAMES", None)
            env.pop("XDG_DATA_HOME", None)
        if home is not None:
            env["HOME"] = str(home)
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "dudo", command, *args],
            env=env,
            dimensions=(lines, columns),
            timeout=120,
            preexec_fn=default_ctrl_c,
        )

    def wait(self, *patterns: str) -> int:
        """Read until one of ``patterns`` (or the end); returns which (len: the end)."""
        index: int = self.child.expect([*patterns, pexpect.EOF])
        self.stream.feed(self.child.before)
        self.output += self.child.before
        if index < len(patterns):
            self.stream.feed(self.child.after)
            self.output += self.child.after
        return index

    def lines_since_clear(self) -> int:
        """How many lines the game wrote since it last cleared the screen, down to the
        cursor's line: drawn on a screen as wide as this one but tall enough for all, so
        a screen taller than the terminal counts the lines that scrolled off its top."""
        columns, _ = self.size
        tall = pyte.Screen(columns, 1000)
        pyte.ByteStream(tall).feed(bytes(self.output.rpartition(b"\x1b[2J")[2]))
        return tall.cursor.y + 1

    def interrupt(self) -> None:
        """Ctrl-C once the game is blocked reading the player's line.

        Why wait for that: a SIGINT that lands after Python last checked for signals and
        before its ``input()`` enters ``read`` is only seen when the read returns (a race in
        CPython's line reading; a person would press Ctrl-C again). Once the process sleeps
        in ``read`` (``/proc/PID/syscall`` starts with 0 on x86-64, or its wait channel is
        the terminal's), the signal interrupts the read and ``input()`` raises at once.
        """
        deadline = time.monotonic() + 10
        proc = Path(f"/proc/{self.child.pid}")
        while time.monotonic() < deadline:
            try:
                syscall = (proc / "syscall").read_text().split()
                wchan = (proc / "wchan").read_text()
            except OSError:  # not Linux, or not allowed: send it as it is
                break
            if (syscall[:1] == ["0"] and platform.machine() == "x86_64") or "tty" in wchan:
                break
            time.sleep(0.05)
        self.child.sendintr()

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def exit_status(self) -> int:
        self.child.close()
        status = self.child.exitstatus
        return status if status is not None else -self.child.signalstatus


def play_to_the_first_reveal(player: Player) -> str:
    """Open low, call whatever stands, let every calza chance go (after one nonsense
    answer); returns the screen at the prompt after the first reveal."""
    nonsense_tried = False
    for _ in range(60):
        found = player.wait(MOVE, CALZA, NEXT)
        screen = player.text()
        if found == 0:
            player.send("dudo" if "Standing bid:" in screen else "1 6s")
        elif found == 1:
            if not nonsense_tried:
                nonsense_tried = True
                player.send("banana")
                assert player.wait(CALZA) == 0
                assert "Not understood: 'banana'" in player.text()
                player.send("dudo")
                assert player.wait(CALZA) == 0
                assert "Not now:" in player.text()
            player.send("")
        elif found == 2:
            assert nonsense_tried, "no calza chance came before the reveal"
            return screen
        else:
            raise AssertionError(f"the game ended before any reveal:\n{screen}")
    raise AssertionError("no reveal in 60 prompts")


def test_after_a_call_the_outcome_is_on_screen_at_the_next_prompt(tmp_path: Path) -> None:
    player = Player(tmp_path, "--bots", "easy,normal", "--seed", "3", "--name", "Ana")
    screen = play_to_the_first_reveal(player)
    lines = screen.splitlines()
    # The whole reveal is on the screen while it waits: the call, every cup, the count and
    # who loses, and the prompt itself on the last line with text.
    assert any("DUDO!" in line or "CALZA!" in line for line in lines), screen
    outcome = next(line for line in lines if line.startswith("Counted: "))
    assert " — the bid " in outcome or "exact" in outcome
    assert "loses a die" in outcome or "lose a die" in outcome or "back" in outcome
    assert [line for line in lines if line.strip()][-1].startswith("Press Enter for round 2")
    cups = [
        line for line in lines if line.startswith("  Ana") or "(easy)" in line or "(normal)" in line
    ]
    assert len(cups) >= 3, screen
    # Counted dice carry their mark on the die itself: each cup's bracketed dice are the
    # number at the end of its line, which says what it is ("→ 2 counted"). The round's
    # bids are on the screen too.
    for cup in cups:
        dice, count = cup.removesuffix(" counted").rsplit(" → ", 1)
        assert dice.count("[") == int(count), cup
    assert any(line.startswith("Bids: ") for line in lines), screen
    # The next round keeps the outcome in view: at the next prompt it is still there.
    player.send("")
    found = player.wait(MOVE, CALZA)
    assert found in (0, 1)
    count, _, rest = outcome.removeprefix("Counted: ").partition(" against ")
    consequence = rest.partition(" — ")[2]
    last = next(line for line in player.text().splitlines() if line.startswith("Last round"))
    assert last.startswith(f"Last round: {count} counted against "), last
    assert last.endswith(consequence), (last, consequence)
    assert player.text().count("╭─────╮") <= 5  # the dice are drawn once (one row)
    player.send("quit")
    assert player.wait() == 0
    text = player.text()
    assert "You left the table in round 2." in text
    assert player.exit_status() == 0
    [record] = list(tmp_path.glob("*.json"))
    assert "Game record (the game is not finished):" in " ".join(text.split())
    data = json.loads(record.read_text())
    assert data["names"][0] == "Ana" and data["bots"] == [1, 2]
    verify = subprocess.run(
        [sys.executable, "-m", "dudo", "verify", str(record)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert verify.returncode == 0, verify.stderr
    assert "verified: every die follows from the published seeds" in verify.stdout


def test_ctrl_c_says_so_and_exits_130(tmp_path: Path) -> None:
    player = Player(tmp_path, "--bots", "easy", "--seed", "5", "--no-record")
    assert player.wait(MOVE, CALZA) in (0, 1)
    player.interrupt()
    assert player.wait() == 0
    assert "Ctrl-C: you left the table in round 1." in player.text()
    assert "Traceback" not in player.text()
    assert player.exit_status() == 130
    assert list(tmp_path.iterdir()) == []


def test_the_record_and_its_commands_are_whole_lines_at_80_columns(tmp_path: Path) -> None:
    # The default folder under a home of any length: the commands name ~/..., so each
    # fits on one line of the screen, whole, to be copied as it stands.
    home = tmp_path / "a-home-folder-with-a-rather-long-name"
    player = Player(None, "--bots", "easy", "--seed", "5", home=home)
    assert player.wait(MOVE, CALZA) in (0, 1)
    player.send("quit")
    assert player.wait() == 0
    assert player.exit_status() == 0
    [record] = list((home / ".local" / "share" / "dudo" / "games").glob("*.json"))
    shown = f"~/{record.relative_to(home)}"
    lines = player.text().splitlines()
    assert "Game record (the game is not finished):" in lines, player.text()
    for line in (f"  {shown}", f"  dudo verify {shown}", f"  dudo analyze {shown}"):
        assert line in lines, player.text()


def test_the_help_is_on_screen_at_the_first_prompt_when_a_bot_opens(tmp_path: Path) -> None:
    # The help was printed on the round's first screen, which the player's turn cleared at
    # once when a bot opened (and nobody was asked about calza): a new player's first
    # screen said nothing of how to type a bid.
    player = Player(tmp_path, "--bots", "easy", "--seed", "5", "--no-record")
    assert player.wait(MOVE) == 0
    screen = " ".join(player.text().split())
    assert "Standing bid:" in screen, screen  # the bot opened
    assert "Type a bid like 4 5s or 4x5" in screen and "At the table: " in screen, screen
    player.send("quit")
    assert player.wait() == 0 and player.exit_status() == 0


def test_six_players_on_a_small_terminal_see_the_whole_turn_screen(tmp_path: Path) -> None:
    # At 60x20 the turn screen of six players was 23 lines: its round and its help had
    # scrolled off the top before the player's first move.
    bots = "easy,normal,hard,random,easy"
    player = Player(tmp_path, "--bots", bots, "--seed", "2", "--no-record", size=(60, 20))
    assert player.wait(MOVE) == 0
    lines = player.text().splitlines()
    assert "Round 1" in lines[0], player.text()
    text = " ".join(player.text().split())
    assert "Type help for how to bid" in text and "You open." in text, text
    assert "You ◀" in text and "Rosa (easy)" in text and "30 dice in play" in text, text
    assert "Your dice: 6 5 4 5 3" in text, text
    player.send("quit")
    assert player.wait() == 0 and player.exit_status() == 0


def test_typos_keep_the_table_and_the_dice_in_view(tmp_path: Path) -> None:
    # Each refusal was printed under the last, so a few typos pushed the round, the bids,
    # the standing bid and then the player's dice off a small terminal's top. Now each
    # reply comes under the turn screen drawn afresh, and nothing was played meanwhile.
    player = Player(tmp_path, "--bots", "easy", "--seed", "5", "--no-record", size=(60, 20))
    assert player.wait(MOVE) == 0
    first = player.text()
    for typo in ["3x5", "three fives", "5 6 s", "banana", "calza", "1 1s"]:
        player.send(typo)
        assert player.wait(MOVE) == 0
        if typo == "calza":  # why, at 60 columns: it said "calza is not allowed now"
            said = " ".join(player.text().split())
            assert "Not allowed: calza needs at least 3 players in the game, and only 2" in said
    text = player.text()
    lines = text.splitlines()
    assert "Round 1" in lines[0], text
    assert "Standing bid: four 2s by Uncle Bo. 10 dice in play." in text, text
    assert first.split("Your dice:")[1].split("Your move:")[0].strip() in text, text
    assert "You typed: 1 1s" in lines and text.count("Not allowed") == 1, text
    player.send("")  # the help, also under the table
    assert player.wait(MOVE) == 0
    assert "Not allowed" not in player.text() and "Standing bid:" in player.text()
    player.send("rules")  # a screen of its own, then back to the table
    assert player.wait(r"back to the table: ") == 0
    assert "Winning" in player.text()
    player.send("")
    assert player.wait(MOVE) == 0
    assert "Standing bid: four 2s by Uncle Bo." in player.text()
    player.send("quit")
    assert player.wait() == 0 and player.exit_status() == 0


def test_the_rules_sheet_wraps_between_words_on_a_narrow_terminal(tmp_path: Path) -> None:
    # Each paragraph of the sheet is one line; a 60-column terminal broke them mid-word.
    words = subprocess.run(
        [sys.executable, "-m", "dudo", "rules", "dudo"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=True,
    ).stdout.split()
    reader = Player(None, "dudo", size=(60, 200), command="rules")
    assert reader.wait() == 0
    assert reader.exit_status() == 0
    assert reader.text().split() == words


def test_calza_questions_keep_the_table_in_view_and_off_is_confirmed_where_it_is_read(
    tmp_path: Path,
) -> None:
    # At 60 columns the question wrapped, and each one after a bot's bid was printed under
    # the last, scrolling the table away; "off" was confirmed on a line the next screen
    # cleared at once.
    player = Player(
        tmp_path,
        *("--bots", "easy,normal,hard,easy", "--seed", "5", "--no-record"),
        *("--set", "first_opener=host"),
        size=(60, 20),
    )
    assert player.wait(MOVE) == 0
    player.send("1 6s")
    questions = 0
    while questions < 3:
        found = player.wait(MOVE, CALZA, NEXT)
        assert found == 1, player.text()
        questions += 1
        lines = [line for line in player.text().splitlines() if line.strip()]
        assert "Round 1" in lines[0], player.text()
        assert "Standing bid:" in player.text() and "Your dice" in player.text()
        assert lines[-1].startswith("Calza on "), player.text()  # the question on one line
        assert player.text().count("Calza on ") == 1, player.text()
        player.send("" if questions < 3 else "off")
    assert player.wait(MOVE, CALZA, NEXT) in (0, 2)
    text = " ".join(player.text().split())
    assert "No more calza questions out of turn this game" in text, player.text()
    player.send("quit")
    player.wait()
    assert player.exit_status() == 0


AGAIN = r"Play again\? \[y/N\] "


def play_to_the_end(player: Player, *prompts: str) -> int:
    """Open low and call whatever stands until none of the game's prompts comes: returns
    which of ``prompts`` came instead (len(prompts): the end of the output)."""
    for _ in range(60):
        found = player.wait(MOVE, CALZA, NEXT, *prompts)
        if found == 0:
            player.send("dudo" if "Standing bid:" in player.text() else "1 6s")
        elif found in (1, 2):
            player.send("")
        else:
            return found - 3
    raise AssertionError("the game did not end in 60 prompts")


def test_after_a_game_the_terminal_offers_another_with_the_same_table(tmp_path: Path) -> None:
    table = ("--bots", "easy", "--rules", "dudo", "--set", "starting_dice=1", "--name", "Ana")
    player = Player(tmp_path, *table, "--seed", "4")
    assert play_to_the_end(player, AGAIN) == 0
    assert "wins the game" in player.text() or "You win the game!" in player.text()
    assert len(list(tmp_path.glob("*.json"))) == 1  # saved before the question
    player.send("y")
    assert player.wait(MOVE, CALZA, NEXT, r"Roll-off") < 4
    assert "Roll-off" in player.text() or "Round 1" in player.text(), player.text()
    assert play_to_the_end(player, AGAIN) == 0
    player.send("n")
    assert player.wait() == 0 and player.exit_status() == 0
    records = [json.loads(path.read_text()) for path in tmp_path.glob("*.json")]
    assert len(records) == 2 and len({record["game_id"] for record in records}) == 2
    assert all(record["names"][0] == "Ana" for record in records)
    assert records[0]["fairness"] != records[1]["fairness"]  # fresh dice
    again = Player(tmp_path, *table, "--seed", "4", "--no-again", "--no-record")
    assert play_to_the_end(again, AGAIN) == 1  # the end, no question
    assert again.exit_status() == 0


def test_ctrl_c_at_the_play_again_question_exits_130(tmp_path: Path) -> None:
    # It exited 0, where Ctrl-C at every other prompt exits 130 (the help says so).
    table = ("--bots", "easy", "--rules", "dudo", "--set", "starting_dice=1")
    player = Player(tmp_path, *table, "--seed", "4")
    assert play_to_the_end(player, AGAIN) == 0
    player.interrupt()
    assert player.wait() == 0
    assert "Traceback" not in player.text()
    assert player.exit_status() == 130
    assert len(list(tmp_path.glob("*.json"))) == 1  # the game's record, saved before


LOWBALL = '''
class Lowball:
    """Raises by the smallest step there is on its turn, never calls, never asks calza."""

    name = "Lowball"

    def act(self, view):
        if view.turn != view.seat:
            return None
        return view.legal.any_bids[0]
'''


def at_a_table_of_lowballs(tmp_path: Path, size: tuple[int, int], *more: str) -> Player:
    """`dudo play` at a terminal of ``size`` against five Lowballs, the player opening:
    rounds as long as the player makes them."""
    (tmp_path / "lowball.py").write_text(LOWBALL)
    bots = ",".join([f"{tmp_path / 'lowball.py'}:Lowball"] * 5)
    return Player(
        tmp_path,
        *("--bots", bots, "--set", "first_opener=host", "--seed", "1", "--no-record"),
        *more,
        size=size,
    )


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
def test_a_long_round_lists_the_latest_bids_that_fit_the_terminal(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    # On a terminal the turn screen listed every bid of the round, a line longer every few
    # bids: in a long round at six players the screen grew taller than the terminal, and
    # the round, whose turn it is and the standing bid scrolled off its top.
    player = at_a_table_of_lowballs(tmp_path, size)
    _, height = size
    bids = 0
    while bids < 60:  # ten turns of six bids
        found = player.wait(MOVE, CALZA)
        if found == 1:
            player.send("off")  # the first question out of turn; no more after it
            continue
        assert found == 0, player.text()
        screen = player.text()
        flat = " ".join(screen.split())
        assert player.lines_since_clear() <= height, (bids, flat)
        assert "Round 1" in screen.splitlines()[0], screen
        assert "You ◀" in flat and "Your dice:" in flat, flat
        if bids:
            standing = flat.split("Standing bid: ")[1].split(" by ")[0]
            assert f"Lowball 5: {standing}." in flat, flat  # the newest bid, last listed
            bid = Bid.parse(standing)
            player.send(f"{bid.quantity + 1}x{bid.face}")
        else:
            player.send("1x2")
        bids += 6
    assert " earlier bids, then " in flat, flat
    player.send("quit")
    assert player.wait() == 0 and player.exit_status() == 0


@pytest.mark.parametrize("size", [(60, 20), (80, 24)])
def test_the_reveal_of_a_long_round_lists_the_latest_bids_that_fit_the_terminal(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    # The reveal cut a list of bids too long for the terminal to the last three, however
    # many more had room: it now keeps as many of the latest as fit, as the turn screen does.
    player = at_a_table_of_lowballs(tmp_path, size, "--name", "Ana")
    _, height = size
    made = 0
    while True:
        found = player.wait(MOVE, CALZA)
        if found == 1:
            player.send("off")
            continue
        assert found == 0, player.text()
        if made >= 60:  # ten turns of six bids: Ana calls the standing bid
            player.send("dudo")
            break
        flat = " ".join(player.text().split())
        standing = flat.split("Standing bid: ")[1].split(" by ")[0] if made else "0 2s"
        bid = Bid.parse(standing)
        player.send(f"{bid.quantity + 1}x{bid.face}")
        made += 6
    assert player.wait(NEXT) == 0, player.text()
    flat = " ".join(player.text().split())
    assert player.lines_since_clear() <= height, flat
    assert "Ana: DUDO!" in flat and "Press Enter for round 2" in flat, flat
    earlier, _, listed = flat.split("Bids: … ")[1].partition(" earlier bids, then ")
    shown = listed.split(".")[0].split(", ")
    assert int(earlier) + len(shown) == made, flat
    assert len(shown) > 3, flat  # as many as fit: a few lines of them, not the last three
    assert shown[-1].startswith("Lowball 5: "), flat  # the bid Ana called, last
    player.send("quit")
    assert player.wait() == 0 and player.exit_status() == 0
