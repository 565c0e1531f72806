"""What a demanding player's audit of the client found, measured in a real browser (Debian's
Chromium through Playwright, against a real server process), as classes of defects rather
than single cases:

- no page is wider than the screen at any width from a small phone (320) to a big screen;
- on a phone, no text on the table is under 12 px;
- on a phone held sideways, your turn (your dice, the bid to beat, the picker and the
  calls) fits the first screen.

Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page
from test_web import ARTIFACTS, TIMINGS, chromium

from serverkit import server_process, sqlite_url

# Every width from a small phone to a laptop, then the common big screens.
WIDTHS = [*range(320, 1300, 10), 1366, 1440, 1600, 1920, 2560]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("audit")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def too_wide_at(page: Page) -> list[tuple[int, int]]:
    """The widths (of WIDTHS) at which the page scrolls sideways, with its width there."""
    found = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        wide: int = page.evaluate(
            "new Promise((done) => requestAnimationFrame(() =>"
            " done(document.documentElement.scrollWidth)))"
        )
        if wide > width:
            found.append((width, wide))
    return found


@pytest.mark.parametrize("locale", ["en-US", "de-DE", "es-ES"])
@pytest.mark.parametrize("path", ["/", "/rules", "/me", "/my-games"])
def test_no_page_is_wider_than_the_screen_at_any_width(
    server: str, browser: Browser, path: str, locale: str
) -> None:
    context = browser.new_context(viewport={"width": 320, "height": 800}, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + path)
    page.wait_for_selector("main :is(h1, h2)")
    assert too_wide_at(page) == [], (path, locale)
    assert not errors
    context.close()


def phone(browser: Browser, width: int = 360, height: int = 640, **options: Any) -> Page:
    """A page on a phone: a touch screen, the layout viewport the device's width."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=True, has_touch=True, **options
    )
    page = context.new_page()
    page.set_default_timeout(8000)
    return page


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"audit-{name}.png"), full_page=True)

