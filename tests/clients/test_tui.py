"""The terminal game, driven end to end through its standard input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from dudo.bids import Bid
from dudo.bots.base import Bot
from dudo.bots.registry import make_bot
from dudo.dice import ScriptedDice
from dudo.game import CALZA, DUDO, Action, Game, Revealed
from dudo.hands import Hand
from dudo.rules import Rules
from dudo.tui import (
    DIE_WIDTH,
    LOG_BIDS,
    MAX_QUOTED,
    QuitGame,
    TerminalGame,
    distinct_names,
    draw_dice,
    echoed_input,
    printable_name,
    quoted,
)
from dudo.view import view

SRC = Path(__file__).parents[2] / "src"


def play(
    lines: list[str], *args: str, records: Path | None = None, columns: int = 100
) -> subprocess.CompletedProcess[str]:
    """``dudo play`` with ``lines`` as its input, ``columns`` wide; no record unless
    ``records`` is given."""
    where = ["--records", str(records)] if records else ["--no-record"]
    return subprocess.run(
        [sys.executable, "-m", "dudo", "play", *where, *args],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        env={
            "COLUMNS": str(columns),
            "PATH": "/usr/bin:/bin",
            "TERM": "dumb",
            "PYTHONPATH": str(SRC),
        },
        timeout=120,
    )


def test_a_whole_game_through_standard_input() -> None:
    # Alternate an opening bid and a call: one of the two is always legal, the other is
    # refused with the engine's reason in words, and the game must still reach its end.
    result = play(
        ["1 6s", "dudo"] * 200,
        "--bots",
        "easy,normal",
        "--seed",
        "3",
        "--rules",
        "dudo",
        "--set",
        "starting_dice=2",
        "--name",
        "Tester",
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Your dice:" in out and "╭─────╮" in out
    assert "Tester: DUDO!" in out
    assert "Cups up (counted dice in [brackets]):" in out and "Counted:" in out
    assert "Not allowed:" in out
    assert "wins the game" in out or "You win the game!" in out
    assert "Play again?" not in out  # piped input: the program ends with the game


def test_play_again_is_documented_in_the_help_and_the_readme() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dudo", "play", "--help"],
        capture_output=True,
        text=True,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "TERM": "dumb", "PYTHONPATH": str(SRC)},
    )
    shown = " ".join(result.stdout.replace("│", " ").split())
    assert "--no-again" in shown and "ask whether to play again" in shown, shown
    readme = " ".join((SRC.parent / "README.md").read_text().split())
    assert "Play again? [y/N]" in readme and "--no-again" in readme


def test_bids_in_every_spelling_and_a_bad_one() -> None:
    result = play(
        ["four 5s", "zebra", "quit"],
        "--bots",
        "easy",
        "--seed",
        "5",
        "--rules",
        "tavern",
        "--set",
        "first_opener=host",
    )
    out = result.stdout
    assert "Not a bid: 'zebra' (write it like '4x5' or '4 5s')." in out
    assert result.returncode == 0
    assert "You left the table in round" in out


def test_illegal_bid_is_explained_in_words() -> None:
    # Tavern: ones may never be bid; the player opens (host).
    result = play(
        ["3 1s", "quit"],
        "--bots",
        "easy",
        "--seed",
        "5",
        "--rules",
        "tavern",
        "--set",
        "first_opener=host",
    )
    assert "Not allowed: these rules never allow a bid on aces." in result.stdout


def test_bad_arguments_fail_cleanly() -> None:
    result = play([], "--bots", "wizard")
    assert result.returncode == 2
    assert "unknown bot 'wizard'" in result.stderr
    result = play([], "--rules", "casino")
    assert result.returncode == 2
    assert "unknown preset 'casino'" in result.stderr


def test_a_finished_game_leaves_a_record_that_verify_and_analyze_read(tmp_path: Path) -> None:
    result = play(
        ["1 6s", "dudo"] * 200,
        "--bots",
        "easy",
        "--seed",
        "11",
        "--rules",
        "dudo",
        "--set",
        "starting_dice=2",
        "--name",
        "Tester",
        records=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    [record] = list(tmp_path.glob("*.json"))
    assert f"Game record:\n  {record}\n" in result.stdout
    assert f"\n  dudo verify {record}\n" in result.stdout
    assert f"\n  dudo analyze {record}\n" in result.stdout
    data = json.loads(record.read_text())
    assert data["names"][0] == "Tester" and data["bots"] == [1]
    assert len(data["fairness"]) == len(data["rounds"])
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC), "COLUMNS": "100"}
    verify = subprocess.run(
        [sys.executable, "-m", "dudo", "verify", str(record)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert verify.returncode == 0, verify.stderr
    assert "replayed" in verify.stdout and "winners" in verify.stdout
    # A die changed in the record is caught: the record really is checked.
    data["rounds"][0]["dice"][0][0] = data["rounds"][0]["dice"][0][0] % 6 + 1
    record.write_text(json.dumps(data))
    tampered = subprocess.run(
        [sys.executable, "-m", "dudo", "verify", str(record)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert tampered.returncode == 1 and "NOT VERIFIED" in tampered.stderr
    data["rounds"][0]["dice"][0][0] = data["rounds"][0]["dice"][0][0] - 1 or 6
    record.write_text(json.dumps(data))
    analyze = subprocess.run(
        [sys.executable, "-m", "dudo", "analyze", str(record), "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert analyze.returncode == 0, analyze.stderr
    assert json.loads(analyze.stdout)["names"][0] == "Tester"


def test_the_calza_prompt_answers_every_input() -> None:
    # Perudo: calza out of turn. The player opens (host), a bot raises, and the prompt
    # gets a bid, a call, nonsense, help and rules before the player lets it go.
    result = play(
        ["1 6s", "5 5s", "dudo", "banana", "help", "", "quit"],
        "--bots",
        "easy,easy",
        "--seed",
        "5",
        "--set",
        "first_opener=host",
    )
    out = " ".join(result.stdout.split())
    assert "Not now: it is" in out and "out of turn you may only call calza" in out
    assert "Not understood: 'banana'. Type calza, or press Enter to let it go." in out
    assert "It is not your turn, but these rules let anyone call calza" in out
    assert result.returncode == 0


def test_refusals_are_sentences_with_what_to_do_instead() -> None:
    result = play(
        ["18 2s", "quit"],
        "--bots",
        "easy,easy",
        "--seed",
        "5",
        "--rules",
        "dudo",
        "--set",
        "first_opener=host",
        "--set",
        "cap_at_dice_in_play=yes",
    )
    out = " ".join(result.stdout.split())
    assert (
        "Not allowed: only 15 dice are in play, and a bid may not name more than that. "
        "You open: the lowest bid is one 2 (1x2)."
    ) in out, out
    assert "lowest raise" not in out
    assert "You open." in out and "You opens" not in out
    assert "Grandpa" not in out or "(easy)" in out


def test_the_default_name_reads_as_you() -> None:
    result = play(
        ["quit"], "--bots", "normal", "--seed", "5", "--rules", "dudo", "--set", "first_opener=host"
    )
    assert "You opens" not in result.stdout and "You open." in result.stdout
    assert "(normal)" in result.stdout


# -- the drawing, piece by piece ---------------------------------------------------------


def recorded() -> Console:
    return Console(record=True, width=80, color_system=None, highlight=False)


def test_each_face_number_and_star_sit_under_their_own_die() -> None:
    dice = (4, 1, 6, 3, 4)
    lines = draw_dice(dice, lambda die: die == 4).plain.splitlines()
    assert len(lines) == 6
    for index, die in enumerate(dice):
        centre = index * DIE_WIDTH + 3  # the middle column of the die's box
        assert lines[0][centre] == "─" and lines[0][index * DIE_WIDTH] == "╭"
        assert lines[5][centre] == str(die)
        assert lines[5][centre + 1] == ("*" if die == 4 else " ")


def reveal_of(
    rules: Rules, cups: list[list[int]], actions: list[tuple[int, Action]]
) -> tuple[Game, Revealed]:
    game = Game(rules, len(cups), dice=ScriptedDice([cups]), opener=0)  # no roll-off
    game.roll()
    events = []
    for seat, action in actions:
        events = game.apply(seat, action)
    [reveal] = [event for event in events if isinstance(event, Revealed)]
    return game, reveal


def test_the_reveal_brackets_exactly_the_counted_dice() -> None:
    game, reveal = reveal_of(
        Rules.preset("dudo"), [[4, 1, 6, 3, 4], [2, 2, 5, 6, 6]], [(0, Bid(3, 4)), (1, DUDO)]
    )
    console = recorded()
    terminal = TerminalGame(
        game, [make_bot("easy", seed=1)], "Ana", console, input, levels=["easy"]
    )
    terminal.show_reveal(reveal)
    text = console.export_text()
    assert "  Ana (you)    [4] [1]  6   3  [4]  → 3 counted" in text
    assert f"  {terminal.labels[1].ljust(11)}   2   2   5   6   6   → 0 counted" in text
    assert "Counted: 3 against 3 — the bid holds." in text
    assert f"{terminal.names[1]} loses a die." in text


PLUG_INS = """
from dudo.bids import Bid


