"""The command line as the ecosystem expects it: flags without a value type in the help,
shell completion on offer, and no command that quietly makes files it was not asked for."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
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
    assert result.exit_code == 2
    assert result.stderr.startswith("dudo: error: no database at 'dudo.db'")
    assert list(tmp_path.iterdir()) == []


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
