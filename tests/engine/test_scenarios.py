"""Every scenario file in tests/scenarios gives exactly its expected output.

``shared/`` holds the project's copy of RULES.md's worked examples; ``own/`` holds ours,
one or more for every rule and every reason code. Each ``NAME.json`` has a
``NAME.expected.jsonl`` beside it; the CLI is run on a few of them as a whole process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dudo.game import REASONS
from dudo.scenario import format_output, load_scenario, run_scenario

HERE = Path(__file__).parents[1] / "scenarios"
FILES = sorted(HERE.glob("*/*.json"))


@pytest.mark.parametrize("path", FILES, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_scenario_output_matches_expected(path: Path) -> None:
    expected = path.with_name(path.stem + ".expected.jsonl").read_text()
    output = format_output(run_scenario(load_scenario(path.read_text())))
    assert output == expected


def test_every_reason_code_of_rules_md_is_exercised_by_a_scenario() -> None:
    seen = set()
    for path in HERE.glob("*/*.expected.jsonl"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "illegal":
                seen.add(event["reason"])
    rules_md_codes = list(REASONS)[:10]
    assert set(rules_md_codes) <= seen, set(rules_md_codes) - seen


def test_cli_runs_a_scenario_file_and_standard_input() -> None:
    path = HERE / "shared" / "perudo-aces.json"
    expected = path.with_name("perudo-aces.expected.jsonl").read_text()
    by_file = subprocess.run(
        [sys.executable, "-m", "dudo", "scenario", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    by_stdin = subprocess.run(
        [sys.executable, "-m", "dudo", "scenario", "-"],
        input=path.read_text(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert by_file.stdout == expected
    assert by_stdin.stdout == expected
