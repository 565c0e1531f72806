"""The Common Hand bid picker as a player uses it, in a real browser (Debian's Chromium
through Playwright, as tests/browser/test_web_variants.py, against a real server process),
in a game of two against a bot:

- the hand kinds and their faces are buttons (no dropdown), 40 px tall and more on a touch
  screen, the kinds that cannot be bid disabled and never chosen, the one chosen pressed;
  the hand being bid is drawn with dice 28 px and more; nothing overflows sideways, and on
  a phone held upright Bid and Liar! stay on the first screen: at 360×640, 390×844, 844×390
  (a phone held sideways) and 1366×768, with axe;
- a bid made only by tapping those buttons reaches the server as that hand and is read
  in the log;
- by keyboard: Tab and the arrow keys reach the choices, Enter and Space pick, the focus
  ring shows, B bids and L calls Liar!; the digits 1–6 pick the faces as in the quantity
  picker (a hand of two faces: the first, then the second; never a face that cannot be
  bid), and the list of keys says so;
- a turn of ours is on the first screen, the page unscrolled, with two rows of faces
  showing (a full house or two pair): our dice, the hand to beat, the kinds, the faces,
  Bid and Liar!, on phones held sideways (844×390, 740×360, 667×375) as upright (360×640,
  390×844) and at 1366×768; the faces within the picker; and with two, four and six seats
  on every small phone (320×568 to 390×844 upright, 568×320 to 844×390 sideways), the
  choices and Bid and Liar! 40 px and more.

Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect
from test_web import (
    TIMINGS,
    axe_check,
    chromium,
    keep_shot,
    try_click,
    wait_for_news,
    wait_until,
)
from test_web_audit import seat_in_a_room
from test_web_table import state, turn_with_a_standing_bid, wait_for_lobby

from serverkit import server_process, sqlite_url

COMMON_HAND = {"preset": "common-hand", "first_opener": "host"}
SIZES = [(360, 640), (390, 844), (844, 390), (1366, 768)]
TWO_FACES = ("full_house", "two_pair")
CATEGORIES = 8  # the kinds of hand

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("hands")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def hand_table(
    browser: Browser, server: str, width: int, height: int, *, touch: bool = True, seats: int = 2
) -> Page:
    """A Common Hand room of ours against a bot (or ``seats - 1`` of them; we open round 1,
    a long timer), its lobby open in a page of that size: a touch screen (a phone, or a
    touch laptop) or a mouse."""
    context = browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=touch,
        has_touch=touch,
        reduced_motion="reduce",
    )
    page = context.new_page()
    page.set_default_timeout(8000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    heard: list[dict[str, Any]] = []
    page.on("websocket", lambda socket: socket.on("framereceived", lambda f: hear(f, heard)))
    page.bids_heard = heard  # type: ignore[attr-defined]
    seat_in_a_room(page, server, [None] + ["normal"] * (seats - 1), rules=COMMON_HAND)
    return page


def hear(frame: str | bytes, heard: list[dict[str, Any]]) -> None:
    """Keep every bid the server tells the page of. The page's own state holds the events of
    the last update only: a bot that calls at once has moved it on to the next round."""
    try:
        message = json.loads(frame)
    except ValueError:
        return
    events = message.get("events") if isinstance(message, dict) else None
    for event in events or []:
        if event.get("event") == "bid":
            heard.append({key: event.get(key) for key in ("event", "seat", "hand", "faces")})


# The picker as drawn: its controls (tag, what they choose, pressed, disabled, box), the
# dice of the hand being bid, and whether anything reaches past the page's right edge.
PICKER = """() => {
    const picker = document.querySelector('.hand-picker');
    const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width,
                height: r.height}; };
    const control = (el) => ({tag: el.tagName, pressed: el.getAttribute('aria-pressed'),
        disabled: !!el.disabled, kind: el.dataset.handKind || null,
        first: el.dataset.handFirst ? Number(el.dataset.handFirst) : null,
        second: el.dataset.handSecond ? Number(el.dataset.handSecond) : null, ...box(el)});
    return {
        selects: picker.querySelectorAll('select').length,
        kinds: [...picker.querySelectorAll('[data-hand-kind]')].map(control),
        firsts: [...picker.querySelectorAll('[data-hand-first]')].map(control),
        seconds: [...picker.querySelectorAll('[data-hand-second]')].map(control),
        preview: [...picker.querySelectorAll('.hand-dice .die')].map((d) => ({
            face: Number([...d.classList].find((c) => /^f[1-6]$/.test(c))?.slice(1)),
            ...box(d)})),
        widest: Math.max(...[...picker.querySelectorAll('*')].map((el) =>
            el.getBoundingClientRect().right)),
        picker: box(picker), bid: box(document.querySelector('#bid-go')),
        liar: box(document.querySelector('#call-dudo')),
        width: innerWidth, height: innerHeight, scrollY,
        wide: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    };
}"""


def picker(page: Page) -> dict[str, Any]:
    drawn: dict[str, Any] = page.evaluate(PICKER)
    return drawn


# The bids of the game so far, as the server's events (null until there is one).
def bids_heard(page: Page, timeout: float = 8.0) -> list[dict[str, Any]]:
    """The bids the server has told the page of (waiting up to ``timeout`` s for one)."""
    heard: list[dict[str, Any]] = page.bids_heard  # type: ignore[attr-defined]
    end = time.monotonic() + timeout
    while not heard and time.monotonic() < end:
        page.wait_for_timeout(100)
    assert heard, "no bid heard from the server"
    return heard


def legal_hands(page: Page) -> list[dict[str, Any]]:
    hands: list[dict[str, Any]] = state(page)["game"]["legal"]["bids"]
    return hands


def faces_of(hand: dict[str, Any]) -> list[int]:
    return list(hand.get("faces") or [])


def pick(page: Page) -> dict[str, Any]:
    chosen: dict[str, Any] = page.evaluate("window.dudo.view.pick")
    return chosen


def choose(page: Page, selector: str, *, tap: bool = True) -> None:
    """Tap (or click) a choice of the picker and wait for it to show as pressed."""
    button = page.locator(f".hand-picker {selector}")
    if tap:
        button.tap()
    else:
        button.click()
    expect(button).to_have_attribute("aria-pressed", "true")


def check_drawn(page: Page, width: int, height: int) -> dict[str, Any]:
    """What every size must show: buttons, no dropdown, tap-sized, a readable hand, no
    overflow, Bid and Liar! on a phone's first screen."""
    drawn = picker(page)
    where = f"at {width}×{height}"
    assert drawn["selects"] == 0, f"a dropdown in the picker {where}"
    legal = legal_hands(page)
    legal_kinds = {hand["hand"] for hand in legal}
    assert drawn["kinds"], where
    for control in drawn["kinds"] + drawn["firsts"] + drawn["seconds"]:
        assert control["tag"] == "BUTTON", (where, control)
        assert control["pressed"] in ("true", "false"), (where, control)
        assert control["height"] >= 40 and control["width"] >= 40, (where, control)
        assert control["right"] <= width and control["left"] >= 0, (where, control)
    offered = {kind["kind"] for kind in drawn["kinds"] if not kind["disabled"]}
    assert offered == legal_kinds, where
    pressed = [kind["kind"] for kind in drawn["kinds"] if kind["pressed"] == "true"]
    assert pressed == [pick(page)["hand"]], where
    # The hand being bid, drawn: its dice, 28 px and more, the faces it names.
    chosen = pick(page)
    assert drawn["preview"], f"no dice of the hand {where}"
    for die in drawn["preview"]:
        assert die["width"] >= 28 and die["height"] >= 28, (where, die)
    shown = [die["face"] for die in drawn["preview"]]
    for face in faces_of(chosen):
        assert face in shown, (where, chosen, shown)
    # Nothing past the right edge, the page not wider than the screen.
    assert drawn["wide"] <= 0, f"the page scrolls sideways {where}"
    assert drawn["widest"] <= width, f"the picker reaches past the edge {where}"
    assert drawn["picker"]["right"] <= width, where
    # On a phone held upright Bid and Liar! are on the first screen (as with the quantity
    # picker), the page not scrolled.
    if height > width:
        assert drawn["scrollY"] == 0, where
        for name in ("bid", "liar"):
            assert drawn[name]["bottom"] <= height, f"{name} below the first screen {where}"
    return drawn


