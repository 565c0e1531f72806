"""Tables with many dice (a room's rules allow 1 to 10 each), in a real browser (Debian's
Chromium through Playwright, against a real server process): at 6, 8 and 10 dice a player,
with 2, 4 and 6 seats, from the smallest phone to a big screen,

- every seat's dice (and its cup) stay inside its own plate, while bidding and at the
  reveal (the revealed dice shown: the server's reveal is held on its way in while the
  sizes are measured);
- no two plates meet, no plate meets the middle of the table, the plates stay inside the
  felt's rim;
- our own dice stay inside their tray and the page never scrolls sideways;
- the dice stay legible: the others' dice at least 13 px (their backs, beside a cup; as with
  five dice) and 14 px once revealed on a phone, our own at least 28 px there.

Before, a seat's dice ran in one line beside its cup (out of the plate, over the next seat),
and at the reveal they wrapped into a plate grown over the middle or the seat below.
Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page
from test_web import TIMINGS, chromium, keep_shot, wait_until
from test_web_audit import seat_in_a_room
from test_web_table import our_turn

from serverkit import server_process, sqlite_url

# Phones upright and two held sideways (a touch screen, its own device width), then a
# tablet, laptops and big screens (a mouse).
PHONE = [(320, 568), (360, 640), (390, 844), (844, 390), (568, 320)]
SCREEN = [
    (768, 1024),
    (1024, 600),
    (900, 600),
    (1280, 720),
    (1366, 768),
    (1920, 1080),
    (2560, 1440),
]

# Seats, dice each, and the screens: every count of seats and of dice on both kinds of
# screen, the worst (six seats of ten dice) on both.
CASES = [
    (6, 10, "phone"),
    (6, 10, "screen"),
    (4, 8, "phone"),
    (2, 10, "phone"),
    (6, 6, "phone"),
    (2, 8, "screen"),
    (4, 10, "screen"),
    (6, 8, "screen"),
    (4, 6, "screen"),
    (2, 6, "phone"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("dice")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def table_page(
    browser: Browser, server: str, seats: int, dice: int, kind: str, locale: str | None = None
) -> Page:
    """A room of ours with bots, `dice` each and a long timer, open on a phone or a screen
    (at its first size) and started: in the browser's `locale` if given (the page follows
    it), else in the browser's own (English)."""
    width, height = (PHONE if kind == "phone" else SCREEN)[0]
    mobile = kind == "phone"
    context = browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=mobile,
        has_touch=mobile,
        locale=locale,
    )
    page = context.new_page()
    page.set_default_timeout(8000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    seat_in_a_room(page, server, [None] + ["easy"] * (seats - 1), rules={"starting_dice": dice})
    page.click("#start")
    return page


# The next reveal stays on the table: once a state with a reveal is drawn, what the server
# sends after it (the next round) is held back, so the revealed dice can be measured at
# every size. The reveal is then drawn still (as after a click on the felt).
HOLD_THE_REVEAL = """() => {
    const table = window.dudo.view;
    const receive = table.receive.bind(table);
    window.heldReveal = null;
    table.receive = (message) => {
        if (window.heldReveal) { window.heldReveal.push(message); return; }
        receive(message);
        const game = message.type === 'state' && message.game;
        if (game && game.phase !== 'bidding' && game.last_reveal) window.heldReveal = [];
    };
}"""

# Our dice shake as they are dealt: measured where they come to rest.
STILL = """() => document.querySelectorAll('.my-dice .die')
    .forEach((die) => die.getAnimations().forEach((shake) => shake.finish()))"""

# Every seat's plate and what is drawn in its dice row, the middle, the felt inside its
# rim, our own dice and their tray, and how wide the page is, in px.
MEASURE = """() => {
    const box = (el) => {
        const r = el.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    const felt = document.querySelector('.felt');
    const outer = felt.getBoundingClientRect();
    const tray = document.querySelector('.my-dice');
    return {
        seats: [...document.querySelectorAll('.felt .seat')].map((seat) => ({
            seat: seat.dataset.seat,
            plate: box(seat),
            pieces: [...seat.querySelectorAll('.seat-dice :is(.die, .cup)')]
                .filter((el) => getComputedStyle(el).display !== 'none')
                .map((el) => ({what: el.classList.contains('cup') ? 'cup'
                    : el.classList.contains('hidden') ? 'back' : 'face', box: box(el),
                    size: parseFloat(getComputedStyle(el).width)})),
        })),
        centre: box(document.querySelector('.felt .centre')),
        felt: [outer.left + felt.clientLeft, outer.top + felt.clientTop,
               outer.left + felt.clientLeft + felt.clientWidth,
               outer.top + felt.clientTop + felt.clientHeight],
        tray: tray ? box(tray) : null,
        mine: tray ? [...tray.querySelectorAll('.die')].map(box) : [],
        width: document.documentElement.clientWidth,
        height: window.innerHeight,
        scrollWidth: document.documentElement.scrollWidth,
    };
}"""


def inside(inner: list[float], outer: list[float], slack: float = 0.5) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def meets(a: list[float], b: list[float]) -> bool:
    """Whether two boxes [left, top, right, bottom] share more than a pixel's sliver."""
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


def faults(seen: dict[str, Any], seats: int, dice: int, phone: bool, revealed: bool) -> list[Any]:
    """What is wrong with the table measured: [] when every piece is in its place."""
    found: list[Any] = []
    assert len(seen["seats"]) == seats, seen
    for seat in seen["seats"]:
        plate = seat["plate"]
        # While bidding every die is drawn: the backs of those in play and of those lost.
        if not revealed:
            assert len([p for p in seat["pieces"] if p["what"] != "cup"]) == dice, seat
        for piece in seat["pieces"]:
            if not inside(piece["box"], plate):
                found.append(("out of its plate", seat["seat"], piece, plate))
            least = 14 if piece["what"] == "face" and phone else 13
            if piece["what"] != "cup" and piece["size"] < least - 0.01:
                found.append(("too small", seat["seat"], piece))
        if not inside(plate, seen["felt"]):
            found.append(("off the felt", seat["seat"], plate, seen["felt"]))
        if meets(plate, seen["centre"]):
            found.append(("over the middle", seat["seat"], plate, seen["centre"]))
    plates = [seat["plate"] for seat in seen["seats"]]
    for i, one in enumerate(plates):
        for other in plates[i + 1 :]:
            if meets(one, other):
                found.append(("plates meet", one, other))
    if seen["tray"]:
        if not (seen["tray"][0] >= -0.5 and seen["tray"][2] <= seen["width"] + 0.5):
            found.append(("our tray is wider than the screen", seen["tray"]))
        for die in seen["mine"]:
            if not inside(die, seen["tray"]):
                found.append(("our die is out of its tray", die, seen["tray"]))
            if phone and die[2] - die[0] < 28 - 0.01:
                found.append(("our die is too small", die))
        # From 600 px our dice are one row in a tray on the first screen (a tenth die once
        # wrapped alone onto a second row below it, at 1024x600).
        if not phone and seen["mine"]:
            if len({round(die[1]) for die in seen["mine"]}) > 1:
                found.append(("our dice take more than one row", seen["mine"]))
            if seen["tray"][3] > seen["height"] + 0.5:
                found.append(("our tray is below the first screen", seen["tray"], seen["height"]))
    if seen["scrollWidth"] > seen["width"]:
        found.append(("the page scrolls sideways", seen["scrollWidth"], seen["width"]))
    return found


def look_at_every_size(page: Page, sizes: list[tuple[int, int]], name: str, **what: Any) -> None:
    found = []
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        page.evaluate("scrollTo(0, 0)")
        page.evaluate(STILL)
        keep_shot(page, f"many-dice-{name}-{width}x{height}")
        seen = page.evaluate(MEASURE)
        found += [(width, height, fault) for fault in faults(seen, **what)]
    assert found == [], "\n".join(str(fault) for fault in found[:12])


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("seats", "dice", "kind"), CASES)
def test_every_seats_dice_stay_on_its_plate(
    server: str, browser: Browser, seats: int, dice: int, kind: str
) -> None:
    page = table_page(browser, server, seats, dice, kind)
    sizes = PHONE if kind == "phone" else SCREEN
    phone = kind == "phone"
    name = f"{seats}x{dice}-{kind}"
    # Our turn, a bid to beat: the others' cups and dice backs, our own dice.
    our_turn(page)
    look_at_every_size(
        page, sizes, f"turn-{name}", seats=seats, dice=dice, phone=phone, revealed=False
    )
    # We call: every cup lifted, every seat's dice shown (held there while we measure).
    page.set_viewport_size({"width": sizes[0][0], "height": sizes[0][1]})
    page.evaluate(HOLD_THE_REVEAL)
    page.click("#call-dudo")
    wait_until(page, "() => !!window.heldReveal && !!document.querySelector('#reveal')")
    page.evaluate("window.dudo.view.revealing.skip()")
    assert page.locator(".felt .seat-dice.revealed").count() >= 2
    look_at_every_size(
        page, sizes, f"reveal-{name}", seats=seats, dice=dice, phone=phone, revealed=True
    )
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
