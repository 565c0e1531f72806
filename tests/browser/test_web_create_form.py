"""The create-a-room form with its house rules open, in a real browser (Debian's Chromium
through Playwright, as tests/browser/test_web_forms.py).

An outside audit (finding 14) found the form about 2,400 px tall at 1366x768 with the house
rules open, the Create button at the top of its right column and the seats far below it.
Now the seats and bots come first, then the house rules (closed at first) in short groups,
two columns where there is room, then the button, last. Measured before: with the house
rules open the form was 2,288 px tall at 1366x768 (its button 2,030 px above the end of the
seats) and 2,503 px at 390x844; now about 1,300 and 2,320.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect
from test_web import chromium, keep_shot

from serverkit import server_process, sqlite_url

pytestmark = pytest.mark.timeout(120)

# (width, height, a touch screen, the most the form may be tall with the house rules open).
SCREENS = {
    "desktop": (1366, 768, False, 1_700),
    "phone": (390, 844, True, 2_400),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("create-form"))) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def home(browser: Browser, server: str, width: int, height: int, touch: bool) -> Page:
    """The home page at this size with the house rules open."""
    context = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=touch,
        is_mobile=touch,
        locale="en-US",
    )
    page = context.new_page()
    page.set_default_timeout(8000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    page.goto(f"{server}/")
    page.click("#house-rules summary")
    expect(page.locator("#opt-format")).to_be_visible()
    return page


def boxes(page: Page) -> dict[str, Any]:
    """Where the form's parts are on the page (top and bottom from the page's top), what
    the viewport shows, and the page's width against the screen's."""
    return dict(
        page.evaluate(
            """() => {
        const box = (el) => { const r = el.getBoundingClientRect();
          return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right,
            screenTop: r.top, screenBottom: r.bottom}; };
        const one = (selector) => box(document.querySelector(selector));
        return {form: one('#create-form'), seats: one('#seat-list'), house: one('#house-rules'),
          create: one('#create'),
          groups: [...document.querySelectorAll('#options fieldset')].map(box),
          legends: [...document.querySelectorAll('#options legend')].map(
            (l) => l.textContent.trim()),
          innerHeight, scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
          widest: Math.max(...[...document.querySelectorAll('#create-form *')].map(
            (el) => el.getBoundingClientRect().right)),
          seatsFirst: !!(document.querySelector('#seat-list').compareDocumentPosition(
            document.querySelector('#house-rules')) & Node.DOCUMENT_POSITION_FOLLOWING),
          createLast: document.querySelector('#create-form').lastElementChild.id};
    }"""
        )
    )


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_open_house_rules_are_short_and_the_button_comes_after_the_seats(
    server: str, browser: Browser, screen: str
) -> None:
    width, height, touch, tallest = SCREENS[screen]
    page = home(browser, server, width, height, touch)
    # Read with the end of the form on the screen.
    page.evaluate(
        "() => { const f = document.querySelector('#create-form').getBoundingClientRect();"
        " scrollTo(0, f.bottom + scrollY - innerHeight + 40); }"
    )
    seen = boxes(page)
    assert seen["form"]["bottom"] - seen["form"]["top"] < tallest, seen["form"]
    assert seen["seatsFirst"] and seen["createLast"] == "create", seen
    assert seen["create"]["top"] >= seen["seats"]["bottom"], (seen["create"], seen["seats"])
    assert seen["create"]["top"] >= seen["house"]["bottom"], (seen["create"], seen["house"])
    # Four short groups under their headings: side by side on a laptop, one column on a phone.
    assert seen["legends"] == ["Dice and bids", "Calls", "Palifico", "Format"], seen["legends"]
    lefts = {round(group["left"]) for group in seen["groups"]}
    assert len(lefts) == (2 if screen == "desktop" else 1), seen["groups"]
    assert seen["scrollWidth"] <= seen["clientWidth"], seen
    assert seen["widest"] <= seen["clientWidth"], seen
    keep_shot(page, f"create-form-{screen}", full_page=True)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def in_sight(page: Page, selector: str) -> dict[str, Any]:
    """Scroll ``selector`` to the middle of the screen: where the Create button is then."""
    page.evaluate(f"document.querySelector('{selector}').scrollIntoView({{block: 'center'}})")
    return boxes(page)


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_button_is_in_sight_of_the_last_choice(
    server: str, browser: Browser, screen: str
) -> None:
    """With the house rules closed (as at first) the button is on the screen with the last
    seat; with them open, on the screen with the last house rule, right after the block."""
    width, height, touch, _ = SCREENS[screen]
    page = home(browser, server, width, height, touch)
    for last, opened in (("#opt-first_opener", True), ("#seat-list li:last-child", False)):
        if not opened:
            page.click("#house-rules summary")
            expect(page.locator("#opt-format")).to_be_hidden()
        seen = in_sight(page, last)
        create = seen["create"]
        assert create["screenTop"] >= 0 and create["screenBottom"] <= seen["innerHeight"], (
            last,
            create,
        )
        gap = create["top"] - seen["house"]["bottom"]
        assert 0 <= gap < 40, (last, gap)
    page.context.close()


@pytest.mark.parametrize("width", [360, 390, 768, 1366, 1920])
def test_nothing_runs_off_the_side(server: str, browser: Browser, width: int) -> None:
    page = home(browser, server, width, 800, width < 1024)
    for preset in ("perudo", "common-hand"):
        page.select_option("#preset", preset)
        seen = boxes(page)
        assert seen["scrollWidth"] <= seen["clientWidth"], (preset, seen)
        assert seen["widest"] <= seen["clientWidth"], (preset, seen)
    page.context.close()


def test_touch_targets_in_the_form_stay_finger_sized(server: str, browser: Browser) -> None:
    page = home(browser, server, 390, 844, True)
    small = page.evaluate(
        """() => [...document.querySelectorAll(
            '#create-form :is(select, input:not([type=checkbox]), .check, summary, button)')]
          .map((el) => [el.id || el.textContent.trim().slice(0, 30),
            el.getBoundingClientRect().height])
          .filter(([, h]) => h < 40)"""
    )
    assert not small, small
    page.context.close()


def test_a_room_made_with_a_changed_house_rule_keeps_it(server: str, browser: Browser) -> None:
    """On a phone: two seats (a normal bot in the second), three dice and no calza, the
    button tapped below the open house rules."""
    page = home(browser, server, 390, 844, True)
    page.fill("#name", "Ana")
    page.select_option("#seats", "2")
    page.select_option('[data-seat="1"]', "normal")
    page.select_option("#opt-starting_dice", "3")
    page.select_option("#opt-calza", "off")
    page.click("#create")
    page.wait_for_url("**/r/*")
    code = page.url.rstrip("/").rsplit("/", 1)[-1][:4]
    room = httpx.get(f"{server}/api/rooms/{code}").json()
    assert room["rules"]["starting_dice"] == 3, room["rules"]
    assert room["rules"]["calza"] == "off", room["rules"]
    assert [seat["kind"] for seat in room["seats"]] == ["human", "bot"], room["seats"]
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