class Lowball:  # no name: the registry names it after its class
    def act(self, view):
        return view.legal.bids[0]


class Sly:
    name = "Sly Sam"

    def act(self, view):
        return view.legal.bids[0]


class Echo:
    name = "echo"  # its class's name, in other letters

    def act(self, view):
        return view.legal.bids[0]
"""


def test_the_reveal_shows_a_bots_kind_only_where_it_is_not_its_name(tmp_path: Path) -> None:
    # A plug-in bot's kind is its class's name, which is also its name unless it has one
    # of its own: the reveal read "Lowball (Lowball)".
    (tmp_path / "plug.py").write_text(PLUG_INS)
    specs = [f"{tmp_path / 'plug.py'}:{kind}" for kind in ("Lowball", "Sly", "Echo", "Lowball")]
    bots = [make_bot(spec) for spec in specs] + [make_bot("easy", seed=1)]
    hands = [[4, 1, 6, 3, 4], [2, 2, 5, 6, 6], [2, 3, 3, 5, 5], [6] * 5, [5] * 5, [2] * 5]
    game, reveal = reveal_of(Rules.preset("dudo"), hands, [(0, Bid(3, 4)), (1, DUDO)])
    console = recorded()
    levels = [spec.rpartition(":")[2] for spec in [*specs, "easy"]]
    terminal = TerminalGame(game, bots, "Ana", console, input, levels=levels)
    easy = terminal.names[5]
    assert terminal.labels == [
        "Ana (you)",
        "Lowball",
        "Sly Sam (Sly)",
        "echo",
        "Lowball 2",
        f"{easy} (easy)",  # a built-in bot: its persona's name and its level, as before
    ]
    terminal.show_reveal(reveal)
    text = " ".join(console.export_text().split())
    assert "Lowball (Lowball)" not in text and "echo (Echo)" not in text
    assert "Lowball 2 2 5 6 6 → 0 counted Sly Sam (Sly) 2 3 3 5 5" in text, text
    assert f"echo 6 6 6 6 6 → 0 counted Lowball 2 5 5 5 5 5 → 0 counted {easy} (easy) 2" in text


def test_an_exact_calza_at_a_full_cup_says_why_no_die_comes_back() -> None:
    rules = Rules.from_json({"preset": "dudo"})
    game, reveal = reveal_of(
        rules, [[4, 1, 6, 3, 4], [2, 2, 5, 6, 6]], [(0, Bid(3, 2)), (1, CALZA)]
    )  # 2, 2 and a wild 1
    assert reveal.outcome == "exact" and reveal.change == 0
    console = recorded()
    terminal = TerminalGame(game, [make_bot("easy", seed=1)], "Ana", console, input)
    terminal.show_reveal(reveal)
    text = " ".join(console.export_text().split())
    assert (
        f"Nobody loses a die. {terminal.names[1]} holds 5 dice already, the most a cup "
        "may hold, so no die comes back."
    ) in text


def test_bots_that_share_a_name_are_told_apart() -> None:
    assert distinct_names(["Nina", "Ingrid", "nina", "Nina", "Nina 2"]) == [
        "Nina",
        "Ingrid",
        "nina 2",
        "Nina 3",
        "Nina 2 2",
    ]


def test_a_full_table_fits_24_lines() -> None:
    bots = [make_bot(level, seed=seat) for seat, level in enumerate(["easy"] * 9)]
    game = Game(Rules.preset("dudo"), 10, dice=ScriptedDice([[[2, 3, 4, 5, 6]] * 10]), opener=0)
    game.roll()
    for _ in range(9):  # a long bid history, as the player sees it on their turn
        game.apply(game.turn, game.legal_actions(game.turn).bids[0])
    console = recorded()
    terminal = TerminalGame(game, bots, "Ana", console, input, levels=["easy"] * 9)
    terminal.intro_shown = True
    terminal.show_table(view(game, 0))
    lines = console.export_text().splitlines()
    assert len(lines) + 1 <= 24, "\n".join(lines)  # and the prompt below
    assert len(set(terminal.names)) == 10


def test_off_stops_the_out_of_turn_calza_questions() -> None:
    result = play(
        ["1 6s", "off", "quit"], "--bots", "easy,easy", "--seed", "5", "--set", "first_opener=host"
    )
    out = " ".join(result.stdout.split())
    assert out.count("Calza on ") == 1
    assert "No more calza questions out of turn this game" in out
    assert "You left the table in round" in out and result.returncode == 0


def test_after_a_reveal_the_game_waits_for_enter_or_the_pause() -> None:
    prompts: list[str] = []
    naps: list[float] = []

    def terminal_with(pause: float | None, answer: str) -> tuple[TerminalGame, Revealed]:
        game, reveal = reveal_of(
            Rules.preset("dudo"), [[4, 1, 6, 3, 4], [2, 2, 5, 6, 6]], [(0, Bid(3, 4)), (1, DUDO)]
        )
        terminal = TerminalGame(
            game,
            [make_bot("easy", seed=1)],
            "Ana",
            recorded(),
            lambda prompt: prompts.append(prompt) or answer,
            pause=pause,
            sleep=naps.append,
        )
        return terminal, reveal

    waiting, reveal = terminal_with(None, "")
    waiting.show([reveal])
    assert prompts == ["Press Enter for round 2 (or type quit): "] and naps == []
    pausing, reveal = terminal_with(2.5, "")
    pausing.show([reveal])
    assert naps == [2.5] and len(prompts) == 1
    assert "Round 2 in 2.5 s…" in pausing.console.export_text()
    leaving, reveal = terminal_with(None, "quit")
    with pytest.raises(QuitGame, match="You left the table"):
        leaving.show([reveal])


# -- the variants of issue 25: the roll-off and Common Hand ---------------------------------


def test_the_rolloff_is_shown_before_round_1_and_its_record_verifies(tmp_path: Path) -> None:
    result = play(
        ["1 6s", "dudo"] * 200,
        "--bots",
        "easy,easy",
        "--seed",
        "11",
        "--rules",
        "dudo",
        "--set",
        "starting_dice=1",
        "--name",
        "Tester",
        records=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Roll-off: who opens round 1" in out
    assert out.index("Roll-off: who opens round 1") < out.index("Round 1")
    [record] = list(tmp_path.glob("*.json"))
    data = json.loads(record.read_text())
    attempts = data["start"]["rolloff"]
    assert len(data["rolloff_fairness"]) == len(attempts)
    assert [entry["round"] for entry in data["rolloff_fairness"]] == [
        f"rolloff-{n}" for n in range(1, len(attempts) + 1)
    ]
    assert len(data["fairness"]) == len(data["rounds"])
    for number, pairs in enumerate(attempts, start=1):
        assert f"Roll {number}: " in out
        for a, b in pairs:
            assert f"+{b}={a + b}" in out or f"{a}+{b}" in out
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC), "COLUMNS": "100"}
    verify = subprocess.run(
        [sys.executable, "-m", "dudo", "verify", str(record)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert verify.returncode == 0, verify.stderr
    assert "roll-off attempt 1: commitment" in verify.stdout
    # A roll-off die changed in the record is caught.
    pair = data["start"]["rolloff"][-1][0]
    pair[0] = pair[0] % 6 + 1
    record.write_text(json.dumps(data))
    tampered = subprocess.run(
        [sys.executable, "-m", "dudo", "verify", str(record)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert tampered.returncode == 1 and "NOT VERIFIED" in tampered.stderr
    assert "roll-off" in tampered.stderr


def test_every_seed_gives_each_rolloff_attempt_its_own_seed() -> None:
    """A tie rolls again on a fresh server seed: the terminal's committed dice never loop
    on one roll (the engine asks its dice source for round 0 at every attempt)."""
    from dudo.terminal_records import CommittedDice

    ties = 0
    for seed in range(60):
        dice = CommittedDice(2, seed)
        game = Game(Rules.preset("dudo"), 2, dice=dice)
        assert game.rolloff is not None and game.rolloff.opener is not None
        seeds = [entry["server_seed"] for entry in dice.rolloff_fairness]
        assert len(set(seeds)) == len(seeds) == len(game.rolloff.attempts)
        assert dice.fairness == []  # no round was rolled, and no round 0 either
        ties += len(game.rolloff.attempts) > 1
    assert ties  # about one game in nine ties at its first attempt


def test_common_hand_is_played_with_hands_typed_in_words() -> None:
    lines = [
        "3x4",
        "royal flush",
        "pair of 9s",
        "full house 4s over 4s",
        "help",
        "pair of 2s",
        "dudo",
        "full house 6s over 5s",
    ] + ["dudo", "pair of 1s"] * 60
    result = play(
        lines,
        "--bots",
        "easy",
        "--seed",
        "4",
        "--rules",
        "common-hand",
        "--set",
        "first_opener=host",
        "--set",
        "starting_dice=2",
    )
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "Type a hand like pair of 3s, two pair 5s and 2s" in out
    assert (
        "Not a hand: '3x4' is a quantity bid, but this table bids poker hands (Common Hand)"
    ) in out
    assert "Not a hand: 'royal flush'" in out
    assert "Not a hand: 'pair of 9s'" in out and "not a face" in out
    assert "Not a hand: 'full house 4s over 4s'" in out
    assert "Bids: Tester: pair of 2s" in out or "pair of 2s" in out
    assert "the dice contain" in out.lower() or "the dice lack" in out.lower()
    assert "wins the game" in out or "You win the game!" in out


def test_a_hand_refused_by_the_engine_says_what_to_bid_instead() -> None:
    rules = Rules.preset("common-hand")
    game = Game(rules, 2, dice=ScriptedDice([[[1, 2, 3, 4, 5], [6, 6, 6, 2, 2]]]), opener=0)
    game.roll()
    game.apply(0, Hand.parse("three 4s"))
    console = recorded()
    answers = iter(["pair of 6s", "dudo"])
    terminal = TerminalGame(
        game, [make_bot("easy", seed=1)], "Ana", console, lambda _prompt: next(answers)
    )
    game.apply(1, Hand.parse("full house 6s over 2s"))
    assert terminal.ask_player() == DUDO
    text = " ".join(console.export_text().split())
    assert "Not allowed: a raise on a full house 6s over 2s names a higher hand" in text
    assert "The lowest raise is a full house 6s over 3s" in text
    assert "you may call dudo" in text


def test_the_record_lines_keep_each_path_whole_at_80_columns(tmp_path: Path) -> None:
    from io import StringIO

    from dudo.cli import record_lines

    home = tmp_path / "home" / "someone"
    default = home / ".local" / "share" / "dudo" / "games" / "20261202-005908-eca7c8.json"
    elsewhere = Path("/srv/games of ours/a folder far too deep for a line") / default.name
    for path in (default, elsewhere):
        out = StringIO()
        console = Console(file=out, width=80, force_terminal=True, highlight=False)
        console.print(record_lines(path, True, home=home), soft_wrap=True)
        lines = out.getvalue().splitlines()
        shown = lines[1].removeprefix("  ")
        assert lines == [
            "Game record:",
            f"  {shown}",
            "Check its dice, and weigh every move:",
            f"  dudo verify {shown}",
            f"  dudo analyze {shown}",
        ]
        if path == default:
            assert shown == "~/.local/share/dudo/games/20261202-005908-eca7c8.json"
            assert max(len(line) for line in lines) <= 80
        else:  # too long for a line: the terminal may wrap it, Rich does not break it
            assert shown == f"'{elsewhere}'"


def test_a_long_typed_line_is_quoted_cut_short() -> None:
    # A 5000-character line came back in full in "Not a bid: '...'".
    long_line = "x" * 5000
    bids = TerminalGame(
        Game(Rules.preset("perudo"), 2), [make_bot("easy")], "Ana", recorded(), input
    )
    assert bids.parse(long_line) is None
    said = " ".join(bids.console.export_text().split())  # type: ignore[attr-defined]
    assert said == f"Not a bid: '{'x' * MAX_QUOTED}…' (write it like '4x5' or '4 5s').", said
    hands = TerminalGame(
        Game(Rules.preset("common-hand"), 2), [make_bot("easy")], "Ana", recorded(), input
    )
    for typed, start in (
        ("a " + long_line, f"Not a hand: '{('a ' + long_line)[:MAX_QUOTED]}…' (write"),
        ("pair of " + long_line, f"Not a face: '{'x' * MAX_QUOTED}…'."),
        # More digits than Python reads as a number was a ValueError: the game crashed.
        ("pair of " + "9" * 5000, f"Not a face: '{'9' * MAX_QUOTED}…'."),
        ("pair of " + "9" * 1000, f"Not a hand: '{('pair of ' + '9' * 1000)[:MAX_QUOTED]}…': "),
    ):
        hands.console = recorded()
        assert hands.parse(typed) is None
        said = " ".join(hands.console.export_text().split())  # type: ignore[attr-defined]
        assert said.startswith(start) and len(said) < 200, said
    bids.console = recorded()
    assert bids.parse("9" * 5000 + " 5s") is None
    said = " ".join(bids.console.export_text().split())  # type: ignore[attr-defined]
    assert said == f"Not a bid: '{'9' * MAX_QUOTED}…' (write it like '4x5' or '4 5s').", said
    # A short line is quoted whole, as before.
    assert quoted("zebra") == "'zebra'" and quoted("y" * MAX_QUOTED) == repr("y" * MAX_QUOTED)


def test_words_that_are_no_bid_or_hand_are_refused_in_a_capitalised_sentence() -> None:
    bids = TerminalGame(
        Game(Rules.preset("perudo"), 2), [make_bot("easy")], "Ana", recorded(), input
    )
    assert bids.parse("banana") is None
    said = bids.console.export_text()  # type: ignore[attr-defined]
    assert said.strip() == "Not a bid: 'banana' (write it like '4x5' or '4 5s')."
    poker = Game(Rules.preset("common-hand"), 2)
    hands = TerminalGame(poker, [make_bot("easy")], "Ana", recorded(), input)
    assert hands.parse("pair of dragons") is None
    said = " ".join(hands.console.export_text().split())  # type: ignore[attr-defined]
    assert said.startswith("Not a face: 'dragon'") and said.endswith("."), said


@pytest.mark.parametrize("name", ["[/]", "[bold red]Ana", "Ana\x1b[31m\x07\nBo\u202e"])
def test_a_name_with_markup_or_control_characters_is_shown_as_typed_and_harmless(
    name: str,
) -> None:
    # A name is text, never markup or terminal control: "[/]" once ended the game with a
    # traceback at the first screen that printed it, and an escape could recolour the screen.
    result = play(
        ["", "1 6s", "dudo"] * 200,
        "--bots",
        "easy,normal",
        "--seed",
        "3",
        "--set",
        "starting_dice=2",
        "--name",
        name,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    out = result.stdout
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    shown = "Ana[31m Bo" if "\x1b" in name else name
    assert f"{shown} (you)" in out
    assert f"{shown}: DUDO!" in out or f"{shown}: CALZA!" in out


@pytest.mark.parametrize(
    "name", ["\x1b\t\u200d", "\u3164", "\u2800", "\u0301\u0301", "\u0301 " * 12 + "Ana"]
)
def test_a_name_with_nothing_visible_is_refused(name: str) -> None:
    # A Hangul filler, a braille blank, accents with no letter: as the server refuses them
    # (test_names.py). The last shows nothing in the 24 characters a name keeps.
    result = play([], "--name", name)
    assert result.returncode == 2
    assert result.stderr.strip() == "dudo: error: --name needs at least one visible character"


FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 👩‍👩‍👧: three emoji, two joiners
ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("x" * 22 + FAMILY, "x" * 22 + "\U0001f469"),  # the 24th character: a joiner
        ("x" * 20 + ENGLAND, "x" * 20 + "\U0001f3f4"),  # the 24th: a tag of "gbeng"
    ],
)
def test_a_long_name_is_cut_as_the_server_cuts_it_not_inside_an_emoji(
    name: str, shown: str
) -> None:
    # --name was cut at 24 characters with [:24]: a family emoji ended in a joiner, and
    # England's flag in tag characters without their CANCEL TAG, both shown broken.
    from dudo.server.table.names import clean_name

    assert clean_name(name) == shown
    result = play(["quit"], "--bots", "easy", "--seed", "3", "--name", name)
    assert result.returncode == 0, result.stderr
    assert f"{shown} (you)" in result.stdout
    assert f"{name[:24]} (you)" not in result.stdout


def test_the_terminal_reads_a_name_as_the_server_does() -> None:
    # One reading of names for both (dudo.printable): the terminal had its own copy.
    from test_names import LEGIBLE, NOTHING_VISIBLE

    from dudo.server.table.names import clean_chat

    for text in [*NOTHING_VISIBLE, *LEGIBLE, "a" + "\u0301" * 30, "Ana\x1b[31m\x07\nBo\u202e"]:
        assert printable_name(text) == clean_chat(text), text


def test_a_record_folder_that_cannot_be_written_is_refused_before_the_game(
    tmp_path: Path,
) -> None:
    # Found out at the end of the game, the record was lost and dudo still exited 0.
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = play(["1 6s", "dudo"] * 200, "--seed", "3", records=blocker / "games")
    assert result.returncode == 2
    assert "Round 1" not in result.stdout
    error = result.stderr.strip()
    assert "\n" not in error
    assert error.startswith(f"dudo: error: cannot save game records in '{blocker / 'games'}'")
    assert "--no-record" in error


def test_a_record_that_cannot_be_written_leaves_no_part_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dudo.terminal_records import save_record

    def full_disk(self: Path, *args: object, **kwargs: object) -> int:
        Path.touch(self)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full_disk)
    with pytest.raises(OSError):
        save_record({"game_id": "g"}, tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("pause", ["inf", "1e300", "601"])
def test_a_pause_longer_than_the_clock_can_sleep_is_refused(pause: str) -> None:
    result = play([], "--pause", pause)
    assert result.returncode == 2
    assert result.stderr.startswith("dudo: error: --pause is at most 600 seconds, not ")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("columns", "dice"), [(40, 5), (60, 10)])
def test_on_a_narrow_terminal_no_line_wraps_a_die_or_a_cup(columns: int, dice: int) -> None:
    # At 40 columns each cup's last die and count wrapped onto a line of their own, and
    # ten dice drawn in one row wrapped every box into the next line's.
    rules = Rules.from_json({"preset": "perudo", "starting_dice": dice})
    cups = [[2, 3, 4, 5, 6, 1, 2, 3, 4, 5][:dice], [6] * dice]
    game, reveal = reveal_of(rules, cups, [(0, Bid(1, 4)), (1, DUDO)])
    console = Console(record=True, width=columns, color_system=None, highlight=False)
    bot = make_bot("easy", seed=1)
    terminal = TerminalGame(game, [bot], "Ana Maria de la Cruz", console, input)
    terminal.intro_shown = True
    terminal.print_dice(cups[0])
    terminal.show_reveal(reveal)
    lines = console.export_text().splitlines()
    assert max(len(line.rstrip()) for line in lines) <= columns, "\n".join(lines)
    assert sum(line.startswith("╭") for line in lines) == -(-dice // (columns // DIE_WIDTH))
    counted = sum(die in (1, 4) for die in cups[0])
    cup_rows = [
        line for line in lines if line.rstrip().endswith((f"→ {counted} counted", "→ 0 counted"))
    ]
    assert len(cup_rows) == 2, "\n".join(lines)  # each cup whole on one line, count at its end


def test_a_hand_of_a_face_that_does_not_exist_is_not_called_a_quantity_bid() -> None:
    # "five 7s" at a Common Hand table was answered "is a quantity bid, but this table
    # bids poker hands", which sends the player the wrong way: it is a hand of no face.
    rules = Rules.preset("common-hand")
    game = Game(rules, 2, dice=ScriptedDice([[[1, 2, 3, 4, 5], [6, 6, 6, 2, 2]]]), opener=0)
    game.roll()
    console = recorded()
    answers = iter(["five 7s", "pair of 3s"])
    terminal = TerminalGame(
        game, [make_bot("easy", seed=1)], "Ana", console, lambda _prompt: next(answers)
    )
    assert terminal.ask_player() == Hand.parse("pair of 3s")
    text = " ".join(console.export_text().split())
    assert "Not a hand: 'five 7s': 7 is not a face 1..6." in text
    assert "quantity bid" not in text


@pytest.mark.parametrize(
    ("preset", "offered"),
    [
        ("perudo", True),
        ("dudo", True),
        ("tavern", False),
        ("ones-lock", False),
        ("no-wilds", False),
    ],
)
def test_the_help_line_offers_calza_only_where_the_rules_have_it(
    preset: str, offered: bool
) -> None:
    result = play(["help", "quit"], "--bots", "easy,easy", "--seed", "3", "--rules", preset)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "dudo (or liar) to call the standing bid" in out
    assert ("calza to call it exact" in out) is offered, out[:400]


@pytest.mark.parametrize(
    ("preset", "bots", "options"),
    [
        ("perudo", "easy", []),  # calza needs 3 players
        ("dudo", "easy", ["--set", "calza_min_players=3"]),
        ("perudo", "easy,easy", ["--set", "calza=off"]),
    ],
)
def test_the_help_offers_no_calza_where_the_game_would_refuse_it(
    preset: str, bots: str, options: list[str]
) -> None:
    # At a two-player perudo table the intro help and the help command still said "calza
    # to call it exact", and typing it was refused: calza needs 3 players.
    result = play(["help", "quit"], "--bots", bots, "--seed", "3", "--rules", preset, *options)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "dudo (or liar) to call the standing bid" in out
    assert "calza" not in out.lower(), out[:600]


def palifico_round(preset: str, players: int = 3) -> Game:
    """A game where Ana (seat 0) has just dropped to one die: the next round is palifico."""
    rules = Rules.from_json({"preset": preset, "starting_dice": 2})
    others = [[6, 6], [4, 5], [2, 2]][: players - 1]
    rounds = [[[2, 3], *others], [[5], *others]]
    game = Game(rules, players, dice=ScriptedDice(rounds), opener=0)
    game.roll()
    game.apply(0, Bid(3, 2))
    game.apply(1, DUDO)  # Ana is down to one die
    game.roll()
    assert game.round_header().palifico
    return game


def test_the_help_in_a_palifico_round_offers_no_calza() -> None:
    # Perudo with three players has calza, but never in a palifico round: the help said
    # "calza to call it exact" there too, on the turn screen and when asked for.
    game = palifico_round("perudo")
    console = recorded()
    answers = iter(["help", "1 5s"])
    bots = [make_bot("easy", seed=seat) for seat in (1, 2)]
    terminal = TerminalGame(game, bots, "Ana", console, lambda _prompt: next(answers))
    assert terminal.ask_player() == Bid(1, 5)
    text = " ".join(console.export_text().split())
    assert "dudo (or liar) to call the standing bid" in text
    assert "calza to call it exact" not in text, text


def test_the_help_offers_calza_again_when_the_round_allows_it() -> None:
    # The same table in an ordinary round: calza is offered (three players, perudo).
    game = Game(
        Rules.preset("perudo"),
        3,
        dice=ScriptedDice([[[2, 3], [6, 6], [4, 5]]]),
        opener=0,
        dice_counts=[2, 2, 2],
    )
    game.roll()
    console = recorded()
    answers = iter(["help", "1 5s"])
    bots = [make_bot("easy", seed=seat) for seat in (1, 2)]
    terminal = TerminalGame(game, bots, "Ana", console, lambda _prompt: next(answers))
    assert terminal.ask_player() == Bid(1, 5)
    assert "calza to call it exact" in " ".join(console.export_text().split())


def help_example(text: str) -> str:
    """The example bid of the last help in ``text`` ("Type a bid like 4 5s or 4x5 (four
    5s)") as it says to type it, checked to be the same bid all three ways it is shown."""
    typed, _, rest = text.rpartition("Type a bid like ")[2].partition(" or ")
    compact, _, rest = rest.partition(" (")
    words = rest.partition(")")[0]
    assert Bid.parse(typed) == Bid.parse(compact) == Bid.parse(words), text
    return typed