@pytest.mark.parametrize("width, height", SIZES)
def test_the_choices_are_tap_sized_buttons_and_the_hand_is_drawn_readably(
    server: str, browser: Browser, width: int, height: int
) -> None:
    page = hand_table(browser, server, width, height)
    page.click("#start")
    turn_with_a_standing_bid(page, timeout=60)
    check_drawn(page, width, height)
    # A kind with two faces, if one can still be bid: both rows of faces show.
    drawn = picker(page)
    for kind in TWO_FACES:
        if any(k["kind"] == kind and not k["disabled"] for k in drawn["kinds"]):
            choose(page, f'[data-hand-kind="{kind}"]')
            drawn = check_drawn(page, width, height)
            assert drawn["firsts"] and drawn["seconds"], (kind, drawn)
            break
    keep_shot(page, f"hand-picker-{width}x{height}")
    if width in (390, 1366):
        axe_check(page, f"hand picker {width}x{height}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_a_bid_made_by_tapping_reaches_the_server_and_the_log(
    server: str, browser: Browser
) -> None:
    page = hand_table(browser, server, 390, 844)
    sent: list[dict[str, Any]] = []

    def listen(socket: Any) -> None:
        socket.on("framesent", lambda frame: sent.append(json.loads(frame)))

    page.on("websocket", listen)
    page.reload()  # the room's socket again, listened to from its start
    wait_for_lobby(page)
    page.click("#start")
    page.wait_for_selector(".hand-picker")
    assert len(legal_hands(page)) == 71  # our opening: any hand
    choose(page, '[data-hand-kind="full_house"]')
    choose(page, '[data-hand-first="4"]')
    choose(page, '[data-hand-second="2"]')
    assert pick(page) == {"hand": "full_house", "faces": [4, 2]}
    expect(page.locator("#bid-go")).to_have_text("Bid a full house, 4s over 2s")
    shown = [die["face"] for die in picker(page)["preview"]]
    assert shown == [4, 4, 4, 2, 2]
    # A face of the same row that would repeat the other is not offered (4s over 4s).
    expect(page.locator('.hand-picker [data-hand-second="4"]')).to_be_disabled()
    before = page.evaluate("document.body.dataset.version")
    page.locator("#bid-go").tap()
    wait_for_news(page, before)
    # The server's record of the round (the bot may have called already, and a new round
    # begun): our bid, that hand.
    made = bids_heard(page)
    assert made[0] == {"event": "bid", "seat": 0, "hand": "full_house", "faces": [4, 2]}
    bids = [message for message in sent if message.get("type") == "bid"]
    assert len(bids) == 1
    assert set(bids[0]) == {"type", "id", "bid", "version"}, bids[0]
    assert bids[0]["bid"] == {"hand": "full_house", "faces": [4, 2]}
    expect(page.locator(".history")).to_contain_text("a full house, 4s over 2s")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_kinds_and_faces_that_cannot_be_bid_cannot_be_chosen(server: str, browser: Browser) -> None:
    page = hand_table(browser, server, 360, 640)
    page.click("#start")
    page.wait_for_selector(".hand-picker")
    # Bid the highest pair whenever a pair may be bid: the bot's raise is two pair or more,
    # and a pair is out of reach on our next turn. (If the bot calls each time, we lose the
    # game first: a rematch, and on.)
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "no turn of ours with a pair out of reach"
        look = wait_until(
            page,
            """() => document.querySelector('.hand-picker') ? 'ours'
                : document.querySelector('#next-round:enabled') ? 'next'
                : document.querySelector('.centre.over #rematch') ? 'over' : null""",
            timeout=30000,
        )
        before = page.evaluate("document.body.dataset.version")
        if look == "next":
            page.click("#next-round")
        elif look == "over":
            page.click("#rematch")
            page.wait_for_selector("#start, .hand-picker", timeout=30000)
            if page.locator("#start").count():
                page.click("#start")
        elif any(hand["hand"] == "pair" for hand in legal_hands(page)):
            choose(page, '[data-hand-kind="pair"]')
            choose(page, '[data-hand-first="6"]')
            page.locator("#bid-go").tap()
        else:
            break
        wait_for_news(page, before)
    legal = legal_hands(page)
    drawn = check_drawn(page, 360, 640)
    legal_kinds = {hand["hand"] for hand in legal}
    out = [kind for kind in drawn["kinds"] if kind["kind"] not in legal_kinds]
    assert out, (state(page)["game"]["standing"], legal_kinds)
    for kind in out:
        button = page.locator(f'.hand-picker [data-hand-kind="{kind["kind"]}"]')
        expect(button).to_be_disabled()
        chosen = pick(page)
        button.dispatch_event("click")  # a disabled button clicked anyway: nothing changes
        assert pick(page) == chosen
        expect(button).to_have_attribute("aria-pressed", "false")
    # Each kind that can be bid offers exactly its legal faces.
    for kind in sorted(legal_kinds):
        choose(page, f'[data-hand-kind="{kind}"]')
        wanted = {tuple(faces_of(hand)) for hand in legal if hand["hand"] == kind}
        offered: set[tuple[int, ...]] = set()
        drawn = picker(page)
        if not drawn["firsts"]:
            offered.add(())
        for first in [f["first"] for f in drawn["firsts"] if not f["disabled"]]:
            choose(page, f'[data-hand-first="{first}"]')
            seconds = [s["second"] for s in picker(page)["seconds"] if not s["disabled"]]
            offered |= {(first, second) for second in seconds} if seconds else {(first,)}
        assert offered == wanted, kind
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


