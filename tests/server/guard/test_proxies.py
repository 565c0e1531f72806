"""The public host behind a reverse proxy (docs/deploy.md, "The Host header").

The common nginx snippet forgets ``proxy_set_header Host``: upstream the server sees
``Host: 127.0.0.1:8000`` while the browser's Origin is the public host, and every table
socket used to be refused with ``bad_origin``. The server now also takes the host in
``X-Forwarded-Host`` (or ``Forwarded: host=``), but only from the proxies named in
``--forwarded-allow-ips``; a refused origin is logged as one warning a minute that names
the origin, the host expected and the fix. The real nginx and Caddy run in
tests/server/web/test_reverse_proxies.py.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import connect as ws_connect
from websockets.typing import Origin

from dudo.server.guard.proxies import OriginWarnings, forwarded_host
from serverkit import app_and_lobby, server_process, sqlite_url

PUBLIC = "https://dudo.example"
# What nginx sends upstream when the snippet forgets Host (proxy_pass http://127.0.0.1:8000).
FORGOTTEN_HOST = {"host": "127.0.0.1:8000", "origin": PUBLIC}


def first_message(client: TestClient, code: str, headers: dict[str, str]) -> dict[str, object]:
    """The first message a socket to the room gets with these headers (and the close code
    4403 checked when it is a refusal)."""
    with client.websocket_connect(f"/ws/{code}", headers=headers) as session:
        first: dict[str, object] = json.loads(session.receive_text())
        if first.get("code") == "bad_origin":
            with pytest.raises(WebSocketDisconnect) as closed:
                session.receive_text()
            assert closed.value.code == 4403
        return first


def room_code(client: TestClient) -> str:
    made = client.post("/api/rooms", json={"name": "Ana"})
    assert made.status_code == 201, made.text
    return str(made.json()["code"])


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [
        record.__dict__["fields"]
        for record in caplog.records
        if record.levelno == logging.WARNING
        and record.__dict__.get("fields", {}).get("event") == "origin_refused"
    ]


def test_the_forgotten_host_works_with_x_forwarded_host_from_a_named_proxy() -> None:
    # TestClient's requests come from the address "testclient": the named proxy here.
    app, _ = app_and_lobby(proxies=("testclient",))
    with TestClient(app) as client:
        code = room_code(client)
        assert (
            first_message(client, code, {**FORGOTTEN_HOST, "x-forwarded-host": "dudo.example"})[
                "type"
            ]
            == "state"
        )
        # RFC 7239's Forwarded says the same.
        assert (
            first_message(
                client,
                code,
                {
                    **FORGOTTEN_HOST,
                    "forwarded": 'for=203.0.113.9;host="dudo.example";proto=https',
                },
            )["type"]
            == "state"
        )
        # The proxy's host is only one more host accepted: another site is still refused,
        # and so is a forwarded host that is not the page's.
        assert (
            first_message(
                client,
                code,
                {
                    **FORGOTTEN_HOST,
                    "origin": "https://evil.example",
                    "x-forwarded-host": "dudo.example",
                },
            )["code"]
            == "bad_origin"
        )
        assert (
            first_message(client, code, {**FORGOTTEN_HOST, "x-forwarded-host": "other.example"})[
                "code"
            ]
            == "bad_origin"
        )


def test_from_an_address_not_named_the_forwarded_host_is_ignored_and_the_log_says_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, _ = app_and_lobby(proxies=("192.0.2.10",))
    caplog.set_level(logging.INFO, logger="dudo.server")
    with TestClient(app) as client:
        code = room_code(client)
        headers = {**FORGOTTEN_HOST, "x-forwarded-host": "dudo.example"}
        assert first_message(client, code, headers)["code"] == "bad_origin"
        assert first_message(client, code, headers)["code"] == "bad_origin"
    warned = warnings_of(caplog)
    assert len(warned) == 1, warned  # one warning; the second refusal is an info line
    message = str(warned[0]["message"])
    assert warned[0]["origin"] == PUBLIC
    assert "Host: 127.0.0.1:8000" in message
    assert "came from testclient" in message and "--forwarded-allow-ips" in message
    infos = [
        record
        for record in caplog.records
        if record.levelno == logging.INFO
        and record.__dict__.get("fields", {}).get("event") == "origin_refused"
    ]
    assert len(infos) == 1


def test_with_no_proxy_named_a_forwarded_host_is_never_believed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, _ = app_and_lobby()
    caplog.set_level(logging.INFO, logger="dudo.server")
    with TestClient(app) as client:
        code = room_code(client)
        # No proxy named: the header is ignored whoever sends it.
        assert (
            first_message(client, code, {**FORGOTTEN_HOST, "x-forwarded-host": "dudo.example"})[
                "code"
            ]
            == "bad_origin"
        )
        assert first_message(client, code, FORGOTTEN_HOST)["code"] == "bad_origin"
    warned = warnings_of(caplog)
    assert len(warned) == 1  # the same origin again within the minute: an info line
    assert "not in --forwarded-allow-ips" in str(warned[0]["fix"])


def test_the_warning_for_no_forwarded_host_says_proxy_set_header_host(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="dudo.server")
    OriginWarnings().refused(PUBLIC, "127.0.0.1:8000", None)
    warned = warnings_of(caplog)
    assert len(warned) == 1
    assert "proxy_set_header Host $host" in str(warned[0]["message"])
    assert "https://dudo.example" in str(warned[0]["message"])
    assert "Host: 127.0.0.1:8000" in str(warned[0]["message"])


def test_warnings_are_one_a_minute_per_origin_and_bounded_in_all() -> None:
    now = [0.0]
    warnings = OriginWarnings(every=60, per_minute=3, clock=lambda: now[0])
    assert warnings.due("https://a.example")
    assert not warnings.due("https://a.example")
    assert warnings.due("https://b.example") and warnings.due("https://c.example")
    assert not warnings.due("https://d.example")  # three a minute at most, any origins
    now[0] = 61.0
    assert warnings.due("https://a.example") and warnings.due("https://d.example")


def test_forwarded_hosts_are_read_carefully() -> None:
    def read(*headers: tuple[str, str]) -> str | None:
        return forwarded_host([(name.encode(), value.encode()) for name, value in headers])

    assert read(("x-forwarded-host", "Dudo.Example")) == "dudo.example"
    assert read(("x-forwarded-host", "dudo.example:8443, inner.example")) == "dudo.example:8443"
    assert read(("x-forwarded-host", "[2001:db8::1]:443")) == "[2001:db8::1]:443"
    assert read(("forwarded", "for=1.2.3.4;host=dudo.example, for=5.6.7.8")) == "dudo.example"
    assert read(("forwarded", 'host="dudo.example:80"')) == "dudo.example:80"
    # X-Forwarded-Host wins over Forwarded; junk is no host at all.
    assert read(("forwarded", "host=b.example"), ("x-forwarded-host", "a.example")) == "a.example"
    for junk in ("", "dudo.example/path", "a b", "user@dudo.example", "dudo.example:x"):
        assert read(("x-forwarded-host", junk)) is None, junk
    assert read(("forwarded", "for=1.2.3.4")) is None
    assert read() is None


def test_on_the_wire_a_real_server_believes_only_its_named_proxy(tmp_path: Path) -> None:
    """``dudo serve`` itself: the proxy named is an address this test is not, so the
    header is ignored, and the server's output has the warning with the fix."""
    env = {"DUDO_FORWARDED_ALLOW_IPS": "192.0.2.10"}
    with server_process(sqlite_url(tmp_path), env=env) as (base, process):
        import httpx

        code = httpx.post(f"{base}/api/rooms", json={"name": "Ana"}).json()["code"]
        url = base.replace("http", "ws") + f"/ws/{code}"
        with ws_connect(
            url, origin=Origin(PUBLIC), additional_headers={"X-Forwarded-Host": "dudo.example"}
        ) as socket_:
            assert json.loads(socket_.recv(timeout=5))["code"] == "bad_origin"
        process.terminate()
        output = process.communicate(timeout=20)[0].decode()
    # Whatever the log's format (a line of JSON or of text), one line says it all.
    lines = [line for line in output.splitlines() if "origin_refused" in line]
    assert len(lines) == 1, output
    assert "came from 127.0.0.1" in lines[0] and "--forwarded-allow-ips" in lines[0], lines
    assert f"Host: 127.0.0.1:{base.rsplit(':', 1)[1]}" in lines[0], lines