def a_palifico_round_on_3s() -> Game:
    """Perudo, Ana (seat 0) down to one die, so the face is locked for her; she opened on
    3s and each bot raised them: her turn, on three 3s."""
    game = palifico_round("perudo")
    game.apply(0, Bid(1, 3))
    game.apply(1, Bid(2, 3))
    game.apply(2, Bid(3, 3))
    assert game.turn == 0 and not game.may_change_face(0)
    return game


def an_ordinary_round_on_five_2s() -> Game:
    """Perudo, three players of five dice; Ana's turn on five 2s, which four 5s does not
    raise."""
    game = Game(Rules.preset("perudo"), 3, dice=ScriptedDice([[[2, 3, 4, 5, 6]] * 3]), opener=1)
    game.roll()
    game.apply(1, Bid(4, 2))
    game.apply(2, Bid(5, 2))
    return game


@pytest.mark.parametrize(
    ("round_at", "example"),
    [(a_palifico_round_on_3s, Bid(4, 3)), (an_ordinary_round_on_five_2s, Bid(5, 3))],
    ids=["palifico", "ordinary"],
)
def test_the_helps_example_bid_is_one_the_game_takes(
    round_at: Callable[[], Game], example: Bid
) -> None:
    # The help said "Type a bid like 4 5s" in every round; typed as shown it was refused
    # in a palifico round with the face locked on 3s, and over a standing five 2s.
    game = round_at()
    assert game.reason(0, Bid(4, 5)) is not None
    console = recorded()
    answers = ["help", "the example"]

    def read_line(_prompt: str) -> str:
        """Answers "help", then the example as the help just shown says to type it; no more."""
        if not answers:
            raise EOFError  # the example was refused
        answer = answers.pop(0)
        if answer == "the example":
            return help_example(console.export_text(clear=False))
        return answer

    bots = [make_bot("easy", seed=seat) for seat in (1, 2)]
    terminal = TerminalGame(game, bots, "Ana", console, read_line)
    assert terminal.ask_player() == example
    text = console.export_text()
    assert text.count("Type a bid like ") == 2, text  # the turn screen's help, and asked for
    assert "Not allowed" not in text, text


