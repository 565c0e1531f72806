"""The command line as the ecosystem expects it: flags without a value type in the help,
shell completion on offer, and no command that quietly makes files it was not asked for."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from dudo.cli import app

runner = CliRunner()
ROOT = Path(__file__).parents[2]
COMMANDS = ["analyze", "arena", "play", "purge", "rules", "scenario", "verify"]


@pytest.mark.parametrize("command", COMMANDS)
def test_flags_show_no_value_type_in_the_help(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout
    assert re.search(r"--help\s+-h\s+Show this message", result.stdout)


def test_options_that_take_values_still_say_what_they_take() -> None:
    result = runner.invoke(app, ["arena", "--help"], env={"COLUMNS": "120"})
    assert re.search(r"--games\s+-n\s+<int range>", result.stdout)
    assert re.search(r"--json\s+Print one JSON object", result.stdout)


def test_shell_completion_is_on_offer() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "120"})
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout


def test_purge_in_the_wrong_folder_makes_no_empty_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DUDO_DATABASE", raising=False)
    result = runner.invoke(app, ["purge"])
    assert result.exit_code == 1  # not done; 2 is for a bad option
    assert result.stderr.startswith("dudo: error: no database at 'dudo.db'")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["purge"], ["forget", "3f9a0c2e71b4d856"]])
@pytest.mark.parametrize("kind", ["another program's", "an empty file", "words", "a directory"])
def test_purge_and_forget_leave_a_file_that_is_not_dudos_database_alone(
    tmp_path: Path, command: list[str], kind: str
) -> None:
    """An audit pointed them at another program's SQLite database and at an empty file:
    both gained dudo's whole schema (purge said "purged 0 closed rooms"); a directory made
    a traceback now and then. Each is refused in one line and nothing is written."""
    target = tmp_path / "other.db"
    if kind == "another program's":
        with sqlite3.connect(target) as db:
            db.execute("CREATE TABLE notes (text)")
        db.close()
    elif kind == "a directory":
        target.mkdir()
    else:
        target.write_text("" if kind == "an empty file" else "some words, not a database\n")
    before = {path: path.read_bytes() if path.is_file() else None for path in tmp_path.rglob("*")}
    for scheme in ("sqlite", "sqlite+aiosqlite"):
        result = runner.invoke(app, [*command, "--database", f"{scheme}:///{target}"])
        assert result.exit_code == 1, result.output  # not done; 2 is for a bad option
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith("dudo: error: ") and "other.db" in result.stderr
        assert "database" in result.stderr, result.stderr
    after = {path: path.read_bytes() if path.is_file() else None for path in tmp_path.rglob("*")}
    assert after == before


def dudo_database(path: Path) -> Path:
    """A SQLite file with dudo's tables and nothing in them, as a first start makes it."""
    from dudo.store import open_store

    async def make() -> None:
        store = open_store(f"sqlite:///{path}")
        await store.open()
        await store.close()

    asyncio.run(make())
    return path


def test_purge_and_forget_work_on_dudos_database(tmp_path: Path) -> None:
    database = f"sqlite:///{dudo_database(tmp_path / 'dudo.db')}"
    assert runner.invoke(app, ["purge", "--database", database]).exit_code == 0
    forgotten = runner.invoke(app, ["forget", "3f9a0c2e71b4d856", "--database", database])
    assert "no profile '3f9a0c2e71b4d856'" in forgotten.stderr, forgotten.output


def test_the_package_metadata_names_the_project_and_its_authors() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["authors"] and project["maintainers"]
    urls = project["urls"]
    assert set(urls) >= {"Homepage", "Source", "Documentation", "Issues"}
    assert all(url.startswith("https://github.com/dudo-game/dudo") for url in urls.values())


def test_the_readmes_links_work_on_a_package_index_page() -> None:
    # The README is the long description: an index page has no docs/ or examples/ to point
    # into, so every link and image is absolute.
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", readme)
    assert targets
    relative = [target for target in targets if not re.match(r"https?://|#", target)]
    assert relative == []


# -- help at 80 columns ----------------------------------------------------------------------

ALL_HELP = [[], *([command] for command in [*COMMANDS, "backup", "forget", "serve"])]
BOX = str.maketrans({char: " " for char in "│╭╮╰╯─"})


