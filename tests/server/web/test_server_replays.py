"""A finished game after the game, without a browser: its page shell, the analysis API
(made once, off the event loop, kept in memory), the scenario download, ``dudo analyze``."""

from __future__ import annotations

import asyncio
import gzip
import json
import math
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_bots_analysis import play_with_bots
from typer.testing import CliRunner

from dudo.bots.analysis import AnalysisError, analyze
from dudo.cli import app as cli
from dudo.rules import Rules
from dudo.scenario import run_scenario
from dudo.server.web import replays
from dudo.server.web.replays import Analyses, scenario_of
from dudo.store.base import MemoryStore
from serverkit import make_app

runner = CliRunner()


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    played = play_with_bots(Rules.preset("perudo"), ["hard", "normal", "easy"], seed=11)
    played.update(
        game_id="f00d", room="LHYH", names=["Ana", "Ben", "Cho"], bots=[1, 2], fairness=[]
    )
    return played


def client_with(record: dict[str, Any]) -> TestClient:
    store = MemoryStore()
    store.games["f00d"] = record
    return TestClient(make_app(store=store))


def test_the_analysis_api_answers_with_the_bots_layers_analysis(record: dict[str, Any]) -> None:
    with client_with(record) as client:
        answer = client.get("/api/games/f00d/analysis")
        assert answer.status_code == 200
        assert answer.json() == json.loads(json.dumps(analyze(record).to_json()))
        assert answer.json()["names"] == ["Ana", "Ben", "Cho"]
        assert client.get("/api/games/f00d/analysis").json() == answer.json()
        missing = client.get("/api/games/beef/analysis")
        assert missing.status_code == 404 and missing.json()["error"] == "no_game"
        bad = client.get("/api/games/a-b/analysis")
        assert bad.status_code == 400 and bad.json()["error"] == "bad_request"