def test_the_helps_example_is_four_5s_wherever_it_may_be_bid() -> None:
    game = palifico_round("perudo")  # Ana opens the palifico round: any face
    bots = [make_bot("easy", seed=seat) for seat in (1, 2)]
    terminal = TerminalGame(game, bots, "Ana", recorded(), input)
    assert "Type a bid like [bold]4 5s[/] or [bold]4x5[/] (four 5s), " in terminal.help
    game.apply(0, Bid(1, 5))
    game.apply(1, Bid(2, 5))  # on 5s, bot 2 to bid: four 5s for Ana if it stood
    assert help_example(terminal.console.render_str(terminal.help).plain) == "4 5s"


def at_the_highest_bid(preset: str, players: int, highest: list[Bid | Hand]) -> Game:
    """A game of ``players`` with two dice each where the bots bid ``highest`` in turn
    (the last of them the highest bid there is): Ana's turn (seat 0), with no bid left."""
    rules = Rules.preset(preset)
    game = Game(
        rules,
        players,
        dice=ScriptedDice([[[2, 3]] * players]),
        opener=1,
        dice_counts=[2] * players,
    )
    game.roll()
    for seat, bid in enumerate(highest, start=1):
        game.apply(seat, bid)
    assert game.turn == 0 and not game.legal_actions(0).any_bids
    return game


