"""The Makefile: ``make serve`` installs what serving needs and nothing more, with pip's
progress on screen; ``make test`` after it adds only the extras (and Biome from npm);
``make party`` serves the home network. Read from ``make -n`` (what make would run) on a
copy of the files it reads."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if shutil.which("make") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have make (.ci/run installs it)")
        pytest.skip("no make on this machine")
    for name in ("Makefile", "pyproject.toml", "package.json", "package-lock.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def planned(project: Path, target: str) -> list[str]:
    # Run as from a shell: under `make test` the outer make's MAKEFLAGS/MAKELEVEL would add
    # "make[1]: Entering directory" lines to the plan.
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")
    }
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
        env=env,
    )
    return done.stdout.splitlines()


def test_make_serve_installs_only_what_serving_needs_and_shows_progress(project: Path) -> None:
    steps = planned(project, "serve")
    installs = [step for step in steps if "pip install" in step]
    assert installs == [".venv/bin/python -m pip install -e ."]
    assert not any("--quiet" in step or " -q" in step for step in steps)
    assert steps[-1] == ".venv/bin/dudo serve --host 127.0.0.1 --port 8000"  # local


def test_make_test_after_make_serve_adds_only_the_extras(project: Path) -> None:
    stamp = project / ".venv" / "bin" / ".serve-installed"
    stamp.parent.mkdir(parents=True)
    stamp.touch()
    later = (project / "pyproject.toml").stat().st_mtime + 10
    os.utime(stamp, (later, later))  # made after pyproject.toml, as make serve leaves it
    steps = planned(project, "test")
    assert not any("-m venv" in step for step in steps)
    installs = [step for step in steps if "pip install" in step]
    assert installs == [".venv/bin/python -m pip install -e '.[dev,openspiel,postgres]'"]
    # The JavaScript linter comes from the lock file, once, and lints the client.
    assert [step for step in steps if step.startswith("npm ")] == ["npm ci --no-audit --no-fund"]
    assert "npx --no-install biome ci src/dudo/web/js" in steps


def test_make_party_serves_the_home_network(project: Path) -> None:
    assert planned(project, "party")[-1] == ".venv/bin/dudo serve --lan --port 8000"
