"""The command line as the ecosystem expects it: flags without a value type in the help,
shell completion on offer, and no command that quietly makes files it was not asked for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dudo.cli import app

runner = CliRunner()
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
    assert result.exit_code == 2
    assert result.stderr.startswith("dudo: error: no database at 'dudo.db'")
    assert list(tmp_path.iterdir()) == []