@pytest.mark.parametrize(
    ("preset", "players", "highest", "calls"),
    [
        ("perudo", 3, [Bid(6, 6), Bid(6, 1)], "the calls are"),  # six 1s of six dice
        ("tavern", 2, [Bid(4, 6)], "the call is"),  # no ones bids, no calza
        ("common-hand", 2, [Hand("four", (6,))], "the call is"),  # four dice in play
    ],
    ids=["calza", "no-calza", "hands"],
)
def test_the_help_offers_no_example_where_no_bid_is_left(
    preset: str, players: int, highest: list[Bid | Hand], calls: str
) -> None:
    # At the highest bid there is (the cap reached) the help still said "Type a bid like
    # 4 5s", which the game refused as it refused every bid: only the calls were left.
    game = at_the_highest_bid(preset, players, highest)
    console = recorded()
    answers = iter(["help", "liar"])
    bots = [make_bot("easy", seed=seat) for seat in range(1, players)]
    terminal = TerminalGame(game, bots, "Ana", console, lambda _prompt: next(answers))
    assert terminal.ask_player() is DUDO
    text = " ".join(console.export_text().split())
    word = "hand" if preset == "common-hand" else "bid"
    assert "Type a bid like" not in text and "Type a hand like" not in text, text
    assert "4 5s" not in text and "pair of 3s" not in text, text
    said = f"No {word} is higher than the standing {word}: only {calls} left."
    assert text.count(said) == 2, text  # the turn screen's help, and asked for
    assert f"dudo (or liar) to call the standing {word}" in text
    assert ("calza to call it exact" in text) is (preset == "perudo"), text
    assert "Not allowed" not in text, text