def help_at(columns: int, command: list[str]) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.stdout


def ragged(lines: list[str], width: int) -> list[tuple[str, str]]:
    """Pairs of consecutive lines of one paragraph where the next line's first word would
    have fitted on the line before: a line break from the source, not from wrapping."""
    return [
        (before, after)
        for before, after in itertools.pairwise(lines)
        if before.strip()
        and after.strip()
        and len(before.rstrip()) + 1 + len(after.split()[0]) <= width
    ]


@pytest.mark.parametrize("command", ALL_HELP, ids=lambda command: " ".join(command) or "dudo")
def test_help_flows_at_80_columns(command: list[str]) -> None:
    text = help_at(80, command)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80, text
    # No word broken in two: every word at 80 columns is a word of the wide help too.
    wide = set(help_at(200, command).translate(BOX).split())
    assert set(text.translate(BOX).split()) <= wide, text
    # The description under Usage flows: Typer prints it 78 wide (a space either side).
    first_box = next(index for index, line in enumerate(lines) if line.startswith("╭"))
    description = [
        line.strip() for line in lines[1:first_box] if not line.strip().startswith("Usage:")
    ]
    assert ragged(description, 78) == [], text
    # So does each command's line in the list of commands.
    if "╭─ Commands" in text:
        panel = lines[lines.index(next(line for line in lines if "╭─ Commands" in line)) + 1 :]
        panel = panel[: next(index for index, line in enumerate(panel) if line.startswith("╰"))]
        start = len(re.match(r"│ \S+\s+", panel[0]).group(0))  # type: ignore[union-attr]
        end = panel[0].rindex("│") - 1
        for before, after in itertools.pairwise(panel):
            if after[1:start].strip():  # the next command
                continue
            assert not ragged([before[start:end], after[start:end]], end - start), text


def help_strings(command: list[str]) -> list[str]:
    """The help of every option and argument of ``dudo COMMAND`` (of ``dudo`` for [])."""
    group = typer.main.get_command(app)
    found = group.commands[command[0]] if command else group  # type: ignore[attr-defined]
    return [param.help for param in found.params if getattr(param, "help", None)]


@pytest.mark.parametrize("columns", [60, 80])
@pytest.mark.parametrize("command", ALL_HELP, ids=lambda command: " ".join(command) or "dudo")
def test_no_word_of_the_help_is_split_or_cut_at_60_or_80_columns(
    command: list[str], columns: int
) -> None:
    # At 60 columns the options' table left the help a dozen columns: "OPTION=VALU" over
    # "E", "comma-separa…", "--forwarded-al…". Each option's help now goes under its names.
    text = help_at(columns, command)
    assert max(len(line) for line in text.splitlines()) <= columns, text
    shown = text.translate(BOX).split()
    for help_text in help_strings(command):
        missing = [word for word in help_text.split() if word not in shown]
        assert missing == [], (missing, text)
    wide = set(help_at(200, command).translate(BOX).split())
    assert set(shown) <= wide, (set(shown) - wide, text)


def test_wide_help_keeps_typers_table() -> None:
    assert re.search(r"--bots\s+-b\s+LEVEL,LEVEL,...\s+Opponents", help_at(100, ["play"]))
    narrow = help_at(60, ["play"]).splitlines()
    names = next(index for index, line in enumerate(narrow) if "--bots" in line)
    assert narrow[names].split() == ["│", "--bots", "-b", "LEVEL,LEVEL,...", "│"]
    assert narrow[names + 1].startswith("│     Opponents, comma-separated")


def test_the_help_typer_is_given_has_no_line_break_inside_a_paragraph() -> None:
    group = typer.main.get_command(app)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph, (name, paragraph)
        for param in command.params:
            assert "\n" not in (getattr(param, "help", None) or ""), (name, param.name)


def test_seeds_and_files_say_what_they_take_not_a_type_name() -> None:
    for command in (["play"], ["arena"]):
        assert re.search(r"--seed\s+N\s+Seed", help_at(120, command))
    for command in ("analyze", "scenario", "verify", "backup", "forget", "rules", "play", "purge"):
        text = help_at(120, [command])
        assert not re.search(r"<(str|int|float)>", text), (command, text)
    assert re.search(r"\*\s+FILE\|-\s+A game's record", help_at(120, ["analyze"]))


