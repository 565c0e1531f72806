"""Test-session order: modules marked ``slow`` run first; and a private endgame cache.

Why the order: ``make test`` runs the tests on both cores (pytest-xdist, ``--dist
worksteal``). A module of tens of seconds left to the end keeps one core busy while the
other has run out of work; started first, the long ones overlap the many short ones, and a
core that runs out takes over short tests from the other. The sort is stable, so every
module stays whole and in its own order (module fixtures are set up once).

Why the cache: a hard bot that meets a heads-up round no shipped file covers solves it and
writes the strategy to ``$DUDO_ENDGAME_CACHE`` (``dudo.bots.solved``, default
``~/.cache/dudo/endgames``). The session points it at a temporary folder of its own (one
per xdist worker; child processes inherit it), so tests never write to the user's cache and
never read a strategy an earlier run left there.

Why windowed solves are off: rounds past one die each (2v1 up to 2v2 and 1v3) are solved
for a short memory on first use (``dudo.bots.window``), 5-12 s of CPU each, five of them
per rule set, in every worker's fresh cache. Tests that play hard heads-up for other reasons
would spend minutes on them, so the session sets ``DUDO_ENDGAME_MAX_WINDOWS=0`` (hard plays
its heuristic there, as before); ``tests/bots/test_window.py`` turns them on for itself.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_CACHE = "DUDO_ENDGAME_CACHE"
_WINDOWS = "DUDO_ENDGAME_MAX_WINDOWS"


def pytest_configure(config: pytest.Config) -> None:
    folder = tempfile.mkdtemp(prefix="dudo-endgames-")
    config.stash[_cache_key] = (os.environ.get(_CACHE), folder)
    os.environ[_CACHE] = folder
    config.stash[_windows_key] = os.environ.get(_WINDOWS)
    os.environ[_WINDOWS] = "0"


def pytest_unconfigure(config: pytest.Config) -> None:
    before, folder = config.stash.get(_cache_key, (None, ""))
    if before is None:
        os.environ.pop(_CACHE, None)
    else:
        os.environ[_CACHE] = before
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    windows = config.stash.get(_windows_key, None)
    if windows is None:
        os.environ.pop(_WINDOWS, None)
    else:
        os.environ[_WINDOWS] = windows


_cache_key = pytest.StashKey[tuple[str | None, str]]()
_windows_key = pytest.StashKey[str | None]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
