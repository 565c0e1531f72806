"""The table people choose (issue 22), in a real browser against a real server: a quick
game that says what happens, practice tips on a phone's first screen, leaving the table,
the keyboard, and the small things (one Rules picker, the join page's bots, ...).

The server fills quick tables after 5 seconds here, so the countdown is there to see.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, expect

from serverkit import server_process, sqlite_url
from test_web import ARTIFACTS, TIMINGS, axe_check, chromium
from test_web_table import open_page

QUICK_TIMINGS = {**TIMINGS, "DUDO_QUICK_FILL": "5"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("choice")),
                        env=QUICK_TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def test_a_quick_game_counts_down_to_the_bots_and_offers_no_private_room(
        server: str, browser: Browser) -> None:
    page = open_page(browser, 360, 740)
    page.goto(server + "/")
    page.fill("#name", "Quinn")
    page.click("#quick")
    countdown = page.locator("#quick-countdown")
    expect(countdown).to_have_text(re.compile(r"Bots fill the open seats and the game starts "
                                              r"in [1-5] seconds?\."))
    lobby = page.locator(".quick-lobby")
    expect(lobby).to_contain_text("Quinn")
    # Nothing of a private room: no link to send, no code to tell, no host's controls.
    for absent in (".share-code", "#share-link", "#share-qr", "#start", "#fill-bots",
                   ".quick-lobby select", "#room-settings-form"):
        expect(page.locator(absent)).to_have_count(0)
    expect(lobby).not_to_contain_text("friends")
    page.screenshot(path=str(ARTIFACTS / "quick-lobby-360.png"))
    axe_check(page, "quick lobby")
    # The bots come when the countdown ends, and the game starts by itself.
    page.wait_for_selector(".felt", timeout=15000)
    seats = page.evaluate("window.dudo.view.state.room.seats.map((s) => s.kind)")
    assert seats.count("bot") == 3, seats
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_a_quick_game_can_start_at_once_with_bots(server: str, browser: Browser) -> None:
    page = open_page(browser, 1280, 720, locale="de-DE")
    page.goto(server + "/")
    page.fill("#name", "Uli")
    page.click("#quick")
    expect(page.locator("#quick-countdown")).to_contain_text("Bots")
    page.click("#quick-now")
    page.wait_for_selector(".felt", timeout=3000)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