@pytest.mark.parametrize(("preset", "may_change"), [("dudo", True), ("perudo", False)])
def test_a_palifico_round_tells_a_one_die_player_they_may_change_the_face(
    preset: str, may_change: bool
) -> None:
    # The dudo preset lets a player down to one die change the locked face; the title said
    # only "the face is locked", so the player never learnt they could.
    game = palifico_round(preset)
    assert game.may_change_face(0) is may_change
    console = recorded()
    bots = [make_bot("easy", seed=seat) for seat in (1, 2)]
    terminal = TerminalGame(game, bots, "Ana", console, input)
    terminal.intro_shown = True
    terminal.show_table(view(game, 0))
    text = " ".join(console.export_text().split())
    assert "PALIFICO: ones are not wild and the face is locked" in text
    assert ("you have one die: you may change it" in text) is may_change, text


@pytest.mark.parametrize("columns", [60, 80, 160])
def test_a_palifico_round_says_its_rule_whole_at_any_width(columns: int) -> None:
    # At 60 columns the round's title was cut short by the rule around it: "PALIFICO: ones
    # are not wild and the face is l…".
    rules = Rules.from_json({"preset": "perudo", "starting_dice": 2})
    rounds = [[[2, 3], [6, 6], [4, 5]], [[5], [6, 6], [4, 5]]]
    game = Game(rules, 3, dice=ScriptedDice(rounds), opener=0)
    game.roll()
    game.apply(0, Bid(3, 2))
    game.apply(1, DUDO)  # Ana is down to one die
    game.roll()
    assert game.round_header().palifico
    console = Console(record=True, width=columns, color_system=None, highlight=False)
    bots = [make_bot("easy", seed=seat) for seat in (1, 2)]
    terminal = TerminalGame(game, bots, "Ana", console, input)
    terminal.intro_shown = True
    terminal.show_table(view(game, 0))
    shown = console.export_text()
    assert "PALIFICO: ones are not wild and the face is locked" in " ".join(shown.split())
    assert "…" not in shown, shown
    assert max(len(line) for line in shown.splitlines()) <= columns, shown