FOCUS_RING = """() => { const el = document.activeElement; const s = getComputedStyle(el);
    return {kind: el.dataset.handKind || null, first: el.dataset.handFirst || null,
            id: el.id, outline: s.outlineStyle, width: parseFloat(s.outlineWidth),
            visible: el.matches(':focus-visible')}; }"""


def test_the_picker_by_keyboard(server: str, browser: Browser) -> None:
    page = hand_table(browser, server, 1366, 768, touch=False)
    page.click("#start")
    page.wait_for_selector(".hand-picker")
    expect(page.locator("#bid-go")).to_be_focused()
    # Tab backwards from Bid reaches the faces, then the kinds.
    kinds = page.locator(".hand-picker [data-hand-kind]")
    for _ in range(20):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("!!document.activeElement.dataset.handKind"):
            break
    focused = page.evaluate(FOCUS_RING)
    assert focused["kind"], focused
    assert focused["visible"] and focused["outline"] != "none" and focused["width"] >= 2
    # Home goes to the first kind, the arrows move along the kinds; Enter picks.
    page.keyboard.press("Home")
    expect(kinds.first).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(kinds.nth(2)).to_be_focused()
    page.keyboard.press("Enter")
    expect(kinds.nth(2)).to_have_attribute("aria-pressed", "true")
    three = kinds.nth(2).get_attribute("data-hand-kind")
    assert pick(page)["hand"] == three
    # Tab goes on past the kinds to the faces; Space picks one.
    for _ in range(CATEGORIES):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.dataset.handFirst"):
            break
    assert page.evaluate("document.activeElement.dataset.handFirst") == "1"
    page.keyboard.press("ArrowRight")
    face = int(page.evaluate("document.activeElement.dataset.handFirst"))
    page.keyboard.press(" ")
    assert pick(page) == {"hand": three, "faces": [face]}
    focused = page.evaluate(FOCUS_RING)
    assert focused["first"] == str(face) and focused["visible"] and focused["outline"] != "none"
    # B bids that hand from where the focus is.
    before = page.evaluate("document.body.dataset.version")
    page.keyboard.press("b")
    wait_for_news(page, before)
    made = bids_heard(page)
    assert made[0] == {"event": "bid", "seat": 0, "hand": three, "faces": [face]}
    # L calls Liar! on the bot's raise (if it raised rather than called).
    look = wait_until(
        page,
        """() => document.querySelector('#bid-go') ? 'ours'
            : document.querySelector('#next-round, .centre.over, #reveal') ? 'called' : null""",
        timeout=30000,
    )
    if look == "ours":
        page.keyboard.press("l")
        page.wait_for_selector("#reveal, .centre.over")
        assert state(page)["game"]["last_reveal"]["caller"] == 0
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def press(page: Page, selector: str) -> None:
    """Press a choice of the picker where it is (a click event: nothing scrolls) and wait
    for it to show as pressed."""
    button = page.locator(f".hand-picker {selector}")
    button.dispatch_event("click")
    expect(button).to_have_attribute("aria-pressed", "true")


