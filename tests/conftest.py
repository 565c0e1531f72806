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

Why background work runs at the normal priority: endgame solves and game analyses run in
Linux's idle scheduling class (``dudo.background``), and with both cores kept busy by the
suite they got no CPU for minutes (a two-round prefetch took 195 s instead of 4 s, an
analysis a browser test waited for timed out). The session sets
``DUDO_BACKGROUND_PRIORITY=normal``; ``test_background.py`` and the analysis worker's own
test check the idle class with it unset.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_CACHE = "DUDO_ENDGAME_CACHE"
_WINDOWS = "DUDO_ENDGAME_MAX_WINDOWS"
_PRIORITY = "DUDO_BACKGROUND_PRIORITY"


def pytest_configure(config: pytest.Config) -> None:
    folder = tempfile.mkdtemp(prefix="dudo-endgames-")
    config.stash[_cache_key] = (os.environ.get(_CACHE), folder)
    os.environ[_CACHE] = folder
    config.stash[_windows_key] = os.environ.get(_WINDOWS)
    os.environ[_WINDOWS] = "0"
    config.stash[_priority_key] = os.environ.get(_PRIORITY)
    os.environ[_PRIORITY] = "normal"


def pytest_unconfigure(config: pytest.Config) -> None:
    before, folder = config.stash.get(_cache_key, (None, ""))
    if before is None:
        os.environ.pop(_CACHE, None)
    else:
        os.environ[_CACHE] = before
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    for name, key in ((_WINDOWS, _windows_key), (_PRIORITY, _priority_key)):
        before_value = config.stash.get(key, None)
        if before_value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before_value


_cache_key = pytest.StashKey[tuple[str | None, str]]()
_windows_key = pytest.StashKey[str | None]()
_priority_key = pytest.StashKey[str | None]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