def test_one_game_and_one_day_are_singular(tmp_path: Path) -> None:
    # "1 games, random #1 vs random #2" and "closed more than 1 days ago" read as typos.
    runner = CliRunner()
    result = runner.invoke(app, ["arena", "--players", "random,random", "--games", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("1 game, random #1 vs random #2")
    result = runner.invoke(app, ["arena", "--ladder", "--players", "random,easy", "--games", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Ladder: 1 game, heads-up")
    database = f"sqlite:///{dudo_database(tmp_path / 'dudo.db')}"
    result = runner.invoke(app, ["purge", "--database", database, "--older-than", "1"])
    assert result.exit_code == 0, result.output
    assert "(closed more than 1 day ago)" in result.output


def test_a_record_that_fails_verification_says_so_on_one_bounded_line(tmp_path: Path) -> None:
    # The failure quoted the record's value in full: a 2,000-character version made an
    # error line of 3,000 characters, where every other error is bounded (_error_line).
    from dudo.game import Game
    from dudo.rules import Rules
    from dudo.terminal_records import CommittedDice, game_record

    dice = CommittedDice(2, seed=1)
    game = Game(Rules.preset("perudo"), 2, dice=dice)
    game.roll()
    record = game_record(game, dice, "g1", ["Ana", "Bo"], [1])
    record["fairness"][0]["version"] = "v\n" * 1000
    changed = tmp_path / "record.json"
    changed.write_text(json.dumps(record))
    result = CliRunner().invoke(app, ["verify", str(changed)])
    assert result.exit_code == 1
    line = result.stderr
    assert line.startswith("dudo: NOT VERIFIED: round 1: unknown fairness version")
    assert line.count("\n") == 1 and len(line) < 340


def played_record() -> dict[str, object]:
    """The record of a game dudo play saved, one round rolled."""
    from dudo.game import Game
    from dudo.rules import Rules
    from dudo.terminal_records import CommittedDice, game_record

    dice = CommittedDice(2, seed=1)
    game = Game(Rules.preset("perudo"), 2, dice=dice)
    game.roll()
    return game_record(game, dice, "g1", ["Ana", "Bo"], [1])


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"players": "2"}, "'players' must be a whole number 2 to 10 (the table's seats), not a"),
        ({"rules": None}, "'rules' must be an object (the game's rules), not null"),
        ({"fairness": "x"}, "'fairness' must be a list (each round's seeds and commitment), not a"),
        ({"rounds": None, "fairness": None}, "'rounds' must be a list"),
        ({"fairness": ...}, "it has no 'fairness'; a scenario file is run with dudo scenario"),
    ],
)
def test_input_that_is_no_game_record_is_a_bad_argument(
    change: dict[str, object], expected: str, tmp_path: Path
) -> None:
    # It was exit 1 (the verdict on a record), and "fairness": "x" said the record "needs
    # 'fairness'" though it has one.
    record = played_record()
    for key, value in change.items():
        if value is ...:
            del record[key]
        else:
            record[key] = value
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("dudo: error: "), result.stderr
    assert f"not a game record: {expected}" in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1
    empty = CliRunner().invoke(app, ["verify", "-"], input="{}")
    assert empty.exit_code == 2
    assert "it has no 'rules', 'players', 'rounds' or 'fairness'" in empty.stderr


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("commitment", 5, "'commitment' must be hex digits (the SHA-256 published before the"),
        ("commitment", ..., "the fairness material has no 'commitment'"),
        ("server_seed", 7, "'server_seed' must be hex digits (the server seed published at"),
        ("seat_seeds", None, "'seat_seeds' must list each seat's seed in hex digits, not null"),
        ("seat_seeds", [1, 2], "'seat_seeds' must list each seat's seed in hex digits, not a"),
        ("seat_seeds", ["aa"], "'seat_seeds' has 1 seed for 2 seats"),
    ],
)
def test_fairness_material_of_the_wrong_kind_is_named_by_its_field(
    field: str, value: object, expected: str, tmp_path: Path
) -> None:
    # "malformed fairness material (unsupported operand type(s) for +: 'str' and 'int')",
    # "(object of type 'NoneType' has no len())", "('commitment')": Python's words.
    record = played_record()
    fair = record["fairness"][0]  # type: ignore[index]
    if value is ...:
        del fair[field]
    else:
        fair[field] = value
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"dudo: NOT VERIFIED: round 1: {expected}"), result.stderr
    assert "malformed" not in result.stderr and len(result.stderr.splitlines()) == 1