def test_a_cached_analysis_goes_out_gzipped_once_made(record: dict[str, Any]) -> None:
    """The analysis is compressed once, beside the cache, not again for every request (a
    flood of requests for cached analyses then costs the event loop almost nothing)."""
    with client_with(record) as client:
        first = client.get("/api/games/f00d/analysis", headers={"Accept-Encoding": "gzip"})
        assert first.status_code == 200 and first.headers["content-encoding"] == "gzip"
        assert "Accept-Encoding" in first.headers["vary"]
        plain = client.get("/api/games/f00d/analysis", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers
        assert first.json() == plain.json() == json.loads(json.dumps(analyze(record).to_json()))


def test_the_stored_gzip_of_an_analysis_is_its_json(record: dict[str, Any]) -> None:
    async def made() -> tuple[bytes | None, bytes]:
        async def load(game_id: str) -> dict[str, Any] | None:
            return record if game_id == "f00d" else None

        analyses = Analyses(load, executor=None)
        analysis = await analyses.get("f00d")
        return analysis, analyses.zipped["f00d"]

    analysis, zipped = asyncio.run(made())
    assert analysis is not None and gzip.decompress(zipped) == analysis


def test_a_record_that_does_not_replay_is_a_clear_error(record: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(record))
    broken["rounds"][0]["actions"][0]["bid"] = [0, 9]
    with client_with(broken) as client:
        answer = client.get("/api/games/f00d/analysis")
        assert answer.status_code == 500 and answer.json()["error"] == "bad_record"


def test_the_scenario_download_replays_with_dudo_scenario(
    record: dict[str, Any], tmp_path: Path
) -> None:
    with client_with(record) as client:
        answer = client.get("/api/games/f00d/scenario")
        assert answer.status_code == 200
        assert "attachment" in answer.headers["content-disposition"]
        scenario = answer.json()
        assert client.get("/api/games/beef/scenario").status_code == 404
    assert set(scenario) == {"about", "rules", "players", "start", "rounds"}
    assert "Ana" in scenario["about"] and "LHYH" in scenario["about"]
    assert run_scenario(scenario)[-1]["event"] == "game_over"
    path = tmp_path / "game.scenario.json"
    path.write_text(json.dumps(scenario))
    played = runner.invoke(cli, ["scenario", str(path)])
    assert played.exit_code == 0 and '"event": "game_over"' in played.stdout


def test_the_game_page_and_my_games_are_the_static_shell() -> None:
    with TestClient(make_app()) as client:
        for path in ("/g/f00d", "/my-games"):
            page = client.get(path)
            assert page.status_code == 200
            # The page names its module under the static tree's content-hashed prefix.
            assert re.search(
                r'<script type="module" src="/static/[0-9a-f]+/js/replay.js">', page.text
            ), page.text
        for path in (
            "/static/js/replay.js",
            "/static/js/verify.js",
            "/static/js/mygames.js",
            "/static/css/replay.css",
        ):
            assert client.get(path).status_code == 200, path


# -- the cache and the worker thread -------------------------------------------------------


def test_analyses_are_made_once_in_a_worker_thread_and_kept(
    record: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[str] = []
    threads: list[int] = []
    real = replays.analyze

    def in_thread(data: dict[str, Any]) -> Any:
        threads.append(threading.get_ident())
        return real(data)

    monkeypatch.setattr(replays, "analyze", in_thread)

    async def load(game_id: str) -> dict[str, Any] | None:
        loads.append(game_id)
        await asyncio.sleep(0.01)
        return record if game_id.startswith("g") else None

    async def scenario() -> None:
        analyses = Analyses(load, size=2, executor=None, per_client_burst=100)
        first, second = await asyncio.gather(analyses.get("g1"), analyses.get("g1"))
        assert first is second and analyses.made == 1 and loads == ["g1"]
        assert await analyses.get("g1") is first and analyses.made == 1
        assert threads and threading.get_ident() not in threads
        assert await analyses.get("nothing") is None
        await analyses.get("g2")
        await analyses.get("g3")  # the least recently asked for (g1) goes
        assert list(analyses.done) == ["g2", "g3"]
        await analyses.get("g1")
        assert analyses.made == 4

    asyncio.run(scenario())


def test_a_failed_analysis_reaches_everyone_who_waited(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(data: dict[str, Any]) -> Any:
        raise AnalysisError("no")

    monkeypatch.setattr(replays, "analyze", refuse)

    async def load(game_id: str) -> dict[str, Any]:
        await asyncio.sleep(0.01)
        return {}

    async def scenario() -> None:
        analyses = Analyses(load, executor=None)
        results = await asyncio.gather(analyses.get("x"), analyses.get("x"), return_exceptions=True)
        assert all(isinstance(result, AnalysisError) for result in results)
        assert not analyses.pending and not analyses.done

    asyncio.run(scenario())


def test_scenario_of_keeps_only_scenario_keys(record: dict[str, Any]) -> None:
    scenario = scenario_of(record)
    assert scenario["rounds"] == record["rounds"] and "fairness" not in scenario


# -- dudo analyze ---------------------------------------------------------------------------


def test_dudo_analyze_prints_the_tables_and_the_json(
    record: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    shown = runner.invoke(cli, ["analyze", str(path)], env={"COLUMNS": "120"})
    assert shown.exit_code == 0, shown.stderr
    assert "every bid and call" in shown.stdout and "per player" in shown.stdout
    for name in ("Ana", "Ben", "Cho"):
        assert name in shown.stdout
    machine = runner.invoke(cli, ["analyze", "--json", str(path)])
    assert machine.exit_code == 0
    assert json.loads(machine.stdout) == json.loads(json.dumps(analyze(record).to_json()))
    piped = runner.invoke(cli, ["analyze", "--json", "-"], input=json.dumps(record))
    assert piped.stdout == machine.stdout
    mistakes = runner.invoke(cli, ["analyze", "--mistakes", str(path)], env={"COLUMNS": "120"})
    assert mistakes.exit_code == 0
    marked = sum(1 for decision in analyze(record).decisions if decision.mistake)
    assert mistakes.stdout.count("MISTAKE") == marked


@pytest.mark.parametrize(
    "content,fragment",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "a game record is a JSON object"),
        ('{"players": 2, "rounds": []}', "the scenario has no 'rules'"),
        # A game's record (it has fairness material) with a refused action: changed, refused.
        # (A scenario file's refusals are left out instead: tests/bots/test_analyze_scenarios.py.)
        (
            '{"rules": {"preset": "perudo"}, "players": 2, "start": {"dice_counts": [1, 1]},'
            ' "rounds": [{"dice": [[2], [3]], "actions": [{"seat": 1, "bid": [1, 2]}]}],'
            ' "fairness": []}',
            "not your turn",
        ),
    ],
)
def test_dudo_analyze_refuses_a_bad_file_in_one_line(
    content: str, fragment: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = runner.invoke(cli, ["analyze", str(path)])
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("dudo: error: ") and fragment in result.stderr


def test_dudo_analyze_of_a_missing_file() -> None:
    result = runner.invoke(cli, ["analyze", "/nonexistent/game.json"])
    assert result.exit_code == 2 and result.stderr.startswith("dudo: error: cannot read")


def test_the_record_itself_replays_with_dudo_scenario(
    record: dict[str, Any], tmp_path: Path
) -> None:
    """docs/protocol.md: the record is a scenario file; its other keys are ignored."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    played = runner.invoke(cli, ["scenario", str(path)])
    assert played.exit_code == 0, played.stdout
    assert '"event": "game_over"' in played.stdout
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps({**record, "roudns": []}))
    refused = runner.invoke(cli, ["scenario", str(typo)])
    assert refused.exit_code == 2  # a key that is neither is still an error


def test_analyses_are_made_in_a_worker_process(record: dict[str, Any]) -> None:
    """Off the interpreter lock of the server: a thread competed with the event loop."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    async def load(game_id: str) -> dict[str, Any] | None:
        return record

    async def scenario() -> None:
        analyses = Analyses(load)
        try:
            made = await analyses.get("g1", "203.0.113.1")
            assert made == replays.analysis_json(record)
            pool = analyses._executor
            assert isinstance(pool, ProcessPoolExecutor)
            workers = list(pool._processes)  # type: ignore[attr-defined]
            assert len(workers) == 1 and os.getpid() not in workers
        finally:
            analyses.close()

    asyncio.run(scenario())


def test_each_client_gets_a_few_analyses_made_and_the_queue_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replays, "analyze", lambda data: analyze_fast(data))
    release = asyncio.Event()

    async def load(game_id: str) -> dict[str, Any] | None:
        if game_id.startswith("slow"):
            await release.wait()
        return {"game": game_id}

    async def scenario() -> None:
        analyses = Analyses(
            load, executor=None, max_waiting=2, per_client_burst=2, per_client_per_minute=6
        )
        assert await analyses.get("g1", "a") and await analyses.get("g2", "a")
        with pytest.raises(replays.AnalysesBusy) as refused:
            await analyses.get("g3", "a")
        assert refused.value.code == "too_many_analyses" and refused.value.retry_after == 10
        assert await analyses.get("g1", "a")  # made already: served to anyone, at once
        assert await analyses.get("g3", "b")  # another client has its own share
        # Three games waiting for the worker (two beyond the one being made): no more.
        waiting = [asyncio.ensure_future(analyses.get(f"slow{n}", f"c{n}")) for n in range(3)]
        await asyncio.sleep(0.05)
        with pytest.raises(replays.AnalysesBusy) as full:
            await analyses.get("slow9", "d")
        assert full.value.code == "busy"
        assert analyses.refused == {"busy": 1, "too_many_analyses": 1}
        release.set()
        assert all(await asyncio.gather(*waiting))

    asyncio.run(scenario())


class _Made:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_json(self) -> dict[str, Any]:
        return self.data


def analyze_fast(data: dict[str, Any]) -> _Made:
    return _Made(data)


def test_the_analysis_api_answers_429_with_retry_after(record: dict[str, Any]) -> None:
    store = MemoryStore()
    for number in range(6):
        store.games[f"g{number}"] = record
    with TestClient(make_app(store=store)) as client:
        statuses = [client.get(f"/api/games/g{number}/analysis") for number in range(6)]
        assert [answer.status_code for answer in statuses] == [200] * 4 + [429] * 2
        assert statuses[4].json()["error"] == "too_many_analyses"
        assert statuses[4].headers["retry-after"] == "10"
        assert client.get("/api/games/g0/analysis").status_code == 200  # made already
        metrics = client.get("/metrics").text
        assert 'dudo_analyses_refused_total{reason="too_many_analyses"} 2' in metrics


# -- caching headers and the request limits ------------------------------------------------


def test_a_made_analysis_is_immutable_with_an_etag_and_a_browser_that_has_it_gets_304(
    record: dict[str, Any],
) -> None:
    """A finished game's analysis never changes: it is kept a day without asking, and asked
    again with its ETag it is not sent again."""
    with client_with(record) as client:
        first = client.get("/api/games/f00d/analysis", headers={"Accept-Encoding": "gzip"})
        assert first.status_code == 200
        control = {part.strip() for part in first.headers["cache-control"].split(",")}
        assert control == {"public", f"max-age={replays.IMMUTABLE_FOR}", "immutable"}
        assert replays.IMMUTABLE_FOR == 86_400
        etag = first.headers["etag"]
        assert re.fullmatch(r'W/"[0-9a-f]{24}"', etag)
        plain = client.get("/api/games/f00d/analysis", headers={"Accept-Encoding": "identity"})
        assert plain.headers["etag"] == etag  # one tag for both codings (a weak one)
        for asked in (etag, etag.removeprefix("W/"), f'"other", {etag}', "*"):
            again = client.get("/api/games/f00d/analysis", headers={"If-None-Match": asked})
            assert again.status_code == 304, asked
            assert again.content == b"" and again.headers["etag"] == etag
            assert "immutable" in again.headers["cache-control"]
        other = client.get("/api/games/f00d/analysis", headers={"If-None-Match": '"other"'})
        assert other.status_code == 200 and other.json() == first.json()


def test_the_worker_sends_the_json_its_gzip_and_its_etag(record: dict[str, Any]) -> None:
    body, zipped, etag = replays.analysis_bodies(record)
    assert body == replays.analysis_json(record) and gzip.decompress(zipped) == body
    assert replays.analysis_bodies(record) == (body, zipped, etag)  # the same every time


def test_every_analysis_request_counts_against_the_client_and_its_network() -> None:
    """Made or cached, each request counts: 20 in a row, then 30 a minute per address, and
    three addresses' worth per network (an IPv4 /24, an IPv6 /64)."""
    assert replays.REQUESTS_PER_CLIENT == 20
    assert replays.REQUESTS_PER_CLIENT_PER_MINUTE == 30 and replays.NETWORK_SHARE == 3

    async def load(game_id: str) -> dict[str, Any] | None:
        return None

    analyses = Analyses(load, executor=None, requests_per_client=2)
    for _ in range(2):
        analyses.admit("203.0.113.1")
    with pytest.raises(replays.AnalysesBusy) as refused:
        analyses.admit("203.0.113.1")
    assert refused.value.code == "too_many_requests" and refused.value.retry_after == 2
    for _ in range(2):
        analyses.admit("203.0.113.2")
    analyses.admit("203.0.113.3")
    analyses.admit("203.0.113.3")  # six from the /24: its share (3 x 2)
    with pytest.raises(replays.AnalysesBusy):
        analyses.admit("203.0.113.4")  # a fresh address of a network that had its share
    analyses.admit("198.51.100.1")  # another network has its own
    for _ in range(6):
        analyses.admit(f"2001:db8::{_ + 1}")
    with pytest.raises(replays.AnalysesBusy):
        analyses.admit("2001:db8::ffff")  # the same /64
    analyses.admit("2001:db8:0:1::1")
    assert analyses.refused_requests == 3


def test_a_flood_of_requests_for_a_cached_analysis_answers_429_too_many_requests(
    record: dict[str, Any],
) -> None:
    """A client's burst of 20 is answered, then 429. The bucket refills one request each 2 s,
    so on a slow machine (the first answer makes the analysis in a worker process) a few
    more may be answered first: as many as the time taken allows, no more."""
    with client_with(record) as client:
        started = time.monotonic()
        statuses = []
        while len(statuses) < 100 and (not statuses or statuses[-1].status_code == 200):
            statuses.append(client.get("/api/games/f00d/analysis"))
        refilled = math.floor((time.monotonic() - started) / 2.0) + 1
        codes = [answer.status_code for answer in statuses]
        assert codes[-1] == 429 and set(codes[:-1]) == {200}
        assert 20 <= len(codes) - 1 <= 20 + refilled, (len(codes), refilled)
        assert statuses[-1].json()["error"] == "too_many_requests"
        assert statuses[-1].headers["retry-after"] == "2"
        metrics = client.get("/metrics").text
        assert 'dudo_analyses_refused_total{reason="too_many_requests"} 1' in metrics


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's scheduling classes")
def test_the_analysis_worker_runs_in_the_idle_class(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker process that makes analyses runs under SCHED_IDLE, so a live room's event
    loop, waking on a player's message, preempts it at once (bench/analysis_flood.py)."""
    monkeypatch.delenv("DUDO_BACKGROUND_PRIORITY")  # the default (the suite sets normal)
    pool = replays.worker_pool()
    try:
        policy = pool.submit(os.sched_getscheduler, 0).result(timeout=120)
    finally:
        pool.shutdown()
    assert policy == os.SCHED_IDLE
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # the server's own process is not