def turn_with_two_rows_of_faces(page: Page) -> None:
    """A turn of ours with a hand to beat that a hand of two faces (a full house, two pair)
    may still raise: on a turn where none may, we call Liar! and play on."""
    deadline = time.monotonic() + 120
    while True:
        left = deadline - time.monotonic()
        assert left > 0, "no turn of ours where a full house or two pair may be bid"
        turn_with_a_standing_bid(page, timeout=left)
        if {hand["hand"] for hand in legal_hands(page)} & set(TWO_FACES):
            return
        before = page.evaluate("document.body.dataset.version")
        if try_click(page, "#call-dudo"):
            wait_for_news(page, before)


def show_the_most_faces(page: Page) -> str:
    """Press each kind that may be bid and end on the one that shows the most faces (two
    rows of six: a full house or two pair)."""
    shown: dict[str, int] = {}
    for kind in sorted({hand["hand"] for hand in legal_hands(page)}):
        press(page, f'[data-hand-kind="{kind}"]')
        drawn = picker(page)
        shown[kind] = len(drawn["firsts"]) + len(drawn["seconds"])
    most = max(shown, key=lambda kind: shown[kind])
    press(page, f'[data-hand-kind="{most}"]')
    return most


# What a turn needs, as boxes in the window: our dice, the hand to beat, the kinds, the
# faces, Bid and Liar!; each choice of the picker; the picker.
TURN = """() => {
    const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
        return {id: el.id || el.className, left: r.left, top: r.top, right: r.right,
                bottom: r.bottom}; };
    const one = (selector) => box(document.querySelector(selector));
    return {
        needs: {dice: one('.my-dice'), standing: one('#standing'),
                kinds: one('.hand-picker .hand-kinds'), faces: one('.hand-picker .hand-faces'),
                bid: one('#bid-go'), liar: one('#call-dudo')},
        choices: [...document.querySelectorAll('.hand-picker :is([data-hand-kind],'
            + ' [data-hand-first], [data-hand-second])')].map(box),
        picker: one('.hand-picker'), width: innerWidth, height: innerHeight, scrollY,
    };
}"""
FIRST_SCREEN = [(844, 390), (740, 360), (667, 375), (360, 640), (390, 844), (1366, 768)]