# -- messages an audit found wanting ---------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("DUDO_BOT_DELAY", "abc", "DUDO_BOT_DELAY must be a number of seconds, not 'abc'"),
        ("DUDO_GRACE", "nan", "DUDO_GRACE must be a number of seconds, not 'nan'"),
        ("DUDO_MAX_ROOMS", "nan", "DUDO_MAX_ROOMS must be a whole number, not 'nan'"),
        ("DUDO_CREATIONS_PER_MINUTE", "nan", "must be a number, not 'nan'"),
        ("DUDO_BOT_DELAY", "-1", "DUDO_BOT_DELAY must not be negative, not '-1'"),
    ],
)
def test_a_server_setting_that_is_no_number_says_what_it_must_be(
    variable: str, value: str, expected: str
) -> None:
    # "DUDO_BOT_DELAY must be a seconds", and NaN was "must not be negative".
    result = runner.invoke(
        app, ["serve", "--database", "memory://", "--port", "1"], env={variable: value}
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("dudo: error: ") and expected in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["arena", "--budget-ms", "nan", "-n", "1"],
        ["purge", "--older-than", "nan", "--database", "memory://"],
        ["play", "--pause", "nan", "--no-record"],
    ],
)
def test_nan_is_refused_as_no_number(args: list[str]) -> None:
    # It was "should be greater than or equal to 0", as if it were negative.
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2, result.output
    assert "must be a number, not 'nan'" in result.stderr, result.stderr
    assert "greater than" not in result.stderr and len(result.stderr.splitlines()) == 1
    negative = runner.invoke(app, [*args[:2], "-1", *args[3:]], input="")
    assert negative.exit_code == 2 and "must be at least 0, not -1" in negative.stderr


@pytest.mark.parametrize("value", ["inf", "infinity", "-inf", "1e400"])
@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["arena", "-p", "random,random", "-n", "1", "--budget-ms"], "--budget-ms"),
        (["arena", "--ladder", "-p", "random,easy", "-n", "1", "--budget-ms"], "--budget-ms"),
        (["purge", "--database", "DATABASE", "--older-than"], "--older-than"),
    ],
)
def test_infinity_is_refused_as_no_finite_number(
    tmp_path: Path, args: list[str], option: str, value: str
) -> None:
    # --budget-ms inf ran the games ("budget inf ms"), and --older-than inf purged rooms
    # "closed more than inf days ago".
    database = tmp_path / "dudo.db"
    database.touch()
    args = [f"sqlite:///{database}" if arg == "DATABASE" else arg for arg in args]
    result = runner.invoke(app, [*args, value])
    assert result.exit_code == 2, result.output
    expected = f"dudo: error: Invalid value for '{option}': must be a finite number, not "
    assert result.stderr.startswith(f"{expected}{value!r}"), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert result.stdout == "" and database.read_bytes() == b""  # nothing played nor purged


