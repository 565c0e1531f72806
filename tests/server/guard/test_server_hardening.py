"""The HTTP surface against hostile or careless clients: never a 5xx for bad input, always
the protocol's error shape; request bodies read only up to their limit; JSON required on
POST; security headers on every response; WebSocket origins checked; an unexpected error
logged once as a JSON 500; a text frame that is not UTF-8 logged as one line at info.

Most tests run the app in-process (starlette's TestClient); where the transport matters
(bodies on the wire, uvicorn's own logging) the app runs under a real uvicorn in a thread.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import logging
import re
import select
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import anyio
import httpx
import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect
from websockets.typing import Origin

from dudo.client import Client
from dudo.rules import _CHOICES, _INT_RANGES
from dudo.server.protocol import MAX_MESSAGE_BYTES
from dudo.server.web.app import CONTENT_SECURITY_POLICY, ServerSettings, origin_allowed
from dudo.server.web.pages import PLACEHOLDER_PAGE, WEB
from serverkit import LobbyHolder, app_and_lobby, free_port
from socketkit import Sock, connect, seat_table

JSON = {"content-type": "application/json"}
POSTS = ("/api/rooms", "/api/rooms/{code}/join", "/api/quick")


def error_shape(response: Any) -> dict[str, Any]:
    """The body of an error answer, checked: ``{"error": code, "message": words}``."""
    assert response.headers["content-type"].startswith("application/json"), response.text
    data = response.json()
    assert isinstance(data, dict) and set(data) == {"error", "message"}, data
    assert isinstance(data["error"], str) and re.fullmatch(r"[a-z_]+", data["error"]), data
    assert isinstance(data["message"], str) and data["message"], data
    return data


@contextlib.contextmanager
def live_server(app: Any) -> Iterator[str]:
    """``app`` under a real uvicorn (as ``dudo serve`` runs it) in a thread of this
    process, so caplog sees its logs; yields the base URL."""
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_config=None,
        log_level="info",
        access_log=False,
        lifespan="on",
        ws_max_size=16 * 1024,
        ws_per_message_deflate=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)


def unlimited_guesses(holder: LobbyHolder) -> None:
    """No limit on unknown room codes (the fuzz makes thousands of them)."""
    assert holder.lobby is not None
    holder.lobby.guesses.blocked = lambda *args: False  # type: ignore[method-assign]


# -- 1. bad requests: 4xx with the error shape, never 5xx ---------------------------------


def test_numbers_in_the_rules_query_never_crash_the_sheet() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        for value in ("²", "٣", "9" * 60, "9" * 5000, "1e3", "-1", "0x5", "𝟓"):
            response = client.get("/rules", params={"starting_dice": value})
            assert response.status_code == 400, (value, response.status_code)
            assert "starting_dice" in response.text and "<h1>" in response.text
        # Leading zeros are still a number, however many.
        assert client.get("/rules", params={"starting_dice": "0" * 5000 + "3"}).status_code == 200


def test_refusals_quote_no_more_than_forty_characters_of_what_was_sent() -> None:
    app, _ = app_and_lobby()
    short = "'" + "A" * 40 + "…'"  # how a long input is quoted back: cut, then "…"
    with TestClient(app) as client:
        table = seat_table(client, 2, humans=1)
        missing = error_shape(client.get("/api/rooms/" + "A" * 5000))
        assert missing == {"error": "no_room", "message": f"there is no room {short}"}
        join = client.post("/api/rooms/" + "A" * 5000 + "/join", json={"name": "Ana"})
        assert error_shape(join)["message"] == f"there is no room {short}"
        with connect(client, "A" * 3000) as sock:
            refusal = json.loads(sock.texts[0])
            assert (refusal["code"], refusal["message"]) == ("no_room", f"there is no room {short}")
        # A field name nobody declared, in a request body and in a message on the socket.
        extra = error_shape(client.post("/api/rooms", json={"name": "Ana", "A" * 3000: 1}))
        assert extra["message"] == "A" * 40 + "…: Extra inputs are not permitted"
        with connect(client, table.code, table.tokens[0]) as sock:
            unknown = sock.reply_to({"type": "A" * 3000, "id": "x"})
            assert unknown["message"] == f"unknown message type {short}"
            extra = sock.reply_to({"type": "ping", "A" * 3000: 1})
            assert extra["message"] == "ping: " + "A" * 40 + "…: Extra inputs are not permitted"
        # The series of a code that cannot be one names no more of it either.
        assert client.get("/api/rooms/" + "a" * 5000 + "/series").json()["room"] == "A" * 40 + "…"
        # Short inputs are quoted whole.
        assert error_shape(client.get("/api/rooms/QQQQ"))["message"] == "there is no room 'QQQQ'"


def test_addresses_and_methods_that_do_not_exist_get_the_error_shape() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        assert error_shape(client.get("/nowhere"))["error"] == "not_found"
        assert error_shape(client.get("/static/%00"))["error"] == "not_found"
        assert error_shape(client.get("/ws/ABCD"))["error"] == "not_found"  # not a socket
        assert error_shape(client.get("/api/rooms/%00"))["error"] == "no_room"
        assert error_shape(client.get("/api/games/%C2%B2"))["error"] == "bad_request"
        wrong = client.delete("/api/rooms")
        assert wrong.status_code == 405 and wrong.headers["allow"]
        assert error_shape(wrong)["error"] == "method_not_allowed"
        # A browser that navigates to a missing page gets a page; an API address never.
        page = client.get("/nowhere", headers={"accept": "text/html,*/*"})
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
        api = client.get("/api/nowhere", headers={"accept": "text/html,*/*"})
        assert api.status_code == 404 and error_shape(api)["error"] == "not_found"


segments = st.one_of(
    st.text(max_size=12).map(lambda text: quote(text, safe="")),
    st.text(
        st.characters(codec="utf-8", exclude_categories=("Cc", "Cs"), exclude_characters="/?#%\\"),
        max_size=12,
    ),
    st.binary(max_size=8).map(lambda raw: "".join(f"%{byte:02X}" for byte in raw)),
    st.sampled_from(
        [
            "",
            "%00",
            "%ff",
            "%C0%80",
            "%ED%A0%80",
            "%",
            "%zz",
            "%2e%2e",
            "..",
            "%2F",
            "%5C",
            "%20",
            "CODE",
            "lhyh",
            "L H Y H",
            "a" * 300,
            "%F0%9F%8E%B2",
            "js",
            "js/app.js",
            "css",
            "index.html",
            "locales",
            "favicon.svg",
        ]
    ),
)
rule_options = st.dictionaries(
    st.sampled_from(
        ["preset", "lang", "embed", *_INT_RANGES, *_CHOICES, "wild_ones", "palifico", "bogus"]
    )
    | st.text(max_size=8),
    st.sampled_from(
        [
            "perudo",
            "dudo",
            "tavern",
            "ones-lock",
            "no-wilds",
            "de",
            "es",
            "1",
            "true",
            "off",
            "0",
            "3",
            "6",
            "10",
            "11",
            "²",
            "9" * 40,
            "",
            "%",
        ]
    )
    | st.sampled_from([choice for choices in _CHOICES.values() for choice in choices])
    | st.text(max_size=10),
    max_size=5,
)
junk_queries = st.sampled_from(
    [
        "",
        "%ff",
        "a=%ff",
        "=&&=",
        "a",
        "%",
        "a=%zz",
        "x=1&x=2",
        "embed=1&embed=0",
        "lang=" + "x" * 200,
        "a=%00b",
    ]
)
bodies = st.one_of(
    st.none(),
    st.binary(max_size=300),
    st.text(max_size=100).map(str.encode),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    ).map(lambda value: json.dumps(value).encode()),
    st.fixed_dictionaries(
        {"name": st.text(max_size=30)},
        optional={
            "seats": st.integers(-3, 9),
            "timer": st.integers(-1, 700),
            "public": st.booleans(),
            "bots": st.lists(st.sampled_from(["easy", None, "x"]), max_size=7),
            "rules": rule_options,
        },
    ).map(lambda value: json.dumps(value).encode()),
    st.just(b"x" * (MAX_MESSAGE_BYTES + 1)),
)
content_types = st.one_of(
    st.sampled_from(
        [
            None,
            "application/json",
            "application/json; charset=utf-8",
            "APPLICATION/JSON",
            "text/plain",
            "text/plain; charset=utf-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
            "",
            ";",
            "application/json;;;",
        ]
    ),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30),
)
header_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)


def fill(path: str, draw: st.DrawFn, code: str) -> str:
    """``path`` with each ``{parameter}`` replaced: the real room code now and then."""

    def value(_: re.Match[str]) -> str:
        return draw(st.sampled_from([code, code.lower()]) | segments)

    return re.sub(r"\{[^}]*\}", value, path)


@st.composite
def requests(draw: st.DrawFn, templates: list[str], code: str) -> dict[str, Any]:
    path = fill(draw(st.sampled_from(templates)), draw, code)
    if path.startswith("/static") or draw(st.integers(0, 9)) == 0:
        path += "".join("/" + draw(segments) for _ in range(draw(st.integers(0, 3))))
    query = draw(
        st.one_of(
            rule_options.map(
                lambda params: "&".join(
                    f"{quote(key, safe='')}={quote(value, safe='')}"
                    for key, value in params.items()
                )
            ),
            junk_queries,
        )
    )
    headers = {}
    kind = draw(content_types)
    if kind is not None:
        headers["content-type"] = kind
    for name in ("accept", "accept-language", "origin", "cookie"):
        if draw(st.booleans()):
            headers[name] = draw(
                st.sampled_from(
                    ["text/html", "*/*", "application/json", "de;q=nan", "es;q=1e999", "null"]
                )
                | header_text
            )
    method = draw(
        st.sampled_from(
            ["GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "BREW"]
        )
    )
    return {
        "method": method,
        "url": "http://testserver" + path + ("?" + query if query else ""),
        "headers": headers,
        "content": draw(bodies),
    }


def every_route_template(app: Any) -> list[str]:
    """Every address the app answers: routes, mounts (any file under them), sockets."""
    templates = []
    for route in app.routes:
        assert isinstance(route, Route | Mount | WebSocketRoute), route
        templates.append(route.path + ("/{file}" if isinstance(route, Mount) else ""))
    return templates


def test_fuzz_every_http_route_answers_4xx_in_shape_never_5xx() -> None:
    app, holder = app_and_lobby()
    templates = every_route_template(app)
    # The fuzz knows every route: a new one is fuzzed too (or this line says so).
    assert {
        "/",
        "/r/{code}",
        "/rules",
        "/rules.js",
        "/api/presets",
        "/static/{path:path}",
        "/api/rooms",
        "/api/rooms/{code}",
        "/api/rooms/{code}/join",
        "/r/{code}/qr.svg",
        "/api/share",
        "/api/quick",
        "/api/games/{game_id}",
        "/healthz",
        "/metrics",
        "/g/{game_id}",
        "/my-games",
        "/api/games/{game_id}/analysis",
        "/api/games/{game_id}/scenario",
        "/ws/{code}",
        "/{path:path}",  # a WebSocket anywhere else: refused with a 404
        # profiles (dudo.profiles.desk)
        "/me",
        "/api/profile",
        "/api/profile/me",
        "/api/profile/edit",
        "/api/profile/transfer",
        "/api/profile/claim",
        "/api/profile/export",
        "/api/profile/forget",
        "/api/leaderboard",
        "/api/rooms/{code}/series",
    } == set(templates)
    with TestClient(app) as client:
        unlimited_guesses(holder)
        code = seat_table(client, 6, humans=1).code
        seen: dict[int, int] = {}

        @settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
        @given(requests(templates, code))
        def examples(request: dict[str, Any]) -> None:
            response = client.request(
                request["method"],
                request["url"],
                headers=request["headers"],
                content=request["content"],
            )
            status = response.status_code
            seen[status] = seen.get(status, 0) + 1
            assert status < 500, (request, status, response.text[:500])
            assert response.headers["x-content-type-options"] == "nosniff", request
            assert "content-security-policy" in response.headers, request
            if status < 400 or request["method"] == "HEAD":
                return
            if response.request.url.path.startswith("/api/"):
                error_shape(response)
            elif response.headers.get("content-type", "").startswith("text/html"):
                assert "<h1>" in response.text, (request, response.text[:300])
            else:
                error_shape(response)

        examples()
    # The fuzz got past the front door: successes and refusals of several kinds.
    assert {200, 400, 404, 405, 415} <= set(seen), seen


def test_an_unexpected_error_is_a_json_500_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    app, holder = app_and_lobby()
    with TestClient(app) as client:
        assert holder.lobby is not None

        def broken(*args: Any) -> Any:
            raise RuntimeError("a bug in the lobby")

        table = seat_table(client, 2, humans=1)
        holder.lobby.public_rooms = broken  # type: ignore[method-assign]
        holder.lobby.find = broken  # type: ignore[method-assign, assignment]
        caplog.clear()
        with caplog.at_level(logging.INFO):
            response = client.get("/api/rooms")  # (the test client would raise if it did)
        assert response.status_code == 500
        assert error_shape(response)["error"] == "internal"
        assert response.headers["x-frame-options"] == "DENY"
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and errors[0].exc_info, caplog.records
        assert "a bug in the lobby" in caplog.text
        # A socket whose handler fails is closed as a server error (1011), logged once.
        caplog.clear()
        with (
            caplog.at_level(logging.INFO),
            client.websocket_connect(f"/ws/{table.code}") as session,
        ):
            with pytest.raises(WebSocketDisconnect) as closed:
                session.receive_text()
            assert closed.value.code == 1011
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and errors[0].exc_info, caplog.records


def test_under_uvicorn_an_unexpected_error_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    app, holder = app_and_lobby()
    with caplog.at_level(logging.INFO), live_server(app) as base:
        assert holder.lobby is not None

        def broken(*args: Any) -> Any:
            raise RuntimeError("a bug in the lobby")

        holder.lobby.public_rooms = broken  # type: ignore[method-assign]
        caplog.clear()
        response = httpx.get(f"{base}/api/rooms")
        assert response.status_code == 500 and error_shape(response)["error"] == "internal"
        time.sleep(0.2)
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1, [(r.name, r.getMessage()) for r in errors]


# -- 2. request bodies: never read past the limit -----------------------------------------


def post_streamed(
    client: TestClient, app: Any, path: str, chunk: bytes, chunks: int
) -> tuple[int, list[dict[str, Any]]]:
    """POST ``chunks`` times ``chunk`` to ``path`` straight into the ASGI app, chunk by
    chunk as uvicorn hands a body over; (chunks the app asked for, messages it sent)."""
    consumed = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal consumed
        consumed += 1
        return {"type": "http.request", "body": chunk, "more_body": consumed < chunks}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"transfer-encoding", b"chunked"),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "extensions": {},
    }
    assert client.portal is not None
    client.portal.call(app, scope, receive, send)
    return consumed, sent


def test_a_streamed_body_over_the_limit_is_not_read_to_the_end() -> None:
    """The app stops reading once the limit is passed, out of 256 MiB offered."""
    app, _ = app_and_lobby()
    chunk = b"x" * 1024
    with TestClient(app) as client:
        code = seat_table(client, 3, humans=1).code
        for path in POSTS:
            path = path.format(code=code)
            consumed, sent = post_streamed(client, app, path, chunk, 256 * 1024)
            assert consumed <= MAX_MESSAGE_BYTES // len(chunk) + 2, (path, consumed)
            assert sent[0]["status"] == 413, (path, sent)
            assert json.loads(sent[1]["body"])["error"] == "too_large"
        # The same way, a body within the limit is read to its end and used.
        consumed, sent = post_streamed(client, app, "/api/quick", b'{"name": "Streamer"}', 1)
        assert consumed == 1 and sent[0]["status"] == 200, sent


def test_a_body_over_the_limit_is_refused_413() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        code = seat_table(client, 3, humans=1).code
        for path in POSTS:
            path = path.format(code=code)
            response = client.post(path, content=b" " * (MAX_MESSAGE_BYTES + 1), headers=JSON)
            assert response.status_code == 413 and error_shape(response)["error"] == "too_large"
            # Just under the limit is read (and found to be no request).
            response = client.post(path, content=b" " * MAX_MESSAGE_BYTES, headers=JSON)
            assert response.status_code == 400 and "JSON" in response.json()["message"], path
            told = client.post(path, content=b"{}", headers={**JSON, "content-length": "x"})
            assert told.status_code == 400 and error_shape(told)["error"] == "bad_request"


def read_status(sock: socket.socket, timeout: float) -> str:
    sock.settimeout(timeout)
    head = b""
    while b"\r\n" not in head:
        more = sock.recv(4096)
        if not more:
            break
        head += more
    return head.split(b"\r\n")[0].decode()


def test_on_the_wire_a_big_body_is_refused_without_reading_it() -> None:
    app, _ = app_and_lobby()
    with live_server(app) as base:
        port = int(base.rsplit(":", 1)[1])
        # A Content-Length of 256 MiB: refused at once, before a byte of the body is sent.
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(
                b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                b"\r\nContent-Length: 268435456\r\n\r\n"
            )
            assert read_status(sock, 5).startswith("HTTP/1.1 413 "), "not refused at once"
        # The same amount streamed (chunked, no length): the answer comes after a few KiB.
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(
                b"POST /api/quick HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                b"\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            piece = b"%x\r\n%s\r\n" % (16 * 1024, b" " * 16 * 1024)
            sent = 0
            sock.settimeout(5)
            while sent < 256 * 2**20 and not select.select([sock], [], [], 0)[0]:
                try:
                    sock.sendall(piece)
                except OSError:  # the server answered and hung up
                    break
                sent += len(piece)
            assert read_status(sock, 5).startswith("HTTP/1.1 413 ")
            assert sent < 16 * 2**20, sent


# -- 3. JSON only ---------------------------------------------------------------------


def test_posts_must_be_json_so_other_sites_cannot_post_forms() -> None:
    app, holder = app_and_lobby()
    with TestClient(app) as client:
        code = seat_table(client, 3, humans=1).code
        body = json.dumps({"name": "Mallory"}).encode()
        for path in POSTS:
            path = path.format(code=code)
            for kind in (
                None,
                "text/plain",
                "text/plain;charset=UTF-8",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=b",
                "application/jsonp",
            ):
                headers = {} if kind is None else {"content-type": kind}
                response = client.post(path, content=body, headers=headers)
                assert response.status_code == 415, (path, kind, response.text)
                assert error_shape(response)["error"] == "unsupported_media_type"
        assert holder.lobby is not None and len(holder.lobby.rooms) == 1
        for kind in ("application/json", "application/json; charset=utf-8", "Application/JSON"):
            response = client.post("/api/rooms", content=body, headers={"content-type": kind})
            assert response.status_code == 201, (kind, response.text)


def test_the_python_client_and_the_browser_client_send_json() -> None:
    app, _ = app_and_lobby()

    async def play(base: str) -> None:
        async with Client(base) as client:
            ticket = await client.create_room("Ana", seats=3)
            await client.join(ticket.code, "Ben")
            await client.quick("Cy")
            # Its WebSocket sends no Origin: not a browser, let in.
            async with client.table(ticket) as table:
                assert table.state["you"]["seat"] == 0

    with live_server(app) as base:
        anyio.run(play, base)
    page = (WEB / "js" / "page.js").read_text()
    posts = re.findall(r"method: 'POST'.*", page)
    assert posts and all("'Content-Type': 'application/json'" in line for line in posts)


# -- 4. security headers and WebSocket origins ------------------------------------------


def test_every_response_carries_the_security_headers() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        code = seat_table(client, 2, humans=1).code
        for url in (
            "/",
            f"/r/{code}",
            "/rules",
            "/rules?embed=0",
            "/rules.js",
            "/api/presets",
            "/api/rooms",
            f"/api/rooms/{code}",
            "/healthz",
            "/metrics",
            "/static/js/app.js",
            "/static/css/dudo.css",
            "/nowhere",
            "/rules?starting_dice=99",
            "/api/games/nothing",
        ):
            response = client.get(url)
            assert response.headers["content-security-policy"] == (
                CONTENT_SECURITY_POLICY + "; frame-ancestors 'none'"
            ), url
            assert response.headers["x-frame-options"] == "DENY", url
            assert response.headers["x-content-type-options"] == "nosniff", url
            assert response.headers["referrer-policy"] == "no-referrer", url
        for url in ("/api/rooms", "/api/quick"):
            response = client.post(url, content=b"no", headers={"content-type": "text/plain"})
            assert response.headers["x-frame-options"] == "DENY", url
        # The embeddable sheet may be framed by any site; nothing else may.
        for url in ("/rules?embed=1", "/rules?preset=dudo&embed=true&lang=de"):
            response = client.get(url)
            assert response.status_code == 200
            assert "x-frame-options" not in response.headers, url
            policy = response.headers["content-security-policy"]
            assert policy == CONTENT_SECURITY_POLICY and "frame-ancestors" not in policy
            assert response.headers["x-content-type-options"] == "nosniff"
        assert client.get("/rules.js").headers["content-type"].startswith("text/javascript")


INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|\sstyle=|\son[a-z]+=|javascript:", re.I)


def style_elements_allowed(page: str) -> bool:
    """Every <style> element is allowed by its hash in the policy."""
    for style in re.findall(r"<style>(.*?)</style>", page, re.S):
        digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
        if f"'sha256-{digest}'" not in CONTENT_SECURITY_POLICY:
            return False
    return page.count("<style") == len(re.findall(r"<style>(.*?)</style>", page, re.S))


def test_pages_have_no_inline_script_or_style_the_policy_would_block() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        pages = {
            url: client.get(url, headers={"accept": "text/html"}).text
            for url in (
                "/",
                "/r/ACDE",
                "/rules",
                "/rules?embed=1",
                "/rules?preset=x",
                "/rules?preset=tavern&lang=es",
                "/nowhere",
            )
        }
    pages["placeholder"] = PLACEHOLDER_PAGE.format(version="0")
    for name, page in pages.items():
        assert not INLINE.search(page), (name, INLINE.search(page))
        assert style_elements_allowed(page), name
    assert "<style>" in pages["/rules"]  # one file to print or save
    # The client's own templates: no inline handlers; style attributes (the seats' places
    # on the table) only because the policy allows them (style-src-attr).
    for script in (WEB / "js").glob("*.js"):
        source = script.read_text()
        assert not re.search(r"\son[a-z]+=|javascript:|<script|<style", source), script.name
        if re.search(r"\sstyle=", source):
            assert "style-src-attr 'unsafe-inline'" in CONTENT_SECURITY_POLICY, script.name
    index = (WEB / "index.html").read_text()
    assert not INLINE.search(index) and "<style" not in index


def origin_refused(client: TestClient, code: str, origin: str) -> bool:
    with client.websocket_connect(f"/ws/{code}", headers={"origin": origin}) as session:
        sock = Sock(session, origin)
        first = sock.recv()
        if first["type"] == "state":
            return False
        assert (
            first == {"type": "error", "v": 1, "code": "bad_origin", "message": first["message"]}
            and first["message"]
        ), first
        with pytest.raises(WebSocketDisconnect):
            sock.recv()
        assert sock.close_code == 4403
        return True


def test_websockets_from_other_sites_are_refused() -> None:
    app, holder = app_and_lobby(allowed_origins=("https://Friend.example/",))
    with TestClient(app) as client:
        unlimited_guesses(holder)
        code = seat_table(client, 2, humans=1).code
        # TestClient requests go to Host "testserver".
        for origin in (
            "http://testserver",
            "https://testserver",
            "HTTP://TestServer/",
            "https://friend.example",
            "https://friend.example/",
        ):
            assert not origin_refused(client, code, origin), origin
        for origin in (
            "http://evil.example",
            "null",
            "",
            "http://testserver:8000",
            "http://testserver.evil.example",
            "https://friend.example:444",
            "http://friend.example",
            "testserver",
            "file://",
            "http://[::1",
            "https://evil.example/?testserver",
        ):
            assert origin_refused(client, code, origin), origin
        # A refusal for the origin comes first: unknown rooms are not even looked up.
        assert origin_refused(client, "QQQQ", "http://evil.example")
        # No Origin at all: a program, not a page in a browser.
        with client.websocket_connect(f"/ws/{code}") as session:
            assert Sock(session).recv()["type"] == "state"


def test_origin_rules() -> None:
    assert origin_allowed(None, "dudo.example")
    assert origin_allowed("https://dudo.example", "dudo.example")
    assert origin_allowed("https://dudo.example", "dudo.example:443")
    assert origin_allowed("http://dudo.example:80", "dudo.example")
    assert origin_allowed("http://localhost:8000", "localhost:8000")
    assert origin_allowed("http://[::1]:8000", "[::1]:8000")
    assert not origin_allowed("http://localhost:8001", "localhost:8000")
    assert not origin_allowed("https://dudo.example", None)
    assert not origin_allowed("https://dudo.example:80", "dudo.example")
    assert origin_allowed("https://b.example", "dudo.example", ("https://b.example",))


def test_allowed_origins_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUDO_ALLOWED_ORIGINS", " https://A.example/, http://localhost:8000,,")
    assert ServerSettings.from_env("memory://").allowed_origins == (
        "https://a.example",
        "http://localhost:8000",
    )
    monkeypatch.delenv("DUDO_ALLOWED_ORIGINS")
    assert ServerSettings.from_env("memory://").allowed_origins == ()
    for bad in ("dudo.example", "ftp://dudo.example", "https://dudo.example/play"):
        monkeypatch.setenv("DUDO_ALLOWED_ORIGINS", bad)
        with pytest.raises(ValueError, match="DUDO_ALLOWED_ORIGINS"):
            ServerSettings.from_env("memory://")


def test_on_the_wire_the_origin_is_checked_against_the_host() -> None:
    app, _ = app_and_lobby()
    with live_server(app) as base:
        made = httpx.post(f"{base}/api/rooms", json={"name": "Ana"}).json()
        url = base.replace("http", "ws") + f"/ws/{made['code']}?token={made['token']}"
        with ws_connect(url, origin=Origin(base)) as socket_:
            assert json.loads(socket_.recv(timeout=5))["type"] == "state"
        with ws_connect(url, origin=Origin("https://evil.example")) as socket_:
            assert json.loads(socket_.recv(timeout=5))["code"] == "bad_origin"
            with pytest.raises(ConnectionClosed):
                socket_.recv(timeout=5)
            assert socket_.close_code == 4403


# -- 5. log noise ------------------------------------------------------------------------


def test_a_text_frame_that_is_not_utf8_is_one_line_at_info(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, _ = app_and_lobby()
    with caplog.at_level(logging.INFO), live_server(app) as base:
        made = httpx.post(f"{base}/api/rooms", json={"name": "Ana"}).json()
        url = base.replace("http", "ws") + f"/ws/{made['code']}?token={made['token']}"
        caplog.clear()
        with ws_connect(url) as socket_:
            assert json.loads(socket_.recv(timeout=5))["type"] == "state"
            socket_.send(b'{"type": "ping"}\xff', text=True)
            with pytest.raises(ConnectionClosed):
                while True:
                    socket_.recv(timeout=5)
            assert socket_.close_code == 1007
        time.sleep(0.2)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    lines = [
        r
        for r in caplog.records
        if r.name == "uvicorn.error"
        and "utf" in (r.getMessage() + str(getattr(r, "fields", ""))).lower()
    ]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO, caplog.text
    assert lines[0].exc_info is None


@pytest.mark.parametrize(
    "body, word",
    [
        ({"name": "A", "timer": "30"}, "timer"),
        ({"name": "A", "public": "off"}, "public"),
        ({"name": "A", "show_lost_dice": "no"}, "show_lost_dice"),
        ({"name": "A", "seats": 4.0}, "seats"),
        ({"name": "A", "seats": True}, "seats"),
        ({"name": "A", "seats": 2, "bots": [None, "easy", "hard"]}, "3 entries for 2 seats"),
        ({"name": 7}, "name"),
    ],
)
def test_room_creation_refuses_values_of_the_wrong_type_by_name(
    body: dict[str, object], word: str
) -> None:
    """Strict as the table's socket is: a "30" or a 4.0 is not quietly converted, and bots
    for seats the room does not have are not quietly dropped."""
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        response = client.post("/api/rooms", json=body)
        assert response.status_code == 400, response.text
        assert error_shape(response)["error"] == "bad_request"
        assert word in response.json()["message"], response.json()
        assert client.get("/api/rooms").json()["rooms"] == []
