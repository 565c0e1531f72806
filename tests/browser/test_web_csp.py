"""The content security policy and the frame and origin rules, in a real browser (Debian's
Chromium through Playwright, as tests/browser/test_web.py): the client and the rules sheet work
under the policy with no violation reported; only the embeddable sheet can be framed by
another site; a page of another site cannot open a WebSocket to a room.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, sync_playwright

from serverkit import free_port, server_process, sqlite_url

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Every violation of the policy is recorded by the page itself (before any of its scripts).
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (event) => {
    window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {"DUDO_BOT_DELAY": "0.2", "DUDO_REVEAL_PAUSE": "2", "DUDO_SEED_WINDOW": "0.1"}
    with server_process(sqlite_url(tmp_path_factory.mktemp("csp")), env=env) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (CI does, in .ci/run)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


def new_page(browser: Browser) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(8000)
    console: list[str] = []
    page.on(
        "console", lambda message: console.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: console.append(str(error)))
    return page, console


def violations(page: Page) -> list[str]:
    found: list[str] = page.evaluate("window.__violations")
    return found


def test_the_client_plays_under_the_policy(server: str, browser: Browser) -> None:
    page, console = new_page(browser)
    response = page.goto(server + "/")
    assert response is not None
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    page.fill("#name", "Ana")
    page.select_option("#seats", "2")
    page.select_option('[data-seat="1"]', "easy")
    page.click("#create")
    page.wait_for_url(re.compile(r"/r/[A-Z]{4}$"))
    page.click("#start")
    # The stylesheet applies, and the seats stand where their style attributes put them
    # (checked in one go: the table is drawn anew with every state).
    page.wait_for_function("""() => {
        const seats = [...document.querySelectorAll('.seat')];
        return seats.length === 2
            && seats.every((seat) => getComputedStyle(seat).position === 'absolute'
                                     && seat.style.left.endsWith('%'))
            && new Set(seats.map((seat) => `${seat.offsetLeft},${seat.offsetTop}`)).size === 2;
    }""")
    assert violations(page) == [] and not console, (violations(page), console)


def test_the_rules_sheet_works_under_the_policy(server: str, browser: Browser) -> None:
    page, console = new_page(browser)
    page.goto(server + "/rules?preset=dudo&starting_dice=3")
    assert page.evaluate("getComputedStyle(document.body).maxWidth") != "none"
    assert page.eval_on_selector(".die", "el => getComputedStyle(el).display") == "inline-grid"
    page.evaluate("window.print = () => { window.__printed = true; }")
    page.click("[data-print]")
    assert page.evaluate("window.__printed") is True
    assert violations(page) == [] and not console, (violations(page), console)
    page.goto(server + "/rules?starting_dice=²")  # the error page (a 400) is styled too
    assert page.evaluate("getComputedStyle(document.body).maxWidth") != "none"
    assert violations(page) == [], violations(page)


@pytest.fixture(scope="module")
def other_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Another site (another origin: a plain file server on another port), and the
    folder it serves. (A page made up by Playwright's routing is not used: Chromium
    treats it as a public site and blocks all its frames on this machine.)"""
    folder = tmp_path_factory.mktemp("other-site")
    (folder / "favicon.ico").write_bytes(b"")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(
        ("127.0.0.1", free_port()), functools.partial(Quiet, directory=str(folder))
    )
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}", folder
    finally:
        site.shutdown()
        thread.join(10)


def open_other_site(page: Page, other_site: tuple[str, Path], name: str, body: str) -> None:
    base, folder = other_site
    (folder / name).write_text(f"<!doctype html><title>elsewhere</title><body>{body}</body>")
    page.goto(f"{base}/{name}")


def test_only_the_embeddable_sheet_can_be_framed(
    server: str, browser: Browser, other_site: tuple[str, Path]
) -> None:
    page, console = new_page(browser)
    open_other_site(
        page,
        other_site,
        "frames.html",
        f'<iframe id="embed" src="{server}/rules?embed=1"></iframe>'
        f'<iframe id="sheet" src="{server}/rules"></iframe>'
        f'<iframe id="home" src="{server}/"></iframe>',
    )
    page.wait_for_load_state("load")
    embedded = page.frame_locator("#embed").locator("h1")
    assert embedded.inner_text()  # drawn, and styled by the sheet's own stylesheet
    assert embedded.evaluate("el => getComputedStyle(el).fontFamily").startswith("system-ui")
    loaded = [frame.url for frame in page.frames[1:]]
    assert loaded.count(f"{server}/rules?embed=1") == 1, loaded
    assert f"{server}/rules" not in loaded and f"{server}/" not in loaded, loaded
    blocked = [text for text in console if "frame-ancestors 'none'" in text]
    assert len(blocked) == 2, console


def test_a_page_of_another_site_cannot_take_a_seat(
    server: str, browser: Browser, other_site: tuple[str, Path]
) -> None:
    ticket = httpx.post(f"{server}/api/rooms", json={"name": "Ana"}).json()
    url = server.replace("http", "ws") + f"/ws/{ticket['code']}?token={ticket['token']}"
    page, _ = new_page(browser)
    open_other_site(page, other_site, "socket.html", "<p>elsewhere</p>")
    result = page.evaluate(
        """(url) => new Promise((resolve) => {
        const socket = new WebSocket(url);
        const got = [];
        socket.onmessage = (event) => got.push(JSON.parse(event.data));
        socket.onclose = (event) => resolve({code: event.code, got});
    })""",
        url,
    )
    assert result["code"] == 4403, result
    assert [message["code"] for message in result["got"]] == ["bad_origin"], result