@pytest.mark.parametrize("value", ["1e305", "1e300", "36526"])
def test_older_than_more_than_a_hundred_years_is_refused(tmp_path: Path, value: str) -> None:
    # 1e305 days are infinite seconds (x 86,400): the cutoff was -inf and the purge went
    # through, purging nothing without a word. 36,525 days (100 years) is the bound.
    database = dudo_database(tmp_path / "dudo.db")
    before = database.read_bytes()
    args = ["purge", "--database", f"sqlite:///{database}", "--older-than"]
    result = runner.invoke(app, [*args, value])
    assert result.exit_code == 2, result.output
    expected = "dudo: error: Invalid value for '--older-than': must be at most 36525 (100 years)"
    assert result.stderr.startswith(f"{expected}, not {value}"), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert result.stdout == "" and database.read_bytes() == before  # nothing purged
    result = runner.invoke(app, [*args, "36525"])
    assert result.exit_code == 0, result.output
    assert "purged 0 closed rooms (closed more than 36525 days ago)" in result.stdout


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("DUDO_BOT_DELAY", "inf", "DUDO_BOT_DELAY must be a finite number of seconds, not 'inf'"),
        ("DUDO_REVEAL_PAUSE", "infinity", "must be a finite number of seconds, not 'infinity'"),
        ("DUDO_GRACE", "1e400", "DUDO_GRACE must be a finite number of seconds, not '1e400'"),
        ("DUDO_CLOSE_WHEN_IDLE", "-inf", "must be a finite number of seconds, not '-inf'"),
        ("DUDO_SWEEP_INTERVAL", "inf", "DUDO_SWEEP_INTERVAL must be a finite number, not 'inf'"),
        ("DUDO_BOT_BUDGET_MS", "inf", "must be a finite number of milliseconds or none, not"),
        ("DUDO_BOT_DELAY", "nan", "DUDO_BOT_DELAY must be a number of seconds, not 'nan'"),
    ],
)
def test_a_server_setting_of_infinity_is_refused(
    variable: str, value: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DUDO_BOT_DELAY=inf was taken: a bot that never moves (nan was refused already).
    # Read here without a server: one the old code started would serve until stopped.
    from dudo.server.web.settings import ServerSettings

    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=re.escape(expected)):
        ServerSettings.from_env("memory://")


def test_dudo_serve_refuses_an_infinite_delay_on_one_line_before_it_starts() -> None:
    # A subprocess with a time limit: the old code started the server, and served on.
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DUDO_BOT_DELAY": "inf"}
    result = subprocess.run(
        [sys.executable, "-m", "dudo", "serve", "--database", "memory://", "--port", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        "dudo: error: DUDO_BOT_DELAY must be a finite number of seconds, not 'inf'\n"
    )
    assert result.stdout == ""


def test_forget_says_a_string_is_no_profile_id_before_it_looks(tmp_path: Path) -> None:
    # "zzz" was looked up: "no profile 'zzz' in this database (forgotten already?)".
    database = f"sqlite:///{tmp_path / 'dudo.db'}"
    for text in ("zzz", "", "0123456789abcdeg", "0123456789abcdef0"):
        result = runner.invoke(app, ["forget", text, "--database", database])
        assert result.exit_code == 2
        assert result.stderr.startswith(f"dudo: error: {text!r} is not a profile id: 16 ")
    result = runner.invoke(app, ["forget", "0123456789ABCDEF", "--database", "memory://"])
    assert result.exit_code == 1  # a profile id, but no such profile: not done
    assert "no profile '0123456789abcdef' in this database" in result.stderr


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_records_folder_nothing_can_be_written_to_is_refused_before_the_game() -> None:
    # Root passes os.access on /proc: the game was played, then "cannot save" (exit 1).
    result = runner.invoke(app, ["play", "--records", "/proc", "--bots", "easy"], input="")
    assert result.exit_code == 2, result.output
    assert "Round 1" not in result.stdout
    assert result.stderr.startswith("dudo: error: cannot save game records in '/proc': ")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("players", ["", " , "])
def test_arena_with_no_entrant_named_refuses(players: str) -> None:
    # An empty --players ran the default entrants, as if it had been left out.
    for extra in ([], ["--ladder"]):
        result = runner.invoke(app, ["arena", "-p", players, "-n", "2", *extra])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("dudo: error: --players names no entrant")
        assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["arena", "-p", "random,,random"], "--players has an empty item (item 2 of "),
        (["arena", "-p", "random,random,"], "--players has an empty item (item 3 of "),
        (["arena", "--ladder", "-p", "random, ,easy"], "--players has an empty item (item 2"),
        (["play", "--bots", ",random", "--no-record"], "--bots has an empty item (item 1 of "),
        (["play", "--bots", "easy,,random", "--no-record"], "--bots has an empty item (item 2"),
    ],
)
def test_an_empty_item_in_a_comma_list_is_refused(args: list[str], expected: str) -> None:
    # It was dropped in silence: random,,random played two entrants.
    result = runner.invoke(app, [*args, "-n" if args[0] == "arena" else "--seed", "1"], input="")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"dudo: error: {expected}"), result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""


