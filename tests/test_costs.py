"""The session's order (tests/costs.py): every test once, the costliest modules first in
each xdist worker's share, modules kept whole where they fit."""

from __future__ import annotations

from dataclasses import dataclass

from costs import from_log, order


@dataclass
class FakeItem:
    nodeid: str
    slow: bool = False

    def get_closest_marker(self, name: str) -> object:
        return object() if name == "slow" and self.slow else None


def collected() -> list[FakeItem]:
    sizes = {"a.py": 2, "b.py": 3, "c.py": 1, "d.py": 10, "e.py": 4, "f.py": 2}
    return [
        FakeItem(f"{module}::test_{n}", slow=module == "f.py")
        for module, count in sizes.items()
        for n in range(count)
    ]


COSTS = {"a.py": 300.0, "b.py": 200.0, "c.py": 150.0, "d.py": 10.0, "e.py": 2.0}


def modules(items: list[FakeItem]) -> list[str]:
    names: list[str] = []
    for item in items:
        name = item.nodeid.split("::")[0]
        if not names or names[-1] != name:
            names.append(name)
    return names


def test_one_process_runs_the_costliest_modules_first() -> None:
    items = collected()
    ordered = order(items, 1, COSTS)
    assert sorted(i.nodeid for i in ordered) == sorted(i.nodeid for i in items)
    # f.py is unknown but marked slow: at least a minute
    assert modules(ordered) == ["a.py", "b.py", "c.py", "f.py", "d.py", "e.py"]
    # within a module, collection order
    assert [i.nodeid for i in ordered if i.nodeid.startswith("d.py")] == [
        f"d.py::test_{n}" for n in range(10)
    ]


def test_each_workers_share_starts_with_long_modules() -> None:
    items = collected()
    ordered = order(items, 2, COSTS)
    assert sorted(i.nodeid for i in ordered) == sorted(i.nodeid for i in items)
    half = len(items) // 2
    first, second = modules(ordered[:half]), modules(ordered[half:])
    # longest first, each to the share with the least: a (300 s), b (200), c (150) to
    # b's, f (unknown, slow: 60) to a's; d's ten tests fill both shares' rooms, e the rest
    assert first == ["a.py", "f.py", "d.py", "e.py"]
    assert second == ["b.py", "c.py", "d.py"]


def test_costs_are_read_from_durations_lines() -> None:
    log = (
        "12.50s call     tests/x/test_a.py::test_one[p]\n"
        "2.00s setup    tests/x/test_a.py::test_one[p]\n"
        "0.50s teardown tests/x/test_b.py::test_two\n"
        "1 passed in 3.00s\n"
    )
    assert from_log(log) == {"tests/x/test_a.py": 14.5, "tests/x/test_b.py": 0.5}