@pytest.mark.parametrize("width, height", FIRST_SCREEN)
def test_a_turn_with_two_rows_of_faces_is_on_the_first_screen(
    server: str, browser: Browser, width: int, height: int
) -> None:
    """Held sideways, a phone's picker with two rows of faces put Bid about 50 px under the
    first screen (60 at 844x390, 120 at 740x360) and a row of faces past the picker's
    edge."""
    page = hand_table(browser, server, width, height)
    page.click("#start")
    turn_with_two_rows_of_faces(page)
    most = show_the_most_faces(page)
    drawn = picker(page)
    assert most in TWO_FACES and drawn["firsts"] and drawn["seconds"], (most, drawn)
    page.evaluate("window.scrollTo(0, 0)")  # the first screen
    turn = page.evaluate(TURN)
    where = f"at {width}×{height}, {most}"
    assert turn["scrollY"] == 0, where
    for name, box in turn["needs"].items():
        assert box, f"no {name} {where}"
        assert box["top"] >= 0 and box["bottom"] <= height, f"{name} off screen {where}: {box}"
        assert box["left"] >= 0 and box["right"] <= width, f"{name} past the edge {where}: {box}"
    edge = turn["picker"]
    for box in turn["choices"]:
        assert box["top"] >= 0 and box["bottom"] <= height, (where, box)
        assert edge["left"] <= box["left"] and box["right"] <= edge["right"], (where, box, edge)
    keep_shot(page, f"hand-picker-first-screen-{width}x{height}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


# Small phones, upright and held sideways: the plain picker's turn fits all of them at two to
# six seats (test_web_audit), and so must the hand picker's, with two rows of faces.
SMALL_PHONES = [
    (320, 568),
    (360, 640),
    (375, 667),
    (390, 844),
    (568, 320),
    (640, 360),
    (667, 375),
    (740, 360),
    (844, 390),
]
# Also on the first screen: "Your turn" with the timer, the hand being bid.
TURN_LINE = """() => { const r = document.querySelector('.hand-picker .your-turn')
    .getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left,
    right: r.right}; }"""


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_a_turn_with_two_rows_of_faces_fits_small_phones_at_any_number_of_seats(
    server: str, browser: Browser, seats: int
) -> None:
    """With four to six seats the felt is two rows of seats high: Bid was 30-45 px below
    the first screen at 360x640 and 375x667, about 150 at 320x568 (60 with two seats), and
    held sideways our dice were 150 px below it at 568x320, 25 at 640x360. One turn of ours
    (two rows of faces showing), the window resized through the small phones."""
    page = hand_table(browser, server, *SMALL_PHONES[0], seats=seats)
    page.click("#start")
    turn_with_two_rows_of_faces(page)
    most = show_the_most_faces(page)
    missed: list[str] = []
    for width, height in SMALL_PHONES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        page.evaluate("window.scrollTo(0, 0)")  # the first screen
        turn = page.evaluate(TURN)
        where = f"{seats} seats at {width}×{height}, {most}"
        assert turn["scrollY"] == 0, where
        needs = {**turn["needs"], "turn line": page.evaluate(TURN_LINE)}
        for name, box in needs.items():
            if not box:
                missed.append(f"no {name} {where}")
            elif not (box["top"] >= 0 and box["bottom"] <= height):
                missed.append(f"{name} off screen {where}: {box['top']:.0f}-{box['bottom']:.0f}")
            elif not (box["left"] >= 0 and box["right"] <= width):
                missed.append(f"{name} past the edge {where}: {box}")
        edge = turn["picker"]
        for box in turn["choices"]:
            if not (box["top"] >= 0 and box["bottom"] <= height):
                missed.append(f"a choice off screen {where}: {box}")
            if not (edge["left"] <= box["left"] and box["right"] <= edge["right"]):
                missed.append(f"a choice past the picker {where}: {box}")
        drawn = picker(page)
        assert drawn["firsts"] and drawn["seconds"], where
        for control in drawn["kinds"] + drawn["firsts"] + drawn["seconds"]:
            if control["height"] < 40 or control["width"] < 40:
                missed.append(f"a choice under 40 px {where}: {control}")
        for name in ("bid", "liar"):
            if drawn[name]["height"] < 40:
                missed.append(f"{name} under 40 px {where}: {drawn[name]}")
        keep_shot(page, f"hand-picker-{seats}-seats-{width}x{height}")
    assert not missed, "\n".join(missed)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def pressed(page: Page, which: str, face: int) -> None:
    expect(page.locator(f"#hand-{which}-{face}")).to_have_attribute("aria-pressed", "true")


def test_the_digits_choose_the_hands_faces_and_a_bid_by_keys_is_that_hand(
    server: str, browser: Browser
) -> None:
    """The list of keys promised 1–6 for the face, and in a Common Hand room they did
    nothing."""
    page = hand_table(browser, server, 1366, 768, touch=False)
    page.click("#start")
    page.wait_for_selector(".hand-picker")
    expect(page.locator("#bid-go")).to_be_focused()
    # The list of keys says what the digits do here; no quantity, no calza.
    page.keyboard.press("?")
    dialog = page.locator("#keys-dialog")
    expect(dialog).to_contain_text("pick the hand's face")
    expect(dialog).to_contain_text("the first face, then the second")
    expect(dialog).not_to_contain_text("dice in your bid")
    expect(dialog).not_to_contain_text("calza")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(page.locator("#bid-go")).to_be_focused()
    # A pair (the picker's first pick): a digit is its face.
    assert pick(page)["hand"] == "pair"
    face = 6 if pick(page)["faces"] != [6] else 5
    page.keyboard.press(str(face))
    pressed(page, "first", face)
    assert pick(page) == {"hand": "pair", "faces": [face]}
    # Two pair, chosen by keys: the first digit is the higher pair, the next the lower.
    for _ in range(20):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("!!document.activeElement.dataset.handKind"):
            break
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page.locator("#kind-two_pair")).to_have_attribute("aria-pressed", "true")
    before = pick(page)
    expect(page.locator("#hand-first-1")).to_be_disabled()
    page.keyboard.press("1")  # aces are never the higher pair: nothing changes
    assert pick(page) == before
    page.keyboard.press("4")
    pressed(page, "first", 4)
    assert pick(page)["faces"][0] == 4
    chosen = pick(page)
    expect(page.locator("#hand-second-5")).to_be_disabled()
    page.keyboard.press("5")  # 4s over 5s is no hand: the second stays
    assert pick(page) == chosen
    page.keyboard.press("2")
    pressed(page, "second", 2)
    assert pick(page) == {"hand": "two_pair", "faces": [4, 2]}
    page.keyboard.press("3")  # the first again
    pressed(page, "first", 3)
    assert pick(page) == {"hand": "two_pair", "faces": [3, 2]}
    page.keyboard.press("1")
    pressed(page, "second", 1)
    assert pick(page) == {"hand": "two_pair", "faces": [3, 1]}
    # A full house: the three, then the pair (never the three's face again).
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page.locator("#kind-full_house")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("6")
    pressed(page, "first", 6)
    page.keyboard.press("6")  # 6s over 6s is no hand
    pressed(page, "first", 6)
    expect(page.locator("#hand-second-6")).to_be_disabled()
    expect(page.locator("#hand-second-6")).to_have_attribute("aria-pressed", "false")
    page.keyboard.press("2")
    pressed(page, "second", 2)
    assert pick(page) == {"hand": "full_house", "faces": [6, 2]}
    # With the focus in a row of faces, a digit is that row's.
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('.hand-face-row')?.id") == "hand-second":
            break
    page.keyboard.press("4")
    pressed(page, "second", 4)
    page.keyboard.press("3")
    pressed(page, "second", 3)
    pressed(page, "first", 6)
    assert pick(page) == {"hand": "full_house", "faces": [6, 3]}
    # B bids it: the server's hand is the one the keys chose.
    version = page.evaluate("document.body.dataset.version")
    page.keyboard.press("b")
    wait_for_news(page, version)
    made = bids_heard(page)
    assert made[0] == {"event": "bid", "seat": 0, "hand": "full_house", "faces": [6, 3]}
    expect(page.locator(".history")).to_contain_text("a full house, 6s over 3s")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
