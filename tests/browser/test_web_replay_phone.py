"""A finished game's page (/g/ID) on a phone, as an outside visual audit saw it (a plain list
of rows some 17,000 px tall, the step controls far below the header), measured in a real
browser (Debian's Chromium through Playwright, as tests/browser/test_web_replay.py), with a
four-player game of five dice each (18 or so rounds):

- the page is a few screens tall: measured on the old page at 360 x 740, some 24,000 px
  (32 screens); now some 3,500, of which the round open in the log (the current one) is up
  to a screen. The bound: without that round, at most 3 screens, and with it at most 6;
- the step's table (every cup, the standing bid) is on the felt, and the step controls are
  on the first screen; scrolled to the page's end, the controls are still on the screen,
  and the page's end is above them, not under them;
- tapping Next changes the stage; the log's round buttons open and fold a round;
- no sideways scroll from 320 to 1920 px with every round open, and every control on a
  touch screen (the round buttons and the bar's step buttons, one row, among them) is at
  least 40 px each way;
- printed, every round's moves are there.

Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect
from test_web import check_fits, keep_shot
from test_web_replay import browser, open_game, run_apart, server, stored_record

from dudo.bots import make_bot
from dudo.client import Client

__all__ = ["browser", "server"]  # the fixtures, shared with test_web_replay

PHONES = [(360, 740), (390, 844), (844, 390)]


@pytest.fixture(scope="module")
def four(server: str) -> dict[str, Any]:
    """A whole game of four players with five dice each (one seat played by a program,
    three bots): the longest of the usual games."""

    async def play() -> dict[str, Any]:
        async with Client(server) as client:
            seat = await client.create_room(
                "Ana",
                rules={"preset": "perudo"},
                seats=4,
                bots=[None, "hard", "normal", "normal"],
            )
            async with client.table(seat) as table:
                await table.start()
                await table.play(make_bot("normal", seed=5))
                game_id = table.state["fair"]["game_id"]
            return {"seat": seat, "id": game_id, "record": await stored_record(client, game_id)}

    return run_apart(play())


def open_on(browser: Browser, server: str, game_id: str, width: int, height: int) -> Page:
    """The game's page in a page of that size: a touch screen below 900 px wide."""
    touch = width < 900
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=touch, has_touch=touch
    )
    page = context.new_page()
    page.set_default_timeout(8000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    open_game(page, server, game_id)
    return page


# Where the controls and the stage's pieces are on the screen (viewport y), and the page's
# height with and without the rounds open in the log.
PLACES = """() => {
    const box = (el) => {
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                width: r.width, height: r.height};
    };
    const one = (s) => box(document.querySelector(s));
    const open = [...document.querySelectorAll('#log .round-log')]
        .filter((section) => !section.hidden)
        .reduce((sum, section) => sum + section.getBoundingClientRect().height, 0);
    return {page: document.documentElement.scrollHeight, open, inner: innerHeight,
            controls: one('.controls'), slider: one('#slider'), stage: one('#stage'),
            felt: one('#stage .felt'), cups: one('#stage .cups-now'),
            standing: one('#stage .standing-line'),
            buttons: ['#first', '#prev-round', '#prev', '#next', '#next-round', '#last']
                .map((s) => one(s)),
            rounds: document.querySelectorAll('#log .round-log').length};
}"""


def places(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(PLACES)
    return found


def on_screen(found: dict[str, Any], name: str) -> bool:
    piece = found[name]
    return bool(piece) and piece["top"] >= 0 and piece["bottom"] <= found["inner"]


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("width", "height"), [(360, 740), (390, 844)])
def test_the_page_is_a_few_screens_tall_on_a_phone(
    server: str, browser: Browser, four: dict[str, Any], width: int, height: int
) -> None:
    page = open_on(browser, server, four["id"], width, height)
    found = places(page)
    assert found["rounds"] >= 10, found["rounds"]  # a long game, as the audit's
    # The old page: 24,000 px at 360 x 740 (every round's every move, every round's check
    # and every rule, one under another). Now the stage, the players, the row of rounds and
    # the current round's moves, the rest folded.
    assert found["page"] - found["open"] <= 3 * height, found
    assert found["page"] <= 6 * height, found
    keep_shot(page, f"replay-phone-{width}x{height}", full_page=True)
    page.context.close()


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("width", "height"), [*PHONES, (1366, 768)])
def test_the_stage_and_the_controls_are_on_the_first_screen_and_stay(
    server: str, browser: Browser, four: dict[str, Any], width: int, height: int
) -> None:
    page = open_on(browser, server, four["id"], width, height)
    page.keyboard.press("ArrowRight")  # a bid stands
    found = places(page)
    name = f"{width}x{height}"
    for piece in ("slider", "felt"):
        assert on_screen(found, piece), (name, piece, found)
    for button in found["buttons"]:
        assert button["top"] >= 0 and button["bottom"] <= height, (name, found["buttons"])
    # The felt is not under the controls (a bar at the foot of a phone's screen).
    assert found["standing"]["bottom"] <= found["controls"]["top"], (name, found)
    keep_shot(page, f"replay-first-screen-{name}")
    if width < 1280:
        # Scrolled to the end: the controls are still there, and the page's last line is
        # above them, not under them.
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        after = places(page)
        assert on_screen(after, "slider"), (name, after)
        for button in after["buttons"]:
            assert button["top"] >= 0 and button["bottom"] <= height, (name, after["buttons"])
        last = page.evaluate(
            """() => {
                const items = [...document.querySelectorAll('.replay > *')];
                return items[items.length - 1].getBoundingClientRect().bottom;
            }"""
        )
        assert last <= after["controls"]["top"], (name, last, after["controls"])
        keep_shot(page, f"replay-end-{name}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


STAGE = """() => {
    const stage = document.querySelector('#stage');
    return {round: stage.dataset.round, step: stage.dataset.step,
            sentence: stage.querySelector('#step-sentence').textContent,
            bid: stage.querySelector('.replay-bid')?.dataset.bid ?? null,
            scroll: scrollY};
}"""


@pytest.mark.timeout(240)
def test_tapping_next_steps_the_stage_on_the_felt(
    server: str, browser: Browser, four: dict[str, Any]
) -> None:
    page = open_on(browser, server, four["id"], 360, 740)
    # The stage is the table's felt: its seats, a seat a cup with its dice.
    felt = page.evaluate(
        """() => {
            const felt = document.querySelector('#stage .felt');
            const seats = felt ? [...felt.querySelectorAll('.seat')] : [];
            return {felt: !!felt, seats: seats.length,
                    dice: seats.map((seat) => seat.querySelectorAll('.die').length),
                    background: felt ? getComputedStyle(felt).backgroundImage : ''};
        }"""
    )
    assert felt["felt"] and felt["seats"] == 4, felt
    assert felt["dice"] == [5, 5, 5, 5], felt
    assert "gradient" in felt["background"], felt
    before = page.evaluate(STAGE)
    assert before["bid"] is None
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
    page.locator("#next").tap()
    after = page.evaluate(STAGE)
    assert (after["round"], after["step"]) == ("1", "1"), after
    assert after["bid"] is not None and after["sentence"] != before["sentence"], after
    assert page.evaluate("location.hash") == "#r1s1"
    # The log's rounds: the current one open, another opened and folded by its button.
    expect(page.locator("#round-1")).to_be_visible()
    expect(page.locator("#round-2")).to_be_hidden()
    page.locator('.round-toggle[aria-controls="round-2"]').tap()
    expect(page.locator("#round-2")).to_be_visible()
    expect(page.locator('.round-toggle[aria-controls="round-2"]')).to_have_attribute(
        "aria-expanded", "true"
    )
    page.locator('.round-toggle[aria-controls="round-2"]').tap()
    expect(page.locator("#round-2")).to_be_hidden()
    # Stepping into round 2 opens it, and folds round 1 the step left.
    page.keyboard.press("PageDown")
    expect(page.locator("#round-2")).to_be_visible()
    expect(page.locator("#round-1")).to_be_hidden()
    # Printed, every round's moves are there, the controls are not.
    page.emulate_media(media="print")
    expect(page.locator(".controls")).to_be_hidden()
    assert page.evaluate(
        "[...document.querySelectorAll('#log .round-log')].every((s) => s.offsetHeight > 0)"
    )
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


# Every control a finger may take on the page (links in running text aside), with its box.
TARGETS = """() => [...document.querySelectorAll('button, a, input, select, summary')]
    .filter((el) => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && !el.closest('.sr-only, .skip, p.help, .lead, .fair-summary');
    })
    .map((el) => {
        const box = el.getBoundingClientRect();
        return [el.id || el.className || el.tagName, Math.round(box.width),
                Math.round(box.height)];
    })"""


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("width", "height"), PHONES)
def test_touch_targets_are_40_px_and_nothing_scrolls_sideways(
    server: str, browser: Browser, four: dict[str, Any], width: int, height: int
) -> None:
    page = open_on(browser, server, four["id"], width, height)
    page.keyboard.press("ArrowRight")
    targets = page.evaluate(TARGETS)
    small = [target for target in targets if min(target[1:]) < 40]
    assert not small, (width, height, small)
    # The round buttons over the log are among them, and the six step buttons are one row
    # of the bar (the old page: two rows of three under the stage, far down the page).
    assert [target for target in targets if "round-toggle" in str(target[0])], targets
    tops = {round(button["top"]) for button in places(page)["buttons"]}
    assert len(tops) == 1, tops
    check_fits(page, f"replay-phone-targets-{width}x{height}")
    page.context.close()


@pytest.mark.timeout(240)
@pytest.mark.parametrize("width", [320, 600, 1024, 1280, 1920])
def test_no_sideways_scroll_at_any_width(
    server: str, browser: Browser, four: dict[str, Any], width: int
) -> None:
    page = open_on(browser, server, four["id"], width, 800)
    page.keyboard.press("End")  # the reveal: every mark on the seats
    page.locator("#all-rounds").click()  # every round's moves
    check_fits(page, f"replay-phone-fits-{width}")
    page.context.close()
