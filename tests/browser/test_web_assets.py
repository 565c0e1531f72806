"""The client's files served like a production site's (dudo.server.web.assets), checked on the
wire of a real ``dudo serve`` process: compressed with brotli or gzip as the browser asks,
``Vary: Accept-Encoding``, versioned URLs cached for a year, HTML revalidated every time,
the old URLs still answering; and the share panel's QR code (dudo.server.web.share)."""

from __future__ import annotations

import gzip
import io
import json
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

import brotli
import httpx
import pytest
import segno
from starlette.testclient import TestClient

from dudo.server.web.assets import COMPRESS_FROM, IMMUTABLE, StaticTree, accepted_encodings
from dudo.server.web.pages import WEB
from dudo.server.web.share import clean_origin, share_link
from serverkit import app_and_lobby, server_process, sqlite_url

APP_JS = (WEB / "js" / "app.js").read_bytes()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("assets"))) as (base, _):
        yield base


def raw_get(url: str, **headers: str) -> tuple[httpx.Response, bytes]:
    """The response and its body exactly as it came over the wire (not decoded)."""
    with httpx.stream("GET", url, headers=headers) as response:
        return response, b"".join(response.iter_raw())


def versioned(server: str, name: str = "js/app.js") -> str:
    """The URL the home page gives ``name`` (under /static/<version>/)."""
    page = httpx.get(server + "/").text
    prefix = re.search(r'"(/static/[0-9a-f]{12}/)js/app\.js"', page)
    assert prefix, page
    return server + prefix.group(1) + name


