"""What a demanding player's audit of the client found, measured in a real browser (Debian's
Chromium through Playwright, against a real server process), as classes of defects rather
than single cases:

- no page is wider than the screen at any width from a small phone (320) to a big screen;
- on a phone (a touch screen), every control is a target of at least 40 × 40 px, on the
  pages of a finished game too;
- on a phone, no text on the table is under 12 px;
- on a phone held sideways, your turn (your dice, the bid to beat, whose turn, the timer,
  the picker and the calls) fits the first screen, at two and at six seats.

Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page
from test_web import ARTIFACTS, TIMINGS, chromium
from test_web_replay import finished, open_game

from serverkit import server_process, sqlite_url

__all__ = ["finished"]  # a fixture, shared with test_web_replay

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


def seat_in_a_room(page: Page, server: str, bots: list[str | None], **room: Any) -> str:
    """A room made over HTTP (seat 0 ours, a long timer), its lobby open in `page`."""
    from test_web_table import wait_for_lobby

    body = {"name": "Ana", "seats": len(bots), "bots": bots, "timer": 300, **room}
    answer = httpx.post(f"{server}/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    ticket = answer.json()
    page.goto(server + "/")
    page.evaluate(
        "(t) => localStorage.setItem(`dudo.seat.${t.code}`, JSON.stringify("
        "{token: t.token, seat: t.seat, name: t.name}))",
        ticket,
    )
    page.goto(f"{server}/r/{ticket['code']}")
    wait_for_lobby(page)
    return str(ticket["code"])


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"audit-{name}.png"), full_page=True)


# Every control on screen smaller than 40 px either way, but: a link inside a sentence
# (its text runs on around it), a box or button inside a label that is itself big enough
# (the label is the target), the skip link (off screen until focused).
SMALL_TARGETS = """() => {
    const controls = 'a[href], button, input:not([type=hidden]), select, textarea, summary,'
        + ' [role=button], label:has(input)';
    const big = (el) => {
        const box = el.getBoundingClientRect();
        return box.width >= 40 && box.height >= 40;
    };
    const inSentence = (el) => el.tagName === 'A' && el.parentElement
        && el.parentElement.textContent.trim().length > el.textContent.trim().length + 2
        && getComputedStyle(el).display === 'inline';
    return [...document.querySelectorAll(controls)].filter((el) => {
        const box = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        if (!box.width || !box.height || style.visibility === 'hidden') return false;
        if (el.closest('.sr-only, .skip') || big(el) || inSentence(el)) return false;
        const label = el.closest('label');
        return !(label && label !== el && big(label));
    }).map((el) => {
        const box = el.getBoundingClientRect();
        const text = (el.getAttribute('aria-label') || el.textContent || el.id).trim();
        const size = `${Math.round(box.width)}×${Math.round(box.height)}`;
        return `${el.tagName.toLowerCase()} "${text.slice(0, 30)}" ${size}`;
    });
}"""


def small_targets(page: Page) -> list[str]:
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    found: list[str] = page.evaluate(SMALL_TARGETS)
    return found


@pytest.mark.parametrize(
    ("width", "height", "locale"),
    [(360, 640, "en-US"), (390, 844, "es-ES"), (768, 1024, "de-DE")],
)
def test_every_control_is_finger_sized_on_a_phone(
    server: str, browser: Browser, width: int, height: int, locale: str
) -> None:
    page = phone(browser, width, height, locale=locale)
    for path in ["/", "/me", "/my-games", "/rules"]:
        page.goto(server + path)
        page.wait_for_selector("main :is(h1, h2), h1")
        page.wait_for_timeout(300)
        assert small_targets(page) == [], path
    seat_in_a_room(page, server, [None, "easy", "easy"])
    shot(page, f"lobby-{width}-{locale}")
    assert small_targets(page) == [], "lobby"
    page.click("#start")
    page.wait_for_selector("#bid-go", timeout=30000)
    shot(page, f"turn-{width}-{locale}")
    assert small_targets(page) == [], "turn"
    page.context.close()


# Phones held sideways, from a small one to a big one.
LANDSCAPE = [(640, 360), (667, 375), (740, 360), (844, 390), (915, 412)]


@pytest.mark.parametrize("players", [2, 6])
def test_your_turn_fits_the_first_screen_of_a_phone_held_sideways(
    server: str, browser: Browser, players: int
) -> None:
    from test_web_table import MUST_SEE, on_first_screen, our_turn

    page = phone(browser, *LANDSCAPE[0])
    seat_in_a_room(page, server, [None] + ["easy"] * (players - 1), rules={"calza": "any_time"})
    page.click("#start")
    our_turn(page)
    # Calza needs three players (Perudo's rule): not offered heads-up.
    must_see = MUST_SEE if players > 2 else {k: v for k, v in MUST_SEE.items() if k != "calza"}
    for width, height in LANDSCAPE:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        page.evaluate("scrollTo(0, 0)")
        shot(page, f"turn-{players}-{width}x{height}")
        on_first_screen(page, must_see)
    page.context.close()


# Every piece of text on screen in a font under 12 px (the sr-only ones are not on screen).
SMALL_TEXT = """() => [...document.querySelectorAll('body *')].filter((el) => {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('.sr-only, svg')) return false;
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && style.visibility !== 'hidden' && parseFloat(style.fontSize) < 12;
}).map((el) => `${el.className || el.tagName} "${el.textContent.trim().slice(0, 20)}"`
    + ` ${getComputedStyle(el).fontSize}`)"""


def test_no_text_on_the_table_is_under_12_px_on_a_phone(server: str, browser: Browser) -> None:
    from test_web_table import our_turn

    page = phone(browser)
    seat_in_a_room(page, server, [None, "easy", "easy", "easy"], rules={"calza": "any_time"})
    assert page.evaluate(SMALL_TEXT) == [], "lobby"
    page.click("#start")
    our_turn(page)
    shot(page, "turn-text")
    assert page.evaluate(SMALL_TEXT) == [], "turn"
    page.click("#call-dudo")
    page.wait_for_selector(".centre.reveal .tally-label")
    shot(page, "reveal-text")
    assert page.evaluate(SMALL_TEXT) == [], "reveal"
    page.context.close()


# The smallest text on screen, in px.
SMALLEST_TEXT = """() => Math.min(...[...document.querySelectorAll('body *')].filter((el) => {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('.sr-only, svg')) return false;
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.bottom > 0 && getComputedStyle(el).visibility !== 'hidden';
}).map((el) => parseFloat(getComputedStyle(el).fontSize)))"""


def test_big_screens_grow_the_type_and_the_turn_still_fits(server: str, browser: Browser) -> None:
    from test_web_table import MUST_SEE, on_first_screen, open_page, our_turn

    page = open_page(browser, 2560, 1440)
    for path in ["/", "/me", "/my-games"]:
        page.goto(server + path)
        page.wait_for_selector("main :is(h1, h2)")
        assert page.evaluate(SMALLEST_TEXT) >= 15, path
    seat_in_a_room(page, server, [None] + ["easy"] * 5, rules={"calza": "any_time"})
    page.click("#start")
    our_turn(page)
    for width, height in [(2560, 1440), (3840, 2160)]:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        shot(page, f"turn-{width}x{height}")
        assert page.evaluate(SMALLEST_TEXT) >= 15, (width, height)
        on_first_screen(page, MUST_SEE)
    page.context.close()


def test_a_finished_game_page_is_finger_sized_on_a_phone(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    page = phone(browser)
    open_game(page, server, finished["id"])
    shot(page, "game-page")
    assert small_targets(page) == []
    assert page.evaluate(SMALL_TEXT) == []
    page.context.close()
