"""Test-session order: modules marked ``slow`` run first.

Why: ``make test`` runs the tests on both cores (pytest-xdist, ``--dist worksteal``). A
module of tens of seconds left to the end keeps one core busy while the other has run out
of work; started first, the long ones overlap the many short ones, and a core that runs out
takes over short tests from the other. The sort is stable, so every module stays whole
and in its own order (module fixtures are set up once).
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
