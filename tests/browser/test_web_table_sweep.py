"""The table at every window size, in a real browser (Debian's Chromium through Playwright,
against a real server process): one page resized through a grid of windows, from 600 px
wide (a small tablet, a narrow desktop window) to 1600 in steps of 40, each 500 to 1100
px high (and two phones, 360x640 and 390x844, as guards), at six seats and at four, with
five dice each and with ten, at our turn and at a reveal (held on the table while it is
measured). At every size:

- no seat's plate meets the middle of the table (the standing bid, the reveal);
- no two plates meet;
- every plate stays inside the felt's rim (its rounded corners too);
- the page never scrolls sideways;
- and the others' dice stay at least 13 px (as test_web_many_dice.py asks).

Other modules check lists of common sizes; this one found what they missed. With five
dice, 600 px wide (at any height) the side plates met the middle by 2-3 px and the top one
by 11 (by 21 at a reveal, and by 9 at 640), and 920 to 1000 x 600 the top one by 3. With
ten, 600 to 720 wide the middle met the plates by up to 45 px, and 920 to 1560 x 600 the
top plate met it by 9-19 px at our turn and 19 at a reveal, two side plates met by 6.
A screenshot of the first size found at fault (if any) goes to test-artifacts/.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page
from test_web import ARTIFACTS, TIMINGS, chromium, wait_until
from test_web_many_dice import HOLD_THE_REVEAL, table_page
from test_web_table import inside_rim, our_turn, overlap

from serverkit import server_process, sqlite_url

WIDTHS = range(600, 1601, 40)
HEIGHTS = [500, 600, 700, 800, 900, 1100]
SIZES = [(360, 640), (390, 844)] + [(w, h) for w in WIDTHS for h in HEIGHTS]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("sweep")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


# Every plate, the middle, the felt inside its rim and the rim's corner radius, the smallest
# of the others' dice, and how wide the page is, in px: in the next frame, once the page
# has handled the resize (the bots' speech bubbles are placed again then: where one was,
# the page may be wider for a moment).
MEASURE = """() => new Promise((done) => requestAnimationFrame(() => {
    const rect = (el) => {
        const r = el.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    const felt = document.querySelector('.felt');
    const style = getComputedStyle(felt);
    const box = felt.getBoundingClientRect();
    const border = parseFloat(style.borderTopWidth);
    done({
        inner: [box.left + border, box.top + border, box.right - border, box.bottom - border],
        radius: Math.max(0, parseFloat(style.borderTopLeftRadius) - border),
        seats: [...felt.querySelectorAll('.seat')].map(rect),
        centre: rect(felt.querySelector('.centre')),
        // (a lost die is drawn at 85%, a dashed mark where a die was: not one in play)
        die: Math.min(...[...felt.querySelectorAll('.seat-dice .die:not(.lost)')]
            .map((die) => die.getBoundingClientRect().width)),
        width: document.documentElement.clientWidth,
        scrollWidth: document.documentElement.scrollWidth,
    });
}))"""


def depth(a: list[float], b: list[float]) -> float:
    """How far two boxes that meet go into each other (the lesser way), in px."""
    across = min(a[2], b[2]) - max(a[0], b[0])
    down = min(a[3], b[3]) - max(a[1], b[1])
    return round(min(across, down), 1)


def faults(seen: dict[str, Any], seats: int) -> list[Any]:
    """What is out of place on the table measured: [] when nothing is."""
    found: list[Any] = []
    assert len(seen["seats"]) == seats, seen
    for plate in seen["seats"]:
        left, top, right, bottom = plate
        corners = ((left, top), (right, top), (left, bottom), (right, bottom))
        if not all(inside_rim(c, seen["inner"], seen["radius"]) for c in corners):
            found.append(("off the felt", plate, seen["inner"], seen["radius"]))
        if overlap(plate, seen["centre"]):
            found.append(("over the middle", depth(plate, seen["centre"]), plate, seen["centre"]))
    for i, one in enumerate(seen["seats"]):
        for other in seen["seats"][i + 1 :]:
            if overlap(one, other):
                found.append(("plates meet", depth(one, other), one, other))
    # (Not by shrinking the dice out of sight: the others' dice are 13 px at the least.)
    if seen["die"] < 13 - 0.01:
        found.append(("dice too small", seen["die"]))
    if seen["scrollWidth"] > seen["width"]:
        found.append(("the page scrolls sideways", seen["scrollWidth"], seen["width"]))
    return found


def sweep(page: Page, seats: int, name: str) -> list[Any]:
    found = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        seen = page.evaluate(MEASURE)
        found += [(width, height, fault) for fault in faults(seen, seats)]
    if found:
        width, height = found[0][0], found[0][1]
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"sweep-{name}-{width}x{height}.png"))
    return [(name, *fault) for fault in found]


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("seats", "dice"), [(6, 5), (6, 10), (4, 5), (4, 10)])
def test_the_table_holds_at_every_window_size(
    server: str, browser: Browser, seats: int, dice: int
) -> None:
    page = table_page(browser, server, seats, dice, "screen")
    # Our turn, a bid to beat: the others' cups and dice backs, the standing bid.
    our_turn(page)
    # Whatever pops in as the bid is drawn comes to rest first.
    page.wait_for_timeout(700)
    found = sweep(page, seats, f"turn-{seats}x{dice}")
    # We call: every cup lifted, every seat's dice shown, the reveal's middle (held there
    # and drawn still while we measure).
    page.set_viewport_size({"width": 1280, "height": 720})
    page.evaluate(HOLD_THE_REVEAL)
    page.click("#call-dudo")
    wait_until(page, "() => !!window.heldReveal && !!document.querySelector('#reveal')")
    page.evaluate("window.dudo.view.revealing.skip()")
    assert page.locator(".felt .seat-dice.revealed").count() >= 2
    found += sweep(page, seats, f"reveal-{seats}x{dice}")
    assert found == [], f"{len(found)} faults:\n" + "\n".join(str(f) for f in found[:20])
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
