"""The share panel's QR code in a real browser (Debian's Chromium through Playwright): the
host's lobby shows the link and a code of exactly that link (its invite key in both), a
guest's shows the plain link and its code, in the page's language, under the site's
content security policy, with no accessibility violation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page
from test_web import TIMINGS, axe_check, chromium, create_room, keep_shot, wait_until
from test_web_assets import segno_svg
from test_web_csp import RECORD_VIOLATIONS

from serverkit import server_process, sqlite_url

# The image as the page got it: loaded (decoded to a size), and its bytes fetched again.
SHOWN_QR = """async () => {
    const img = document.querySelector('#share-qr');
    if (!img || !img.complete || !img.naturalWidth) return null;
    const answer = await fetch(img.src);
    return {svg: await answer.text(), type: answer.headers.get('content-type'),
            alt: img.alt, width: img.getBoundingClientRect().width,
            link: document.querySelector('#share-link').value};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("share")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def phone(browser: Browser, locale: str) -> Page:
    context = browser.new_context(viewport={"width": 360, "height": 740}, locale=locale)
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(8000)
    return page


def test_the_share_panel_shows_a_code_of_its_link(server: str, browser: Browser) -> None:
    host = phone(browser, "en-US")
    code = create_room(host, server, "Ana", 3, {})
    shown = wait_until(host, SHOWN_QR)
    invite = host.evaluate("window.dudo.view.state.you.invite")
    assert invite and shown["link"] == f"{server}/r/{code}?invite={invite}", shown["link"]
    assert shown["svg"].encode() == segno_svg(shown["link"])
    assert shown["type"] == "image/svg+xml"
    assert shown["alt"] == "QR code of the link to this room"
    assert shown["width"] >= 200, shown["width"]  # big enough for a camera across a table
    keep_shot(host, "share-qr-360", full_page=True)
    axe_check(host, "lobby with its QR code")
    # A guest (German) sees the room's plain link and its code.
    guest = phone(browser, "de-DE")
    guest.goto(f"{server}/r/{code}")
    guest.fill("#name", "Ben")
    guest.click("#take-seat")
    theirs = wait_until(guest, SHOWN_QR)
    assert theirs["link"] == f"{server}/r/{code}"
    assert theirs["svg"].encode() == segno_svg(theirs["link"])
    assert theirs["alt"] == "QR-Code des Links zu diesem Raum"
    for page in (host, guest):
        assert page.evaluate("window.__violations") == []
        page.context.close()


def test_a_host_on_localhost_shares_the_address_friends_open(
    browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The laptop's own page is on 127.0.0.1, which no friend's phone can open: with the
    server's addresses named (dudo serve --lan, or DUDO_SHARE_ORIGINS as here) the link
    and the QR code carry the first of them; without, the lobby says so."""
    lan = "http://192.0.2.7:8000"  # an address of the server, as --lan would name it
    database = sqlite_url(tmp_path_factory.mktemp("share-lan"))
    with server_process(database, env={**TIMINGS, "DUDO_SHARE_ORIGINS": lan}) as (base, _):
        host = phone(browser, "en-US")
        code = create_room(host, base, "Ana", 3, {})
        # (The page asks the server once what to share, then draws the panel again.)
        wait_until(host, "() => document.querySelector('#share-qr')?.src.includes('192.0.2.7')")
        shown = wait_until(host, SHOWN_QR)
        invite = host.evaluate("window.dudo.view.state.you.invite")
        assert shown["link"] == f"{lan}/r/{code}?invite={invite}", shown["link"]
        assert shown["svg"].encode() == segno_svg(shown["link"])
        assert host.locator("#share-local").count() == 0
        assert host.evaluate("window.__violations") == []
        host.context.close()
    database = sqlite_url(tmp_path_factory.mktemp("share-here"))
    with server_process(database, env=TIMINGS) as (base, _):
        host = phone(browser, "de-DE")
        code = create_room(host, base, "Ana", 3, {})
        host.wait_for_selector("#share-local")
        assert "make party" in host.inner_text("#share-local")
        assert host.input_value("#share-link").startswith(f"{base}/r/{code}")
        axe_check(host, "lobby of a server for this computer only")
        assert host.evaluate("window.__violations") == []
        host.context.close()