@pytest.mark.parametrize("seats", ["0", "1", "-3", "11"])
def test_a_ladder_table_of_no_seats_is_refused_like_one_too_big(seats: str) -> None:
    # --seats 0 was taken as the default, 2.
    result = runner.invoke(app, ["arena", "--ladder", "-p", "random,easy", "--seats", seats])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"dudo: error: --ladder: a table seats 2 to 10 players, not {seats}\n"
    assert result.stdout == ""


@pytest.mark.parametrize("key", ["", "  "])
def test_an_empty_dice_key_is_refused(key: str) -> None:
    # It turned the secret key off, in silence: a plug-in bot's dice were the seed's.
    result = runner.invoke(app, ["arena", "-p", "random,random", "-n", "1", "--dice-key", key])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("dudo: error: --dice-key is empty: "), result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""


@pytest.mark.parametrize("value", ["1_0", "\u0663", "\uff13", "+3"])
def test_a_number_in_set_is_ascii_digits(value: str) -> None:
    # int() read "1_0" as 10 and "٣" (Arabic-Indic) and "３" (fullwidth) as 3.
    result = runner.invoke(app, ["rules", "perudo", "--set", f"starting_dice={value}"])
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"dudo: error: option 'starting_dice' must be a whole number 1..10, not {value!r}\n"
    )
    assert result.stdout == ""
    below = runner.invoke(app, ["rules", "perudo", "--set", "starting_dice=-3"])
    assert below.exit_code == 2 and "must be 1..10, not -3" in below.stderr


def test_the_arena_seed_says_when_a_run_replays() -> None:
    # "the same seed replays the run" was untrue of a run with a bot of one's own: it draws
    # a fresh dice key unless --dice-key gives the one the run printed.
    group = typer.main.get_command(app)
    seed = next(
        param
        for param in group.commands["arena"].params  # type: ignore[attr-defined]
        if param.name == "seed"
    )
    text = seed.help or ""
    assert "the same seed replays the run." not in text
    assert "built-in bots" in text and "--dice-key" in text and "--budget-ms" in text


def test_verify_says_it_reads_dudo_play_records_and_what_its_exit_statuses_mean() -> None:
    text = " ".join(help_at(200, ["verify"]).translate(BOX).split())
    assert "dudo play" in text and "/api/games/ID" in text
    for status in ("0 when every die follows", "1 when the record does not verify", "2 when"):
        assert status in text, text


@pytest.mark.parametrize("command", ["serve", "purge", "forget"])
def test_the_database_default_is_shown_once(command: str) -> None:
    text = help_at(200, [command])
    assert text.count("sqlite:///dudo.db") == 1, text


def test_a_whole_number_of_days_is_shown_as_one() -> None:
    text = help_at(200, ["purge"])
    assert re.search(r"\[default: 1\]", text), text
    assert "1.0" not in text


def test_verify_counts_one_seat_seed_and_one_round_in_the_singular(tmp_path: Path) -> None:
    # "1 server seat seeds bound to it", "replayed 1 rounds", "1 attempt(s)".
    from dudo.game import Game
    from dudo.rules import Rules
    from dudo.terminal_records import CommittedDice, game_record

    dice = CommittedDice(2, seed=1)
    game = Game(Rules.preset("perudo", first_opener="rolloff"), 2, dice=dice)
    game.roll()
    record = game_record(game, dice, "g1", ["Ana", "Bo"], [1])
    for entry in [*record["fairness"], *record["rolloff_fairness"]]:
        entry["server_seats"] = [1]  # seat 0 sent its own seed, as a program's seat does
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 server seat seed bound to it," in result.stdout
    assert "seat seeds" not in result.stdout
    assert "roll-off: 1 attempt, seat " in result.stdout
    assert "replayed 1 round: the game is not finished" in result.stdout


@pytest.mark.parametrize("command", ["backup", "purge", "forget"])
def test_the_operators_commands_say_what_their_exit_statuses_mean(command: str) -> None:
    # 2 was both "a bad option" and "no such database or profile"; now 1 is "not done".
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "Exit status: 0" in text and ", 1 not " in text and ", 2 " in text, text


@pytest.mark.parametrize("command", [["purge"], ["forget", "0123456789abcdef"]])
def test_an_unknown_kind_of_database_url_is_a_bad_option(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--database", "nope://x"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("dudo: error: unknown database URL 'nope://x'")