# -- the follow-up to the audit: every round readable, names whole, hands in words ----------


def test_a_round_without_a_turn_of_yours_shows_its_bids_and_call_on_the_reveal() -> None:
    # Three players: a bot opened and the next bot called before the player's turn came;
    # the reveal's screen wiped the bids, so the player never learnt what had been bid.
    cups = [[4, 1, 6, 3, 4], [2, 2, 5, 6, 6], [3, 3, 3, 5, 1]]
    game = Game(Rules.preset("dudo"), 3, dice=ScriptedDice([cups]), opener=1)
    game.roll()
    game.apply(1, Bid(2, 3))
    events = game.apply(2, DUDO)
    console = recorded()
    bots = [make_bot("easy", seed=seat) for seat in (1, 2)]
    terminal = TerminalGame(game, bots, "Ana", console, input, levels=["easy", "easy"])
    terminal.show(events)
    text = " ".join(console.export_text().split())
    first, second = terminal.names[1:]
    assert f"Bids: {first}: two 3s." in text, text
    assert f"{second}: DUDO! on two 3s by {first}." in text, text


def test_each_cups_count_is_labelled_not_one_more_die() -> None:
    game, reveal = reveal_of(
        Rules.preset("dudo"), [[4, 1, 6, 3, 4], [2, 2, 5, 6, 6]], [(0, Bid(3, 4)), (1, DUDO)]
    )
    console = recorded()
    terminal = TerminalGame(game, [make_bot("easy", seed=1)], "Ana", console, input)
    terminal.show_reveal(reveal)
    lines = console.export_text().splitlines()
    assert any(line.endswith("  [4]  → 3 counted") for line in lines), lines
    assert any(line.endswith("  6   → 0 counted") for line in lines), lines


def test_common_hand_screens_speak_of_hands_in_sentences() -> None:
    rules = Rules.preset("common-hand")
    rounds = [[[1, 2, 3, 4, 5], [6, 6, 6, 2, 2]], [[1, 2, 3, 4, 5], [6, 6, 6, 2]]]
    game = Game(rules, 2, dice=ScriptedDice(rounds), opener=0)
    game.roll()
    game.apply(0, Hand.parse("pair of 4s"))
    game.apply(1, Hand.parse("full house 5s over 3s"))
    console = recorded()
    terminal = TerminalGame(game, [make_bot("easy", seed=1)], "Ana", console, input)
    terminal.intro_shown = True
    terminal.show_table(view(game, 0))
    reveal = [event for event in game.apply(0, DUDO) if isinstance(event, Revealed)]
    terminal.show(reveal)
    game.roll()
    terminal.show_table(view(game, 0))
    text = " ".join(console.export_text().split())
    bot = terminal.names[1]
    assert f"Standing hand: a full house 5s over 3s by {bot}." in text, text
    assert f"Hands: Ana: a pair of 4s, {bot}: a full house 5s over 3s." in text, text
    assert f"Ana: DUDO! on a full house 5s over 3s by {bot}." in text, text
    assert "The dice lack a full house 5s over 3s — the hand fails." in text, text
    assert "Last round: the dice lack a full house 5s over 3s — the hand fails." in text
    assert "No hand yet." in text and "Standing bid" not in text and "No bid" not in text