def test_static_files_go_compressed_as_the_browser_asks(server: str) -> None:
    url = versioned(server)
    response, body = raw_get(url, **{"accept-encoding": "gzip, deflate, br"})
    assert response.headers["content-encoding"] == "br"
    assert brotli.decompress(body) == APP_JS
    assert len(body) < len(APP_JS) / 2
    response, body = raw_get(url, **{"accept-encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == APP_JS
    assert int(response.headers["content-length"]) == len(body)
    for refused in ("identity", "br;q=0, gzip;q=0", ""):
        response, body = raw_get(url, **{"accept-encoding": refused})
        assert "content-encoding" not in response.headers, refused
        assert body == APP_JS, refused
        assert response.headers["vary"] == "Accept-Encoding", refused
    for name in ("css/dudo.css", "locales/de.json", "js/table.js"):
        response, body = raw_get(versioned(server, name), **{"accept-encoding": "gzip"})
        assert response.headers["content-encoding"] == "gzip", name
        assert response.headers["vary"] == "Accept-Encoding", name
        assert gzip.decompress(body) == (WEB / name).read_bytes(), name
    # A file smaller than a packet goes as it is.
    icon = (WEB / "favicon.svg").read_bytes()
    assert len(icon) < COMPRESS_FROM
    response, body = raw_get(versioned(server, "favicon.svg"), **{"accept-encoding": "gzip, br"})
    assert "content-encoding" not in response.headers and body == icon
    assert response.headers["content-type"] == "image/svg+xml"


def test_pages_and_api_answers_are_compressed_too(server: str) -> None:
    for path in ("/", "/r/ABCD", "/my-games", "/rules", "/api/presets"):
        response, body = raw_get(server + path, **{"accept-encoding": "gzip"})
        assert response.headers["content-encoding"] == "gzip", path
        assert "Accept-Encoding" in response.headers["vary"], path
        assert gzip.decompress(body), path


def test_versioned_files_are_kept_a_year_and_pages_are_checked_every_time(server: str) -> None:
    home = httpx.get(server + "/")
    assert home.headers["cache-control"] == "no-cache"
    # Every file the page names is under the version's prefix.
    named = re.findall(r'"(/static/[^"]+)"', home.text)
    assert named and all(re.match(r"/static/[0-9a-f]{12}/", url) for url in named), named
    for url in named:
        response = httpx.get(server + url)
        assert response.status_code == 200, url
        assert (
            response.headers["cache-control"]
            == IMMUTABLE
            == ("public, max-age=31536000, immutable")
        ), url
    # A page is checked with its ETag: 304 while it has not changed.
    again = httpx.get(server + "/", headers={"if-none-match": home.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"
    game = httpx.get(server + "/my-games")
    assert game.headers["cache-control"] == "no-cache"
    assert re.search(r'"/static/[0-9a-f]{12}/js/replay\.js"', game.text), game.text


def test_old_addresses_still_answer_without_a_long_cache(server: str) -> None:
    version = versioned(server).split("/static/")[1].split("/")[0]
    other = "0" * 12 if version != "0" * 12 else "1" * 12
    for path in ("/static/js/app.js", f"/static/{other}/js/app.js"):
        response = httpx.get(server + path)
        assert response.status_code == 200, path
        assert response.content == APP_JS, path
        assert response.headers["cache-control"] == "no-cache", path
        again = httpx.get(server + path, headers={"if-none-match": response.headers["etag"]})
        assert again.status_code == 304, path
    for path in (
        "/static/nothing.js",
        f"/static/{version}/nothing.js",
        f"/static/{version}/",
        f"/static/{version}/../pages.py",
        "/static/js/../../server/web/pages.py",
    ):
        response = httpx.get(server + path)
        assert response.status_code == 404, path
        assert response.json()["error"] == "not_found", path
    assert httpx.post(server + "/static/js/app.js").status_code == 405


def test_the_version_follows_the_files(tmp_path: Path) -> None:
    """A changed file gives a new version (so every URL changes with it); the same files
    give the same one (every node of a cluster serves the same URLs)."""
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "app.js").write_text("export const a = 1;\n")
    (tmp_path / "index.html").write_text('<script type="module" src="/static/js/app.js"></script>')
    first, same = StaticTree(tmp_path), StaticTree(tmp_path)
    assert first.version == same.version
    assert first.pages["index.html"].body == (
        f'<script type="module" src="/static/{first.version}/js/app.js"></script>'.encode()
    )
    (tmp_path / "js" / "app.js").write_text("export const a = 2;\n")
    assert StaticTree(tmp_path).version != first.version


def test_accept_encoding_is_read_with_its_weights() -> None:
    assert accepted_encodings("gzip, deflate, br") == {"gzip", "deflate", "br"}
    assert accepted_encodings("br;q=0, gzip;q=0.5") == {"gzip"}
    assert accepted_encodings("gzip;q=nope, br") == {"br"}
    assert accepted_encodings("") == set()


# -- the share panel's QR code ----------------------------------------------------------


def segno_svg(link: str) -> bytes:
    """The code for ``link`` made here with segno itself (what the server must send)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(
        out,
        kind="svg",
        xmldecl=False,
        omitsize=True,
        border=4,
        dark="#000",
        light="#fff",
        svgclass=None,
        lineclass=None,
    )
    return out.getvalue()


def new_room(client: TestClient) -> str:
    """A room of Ana and an open seat or two (its lobby, where the panel is)."""
    answer = client.post("/api/rooms", json={"name": "Ana", "seats": 3})
    assert answer.status_code == 201, answer.text
    code: str = answer.json()["code"]
    return code


def test_the_qr_code_is_the_link_the_panel_shows() -> None:
    app, holder = app_and_lobby()
    origin = "http://testserver"
    with TestClient(app) as client:
        code = new_room(client)
        assert holder.lobby is not None
        invite = holder.lobby.rooms[code].state.invite
        assert invite
        plain = client.get(f"/r/{code}/qr.svg", params={"origin": origin})
        assert plain.status_code == 200, plain.text
        assert plain.headers["content-type"] == "image/svg+xml"
        assert plain.headers["cache-control"] == "private, max-age=86400"
        assert plain.content == segno_svg(f"{origin}/r/{code}")
        svg = ElementTree.fromstring(plain.content)
        assert svg.tag == "{http://www.w3.org/2000/svg}svg"
        assert "width" not in svg.attrib and svg.attrib["viewBox"].startswith("0 0 ")
        assert not svg.findall(".//{http://www.w3.org/2000/svg}script")
        # The host's link, with the invite key, as the host's panel shows it.
        hosts = client.get(f"/r/{code}/qr.svg", params={"origin": origin, "invite": invite})
        assert hosts.status_code == 200
        assert hosts.content == segno_svg(f"{origin}/r/{code}?invite={invite}")
        assert hosts.content != plain.content
        # Lower case in the address: the room's own code in the link.
        assert (
            client.get(f"/r/{code.lower()}/qr.svg", params={"origin": origin}).content
            == plain.content
        )
        # An unknown room or a wrong key: the answer of an address that does not exist.
        nowhere = client.get("/nowhere", headers={"accept": "image/*"})
        for params in (
            {"origin": origin, "invite": "0" * len(invite)},
            {"origin": origin, "invite": "é"},
        ):
            wrong = client.get(f"/r/{code}/qr.svg", params=params)
            assert (wrong.status_code, wrong.json()) == (404, nowhere.json()), params
        unknown = "ZZZZ" if code != "ZZZZ" else "YYYY"
        missing = client.get(f"/r/{unknown}/qr.svg", params={"origin": origin})
        assert (missing.status_code, missing.json()) == (404, nowhere.json())
        # Only this site's own origin, exactly: no other host, path, user or slash.
        for bad in (
            "",
            "http://evil.example",
            "http://testserver/x",
            "http://testserver/",
            "http://me@testserver",
            "javascript:alert(1)",
            "ftp://testserver",
        ):
            answer = client.get(f"/r/{code}/qr.svg", params={"origin": bad})
            assert answer.status_code == 400, bad
            assert answer.json()["error"] == "bad_request", bad


def test_a_locked_room_lets_in_by_the_qr_codes_link() -> None:
    """The host's code carries the key a locked room asks for; a key that is not text the
    comparison can take is refused like any wrong key (it once raised in the room)."""
    app, holder = app_and_lobby()
    with TestClient(app) as client:
        code = new_room(client)
        assert holder.lobby is not None
        room = holder.lobby.rooms[code]
        room.state.locked = True
        invite = room.state.invite
        assert client.post(f"/api/rooms/{code}/join", json={"name": "Ben"}).status_code == 403
        refused = client.post(f"/api/rooms/{code}/join", json={"name": "Ben", "invite": "ü"})
        assert refused.status_code == 403 and refused.json()["error"] == "locked"
        joined = client.post(f"/api/rooms/{code}/join", json={"name": "Ben", "invite": invite})
        assert joined.status_code == 200, joined.text


def test_origins_are_taken_only_exactly() -> None:
    assert clean_origin("https://dudo.example") == "https://dudo.example"
    assert clean_origin("http://192.168.1.20:8000") == "http://192.168.1.20:8000"
    for bad in (
        "https://dudo.example/",
        "https://dudo.example/r",
        "https://a@b",
        "dudo.example",
        "https://dudo.example?x",
        "https://dudo.example#x",
        "http://[::1",
    ):
        assert clean_origin(bad) is None, bad
    assert share_link("http://h:1", "ABCD") == "http://h:1/r/ABCD"
    assert share_link("http://h:1", "ABCD", "a b") == "http://h:1/r/ABCD?invite=a%20b"


def test_the_qr_code_of_a_room_another_node_holds(tmp_path: Path) -> None:
    """Asked of a node that does not hold the room, the code is the holder's answer (the
    query and the image type relayed), with the link of the node the page is on."""
    from websockets.sync.client import connect

    from clusterkit import cluster

    with cluster(tmp_path, nodes=2) as running:
        holder, other = running.nodes
        made = httpx.post(f"{holder.base}/api/rooms", json={"name": "Ana", "seats": 3})
        assert made.status_code == 201, made.text
        code, token = made.json()["code"], made.json()["token"]
        socket_url = holder.base.replace("http://", "ws://") + f"/ws/{code}?token={token}"
        with connect(socket_url) as socket:
            invite = json.loads(socket.recv(timeout=10))["you"]["invite"]
        assert invite
        for params, link in (
            ({"origin": other.base}, f"{other.base}/r/{code}"),
            ({"origin": other.base, "invite": invite}, f"{other.base}/r/{code}?invite={invite}"),
        ):
            answer = httpx.get(f"{other.base}/r/{code}/qr.svg", params=params)
            assert answer.status_code == 200, answer.text
            assert answer.headers["content-type"] == "image/svg+xml"
            assert answer.content == segno_svg(link)
        wrong = httpx.get(
            f"{other.base}/r/{code}/qr.svg",
            params={"origin": other.base, "invite": "x" + invite[1:]},
        )
        assert wrong.status_code == 404
        # The origin is the page's node's to check: the holder's own is not the page's.
        foreign = httpx.get(f"{other.base}/r/{code}/qr.svg", params={"origin": holder.base})
        assert foreign.status_code == 400
