"""Refused WebSocket handshakes cost the log one warning a minute, not an error line each
(uvicorn logged "ASGI callable returned without completing handshake." for every 429 the
gate sent), and are counted by reason in /metrics. A real ``dudo serve`` process."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from dudo.server.guard.refusals import UVICORN_LINE, HandshakeRefusals
from serverkit import server_process, sqlite_url


def test_a_flood_of_refused_handshakes_is_counted_and_warned_about_once(tmp_path: Path) -> None:
    limits = {"DUDO_CONNECT_BURST": "3", "DUDO_CONNECTS_PER_SECOND": "0.01"}
    with server_process(sqlite_url(tmp_path), env=limits) as (base, process):
        code = httpx.post(f"{base}/api/rooms", json={"name": "Ana", "seats": 2}).json()["code"]
        url = "ws" + base.removeprefix("http") + f"/ws/{code}"

        async def knock(times: int) -> list[int]:
            statuses = []
            for _ in range(times):
                try:
                    async with connect(url, origin=base) as socket:  # type: ignore[arg-type]
                        json.loads(await socket.recv())
                        statuses.append(101)
                except InvalidStatus as refused:
                    statuses.append(refused.response.status_code)
            return statuses

        assert asyncio.run(knock(33)) == [101] * 3 + [429] * 30
        metrics = httpx.get(f"{base}/metrics").text
        assert 'dudo_handshakes_refused_total{reason="too_many_connects"} 30' in metrics
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0].decode()
    assert UVICORN_LINE not in output
    warnings = [json.loads(line) for line in output.splitlines() if '"handshakes_refused"' in line]
    assert len(warnings) == 1, output[-2000:]
    assert warnings[0]["level"] == "warning" and warnings[0]["count"] == 1


def test_the_warning_says_how_many_since_the_last_one() -> None:
    now = [0.0]
    refusals = HandshakeRefusals(every=60.0, clock=lambda: now[0])
    with pytest.MonkeyPatch.context() as patch:
        said: list[dict[str, object]] = []
        patch.setattr(
            "dudo.server.guard.refusals.log_event",
            lambda logger, event, level, **fields: said.append(fields),
        )
        for second in range(150):
            now[0] = float(second)
            refusals.refused("too_many_sockets" if second % 2 else "too_many_connects")
    assert [entry["count"] for entry in said] == [1, 60, 60]
    assert refusals.total == 150 and refusals.by_reason["too_many_sockets"] == 75


def test_a_socket_to_an_address_that_takes_none_is_a_404_in_the_error_shape(
    tmp_path: Path,
) -> None:
    # Starlette refused them with a bare 403, as if the client were not allowed, where
    # nothing is there at all; a real dudo serve (uvicorn's own handshake refusal).
    with server_process(sqlite_url(tmp_path)) as (base, _process):
        root = "ws" + base.removeprefix("http")

        async def knock(path: str) -> tuple[int, dict[str, str]]:
            try:
                async with connect(root + path, origin=base):  # type: ignore[arg-type]
                    return 101, {}
            except InvalidStatus as refused:
                return refused.response.status_code, json.loads(refused.response.body or b"{}")

        for path in ("/ws/", "/ws/ABCD/more", "/", "/api/rooms", "/static/x.js"):
            status, body = asyncio.run(knock(path))
            assert status == 404, (path, status, body)
            assert body["error"] == "not_found" and "/ws/CODE" in body["message"], body
        # A room's socket is still a room's socket.
        code = httpx.post(f"{base}/api/rooms", json={"name": "Ana", "seats": 2}).json()["code"]
        assert asyncio.run(knock(f"/ws/{code}"))[0] == 101