def test_no_line_breaks_inside_a_name_at_60_columns() -> None:
    # "Lucy / Anne 2+5=7" and "Lucy / Anne loses a die": the reader took Anne for a player.
    result = play(
        ["1 6s", "dudo"] * 200,
        "--bots",
        "easy,normal,hard",
        "--seed",
        "1",
        "--rules",
        "dudo",
        "--set",
        "starting_dice=2",
        "--name",
        "Lucy Anne",
        columns=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    names = ["Lucy Anne", "Grandpa Tito", "Uncle Bo", "La Condesa", "Dr. Okafor", "El Capitán"]
    names += ["The Professor", "Dice Monkey"]
    joined = " ".join(result.stdout.split())
    for name in names:
        assert joined.count(name) == sum(line.count(name) for line in lines), name
    assert joined.count("Lucy Anne") > 3


def test_piped_input_gives_line_based_output() -> None:
    # Read from a pipe, the prompt had no line end: the reply or the next screen followed
    # on its line ("Your move: Not allowed: ..."). Each prompt's line now ends with what
    # was read, as a terminal shows it.
    typed = ["3 1s", "zebra", "1 6s", "pass", "dudo", "1 6s", "quit"]
    result = play(
        typed, "--bots", "easy", "--seed", "5", "--rules", "tavern", "--set", "first_opener=host"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    prompts = [line for line in lines if line.startswith(("Your move:", "Calza on"))]
    assert prompts, result.stdout
    answers = [line.rpartition(": ")[2] for line in prompts]
    assert answers == typed[: len(answers)], result.stdout
    assert any(
        line.startswith("Not allowed: these rules never allow a bid on aces") for line in lines
    )
    assert any(line.startswith("Not a bid: 'zebra'") for line in lines), result.stdout


def a_long_round() -> tuple[Game, list[Bot]]:
    """Three players, the player's turn after 12 bids (each the lowest raise)."""
    bots = [make_bot("easy", seed=seat) for seat in (1, 2)]
    game = Game(Rules.preset("dudo"), 3, dice=ScriptedDice([[[2, 3, 4, 5, 6]] * 3]), opener=0)
    game.roll()
    for _ in range(12):
        game.apply(game.turn, game.legal_actions(game.turn).bids[0])
    assert game.turn == 0
    return game, bots


def test_a_log_lists_only_the_last_few_bids_of_a_long_round() -> None:
    # Not on a terminal, the turn screen listed every bid of the round, a bid longer each
    # turn; it lists the last few, after how many there were.
    game, bots = a_long_round()
    console = recorded()
    terminal = TerminalGame(game, bots, "Ana", console, input)
    terminal.show_table(view(game, 0))
    text = " ".join(console.export_text().split())
    assert f"Bids: … {12 - LOG_BIDS} earlier bids, then " in text, text
    shown = text.split("Bids: ")[1].split(". ")[0]
    assert shown.count(":") == LOG_BIDS, shown  # one a bid
    # On a terminal tall enough for them (80x25), every bid.
    console = Console(record=True, width=80, height=25, color_system=None, highlight=False)
    terminal = TerminalGame(game, bots, "Ana", console, input, clear=True)
    terminal.show_table(view(game, 0))
    text = " ".join(console.export_text().split())
    assert "Bids: " in text and "earlier" not in text, text


@pytest.mark.parametrize(
    ("typed", "end"),
    [
        ([], ["Your move: ", "The input ended, so you left the table in round 1."]),
        (["quit"], ["Your move: quit", "You left the table in round 1."]),
    ],
    ids=["input ends", "quit"],
)
def test_leaving_from_piped_input_ends_without_a_blank_line(
    typed: list[str], end: list[str]
) -> None:
    # The line that says why the game ended began with a line break, which ends the
    # prompt's line where the input ended after it; after a line read (and echoed) it left
    # a blank line.
    result = play(typed, "--bots", "easy", "--seed", "5", "--set", "first_opener=host")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-2:] == end, result.stdout[-400:]


def test_echoed_input_ends_the_prompts_line_and_shows_no_control_character() -> None:
    console = recorded()
    lines = iter(["four\x1b[2J 5s"])
    console.input = lambda prompt, **_: (console.print(prompt, end=""), next(lines))[1]  # type: ignore[method-assign]
    assert echoed_input(console)("Your move: ") == "four\x1b[2J 5s"
    console.print("Not allowed.")
    assert console.export_text() == "Your move: four[2J 5s\nNot allowed.\n"


@pytest.mark.parametrize(
    ("preset", "options", "why"),
    [
        ("perudo", {}, "calza needs at least 3 players in the game, and only 2 are left."),
        ("tavern", {}, "these rules have no calza: a bid is called with dudo."),
        ("dudo", {"calza_min_players": 3}, "calza needs at least 3 players in the game"),
    ],
)
def test_calza_refused_at_two_players_says_why(
    preset: str, options: dict[str, object], why: str
) -> None:
    # It answered "Not allowed: calza is not allowed now." whatever the cause.
    game = Game(
        Rules.preset(preset, **options),
        2,
        dice=ScriptedDice([[[1, 2, 3, 4, 5], [6, 6, 6, 2, 2]]]),
        opener=1,
    )
    game.roll()
    game.apply(1, Bid(2, 5))
    console = Console(record=True, width=60, color_system=None, highlight=False)
    answers = iter(["calza", "dudo"])
    terminal = TerminalGame(
        game, [make_bot("easy", seed=1)], "Ana", console, lambda _prompt: next(answers)
    )
    assert terminal.ask_player() == DUDO
    shown = console.export_text()
    assert all(len(line) <= 60 for line in shown.splitlines()), shown
    text = " ".join(shown.split())
    assert f"Not allowed: {why}" in text, text
    assert "The lowest raise is two 6s (2x6) or you may call dudo." in text, text


def test_a_hand_may_be_typed_with_its_article_as_the_hints_say_it() -> None:
    game = Game(
        Rules.preset("common-hand"),
        2,
        dice=ScriptedDice([[[1, 2], [6, 6]]]),
        opener=0,
        dice_counts=[2, 2],
    )
    game.roll()
    console = recorded()
    answers = iter(["a pair of 3s"])
    terminal = TerminalGame(
        game, [make_bot("easy", seed=1)], "Ana", console, lambda _prompt: next(answers)
    )
    assert terminal.ask_player() == Hand.parse("pair of 3s")
