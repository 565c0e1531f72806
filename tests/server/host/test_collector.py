"""The server's garbage-collector policy: young collections by the clock, reclaims by churn."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from dudo.server.collector import Collector


class Node:
    """A small object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, weakref.ref[Node]]:
    """Two nodes pointing at each other; returns one of them and a weakref to it."""
    first, second = Node(), Node()
    first.other, second.other = second, first
    return first, weakref.ref(first)


@contextmanager
def frozen_safely() -> Iterator[None]:
    """No automatic collection in between, and nothing left frozen or disabled afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def quiet_collector(reclaim_after: int = 1000) -> Collector:
    return Collector(released=lambda: 0, live=lambda: 0, reclaim_after=reclaim_after)


def test_a_tick_freezes_the_survivors_and_counts_a_young_collection() -> None:
    """An object alive at a tick is moved to the permanent generation; stats record it."""
    with frozen_safely():
        collector = quiet_collector()
        gc.unfreeze()
        before = gc.get_freeze_count()
        survivors = [Node() for _ in range(100)]
        collector.tick()
        assert gc.get_freeze_count() >= before + len(survivors)
        # The young generation was collected (another thread of the test process may have
        # allocated a few objects since, so not necessarily none).
        assert gc.get_count()[0] < len(survivors)
        assert collector.stats.young_collections == 1
        assert collector.stats.reclaims == 0
        # One collection so far: the total is that collection's own pause.
        assert collector.stats.young_seconds == collector.stats.longest_young


def test_frozen_cyclic_garbage_waits_for_a_reclaim() -> None:
    """A cycle frozen by one tick outlives later ticks and is freed only by reclaim()."""
    with frozen_safely():
        collector = quiet_collector()
        node, alive = cycle()
        collector.tick()  # the cycle is alive: frozen
        del node
        collector.tick()
        collector.tick()
        assert alive() is not None
        found = collector.reclaim()
        assert alive() is None
        assert found > 0
        assert collector.stats.reclaims == 1
        assert collector.stats.reclaimed_objects == found


def test_a_cycle_that_dies_before_the_next_tick_is_freed_by_it() -> None:
    """Garbage younger than one interval is collected by the young collection."""
    with frozen_safely():
        collector = quiet_collector()
        collector.tick()  # everything older than the test body is frozen
        node, alive = cycle()
        del node
        assert alive() is not None  # only the cyclic collector can free it
        collector.tick()
        assert alive() is None
        assert collector.stats.reclaims == 0


def test_a_reclaim_runs_once_enough_was_released_since_the_last() -> None:
    """tick() reclaims only when released-since-last-reclaim >= max(reclaim_after,
    per_live * live)."""
    counts = {"released": 5, "live": 0}
    with frozen_safely():
        collector = Collector(
            released=lambda: counts["released"],
            live=lambda: counts["live"],
            reclaim_after=10,
            per_live=2,
        )
        collector.tick()
        assert collector.stats.reclaims == 0
        counts["released"] = 14  # 9 since construction: below reclaim_after
        collector.tick()
        assert collector.stats.reclaims == 0
        counts["released"] = 15  # 10: enough
        collector.tick()
        assert collector.stats.reclaims == 1
        collector.tick()  # nothing released since: no second reclaim
        assert collector.stats.reclaims == 1

        counts["live"] = 25  # many sockets connected: the bar rises to 2 x 25
        counts["released"] = 15 + 49
        collector.tick()
        assert collector.stats.reclaims == 1
        counts["released"] = 15 + 50
        collector.tick()
        assert collector.stats.reclaims == 2
        assert collector.stats.young_collections == 6


def test_metrics_are_prometheus_lines() -> None:
    """metrics() reports the reclaim counter and the young collections."""
    with frozen_safely():
        collector = quiet_collector()
        collector.tick()
        collector.reclaim()
        lines = collector.metrics()
    assert "dudo_gc_reclaims_total 1" in lines
    assert "dudo_gc_young_collections_total 1" in lines
    assert "# TYPE dudo_gc_reclaims_total counter" in lines
    for line in lines:
        assert line.startswith("# TYPE dudo_gc_") or line.split()[0].startswith("dudo_gc_")
        if not line.startswith("#"):
            float(line.split()[1])


def test_a_live_server_runs_the_policy_and_leaves_the_collector_as_it_was() -> None:
    """With gc_policy="clock" (what ``dudo serve`` uses) the app ticks while it runs and
    reclaims after sockets leave; when it stops, thresholds and frozen objects are back."""
    import time

    from starlette.testclient import TestClient

    from serverkit import app_and_lobby

    thresholds = gc.get_threshold()
    app, _ = app_and_lobby(gc_policy="clock")
    try:
        with TestClient(app) as client:
            made = client.post("/api/rooms", json={"name": "Ana", "seats": 2}).json()
            for _ in range(3):  # three sockets come and go
                with client.websocket_connect(f"/ws/{made['code']}?token={made['token']}") as ws:
                    assert ws.receive_json()["type"] == "state"
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                metrics = client.get("/metrics").text
                if "dudo_gc_young_collections_total 0" not in metrics:
                    break
                time.sleep(0.05)
            assert "dudo_gc_young_collections_total 0\n" not in metrics
            assert "dudo_gc_reclaims_total" in metrics
            assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == thresholds
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
