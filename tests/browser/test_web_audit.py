"""What a demanding player's audit of the client found, measured in a real browser (Debian's
Chromium through Playwright, against a real server process), as classes of defects rather
than single cases:

- no page is wider than the screen at any width from a small phone (320) to a big screen;
- on a phone (a touch screen), every control is a target of at least 40 × 40 px, on the
  pages of a finished game too;
- on a phone, no text on the table is under 12 px;
- on a phone held sideways, your turn (your dice, the bid to beat, whose turn, the timer,
  the picker and the calls) fits the first screen, at two and at six seats;
- on a phone held upright, down to the smallest (320 × 568), your turn fits the first
  screen too, at two and at six seats;
- a bot's speech bubble stays on the felt: it never covers the page's bar or the room's
  head (their controls), nor at game over a button of the head or the middle (rematch, a
  new room, the game's page), the winner's heading or how the last reveal went;
- at game over on a phone held sideways the page stays where the player was, the winner's
  heading on the screen if the felt was (a late move of 24-30 px is still open: see there);
- on a short wide screen (1024 × 600 and 768) the seats keep off the felt's middle while
  you play, at the reveal and at game over;
- in the practice round on a phone held sideways, the tip and the picker are both on the
  first screen during your turn;
- the rules sheet reads in the app's own type on screen (it had a serif of its own under
  sans-serif headings), and in a serif on paper.

Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect
from test_web import TIMINGS, chromium, keep_shot, wait_until
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
    keep_shot(page, f"audit-{name}", full_page=True)


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
LANDSCAPE = [(568, 320), (640, 360), (667, 375), (740, 360), (844, 390), (915, 412)]


# Phones held upright, from the smallest (an iPhone SE of 2016) to a big one.
PORTRAIT = [(320, 568), (360, 640), (375, 667), (390, 844), (412, 915)]


@pytest.mark.parametrize("players", [2, 6])
def test_your_turn_fits_the_first_screen_of_a_phone_held_upright(
    server: str, browser: Browser, players: int
) -> None:
    from test_web_table import MUST_SEE, on_first_screen, our_turn

    page = phone(browser, *PORTRAIT[0])
    seat_in_a_room(page, server, [None] + ["easy"] * (players - 1), rules={"calza": "any_time"})
    page.click("#start")
    our_turn(page, calza=players > 2)
    must_see = MUST_SEE if players > 2 else {k: v for k, v in MUST_SEE.items() if k != "calza"}
    for width, height in PORTRAIT:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        page.evaluate("scrollTo(0, 0)")
        shot(page, f"turn-{players}-{width}x{height}")
        on_first_screen(page, must_see)
        assert small_targets(page) == [], (width, height)
    page.context.close()


# A palifico round's felt as the server sends it (the face stays, ones not wild), drawn
# over the state of a turn of ours: the round itself comes only after a die is lost.
PALIFICO = """() => {
    const view = window.dudo.view;
    Object.assign(view.state.game, {palifico: true, wild: false});
    view.render();
    return document.querySelectorAll('.table-info .badge').length;
}"""


def test_a_palifico_turn_fits_the_first_screen_of_a_phone_held_upright(
    server: str, browser: Browser
) -> None:
    """The felt of a palifico round has a line more (its badge): with six seats on the
    smallest phone a fresh-clone CI run saw Bid 16 px below the screen in one."""
    from test_web_table import MUST_SEE, on_first_screen, our_turn

    page = phone(browser, *PORTRAIT[0])
    seat_in_a_room(page, server, [None] + ["easy"] * 5, rules={"calza": "any_time"})
    page.click("#start")
    our_turn(page, calza=True)
    for width, height in PORTRAIT:
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate(PALIFICO) >= 1
        expect(page.locator(".table-info .badge.pal")).to_be_visible()
        page.wait_for_timeout(150)
        page.evaluate("scrollTo(0, 0)")
        shot(page, f"palifico-turn-{width}x{height}")
        on_first_screen(page, MUST_SEE)
    page.context.close()


@pytest.mark.parametrize("players", [2, 6])
def test_your_turn_fits_the_first_screen_of_a_phone_held_sideways(
    server: str, browser: Browser, players: int
) -> None:
    from test_web_table import MUST_SEE, on_first_screen, our_turn

    page = phone(browser, *LANDSCAPE[0])
    seat_in_a_room(page, server, [None] + ["easy"] * (players - 1), rules={"calza": "any_time"})
    page.click("#start")
    our_turn(page, calza=players > 2)
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
    our_turn(page, calza=True)
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


# The bubbles of what the bots say (voice.js) with their boxes, and the boxes of the page's
# bar, the room's head and the felt; null until a bot speaks.
BUBBLES = """() => {
    // A bubble, a button or a link whole; the winner's heading and the result by their
    // words, not the full-width line they stand on (a bubble beside the words hides nothing).
    const box = (el) => {
        let b = el.getBoundingClientRect();
        if (el.matches('.big, .result')) {
            const words = document.createRange();
            words.selectNodeContents(el);
            b = words.getBoundingClientRect();
        }
        return [b.left, b.top, b.right, b.bottom];
    };
    const said = [...document.querySelectorAll('.seat .say')];
    if (!said.length) return null;
    return {said: said.map((el) => ({text: el.innerText, box: box(el)})),
            bar: box(document.querySelector('.bar')),
            head: box(document.querySelector('.room-head')),
            felt: box(document.querySelector('.felt'))};
}"""


def meets(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844), (320, 568), (640, 360)])
def test_a_bots_speech_bubble_stays_on_the_felt_on_a_phone(
    server: str, browser: Browser, width: int, height: int
) -> None:
    from test_web_table import our_turn

    page = phone(browser, width, height)
    seat_in_a_room(page, server, [None, "easy", "easy"])
    page.click("#start")
    our_turn(page)
    # A reveal is a moment a bot always speaks at (voice.js): the caller if a bot, else
    # another bot, or the bot that lost a die. Every seat is on the first row here.
    page.click("#call-dudo")
    seen = wait_until(page, BUBBLES)
    page.evaluate("scrollTo(0, 0)")
    seen = page.evaluate(BUBBLES) or seen
    shot(page, f"bot-talk-{width}x{height}")
    felt = seen["felt"]
    for said in seen["said"]:
        box = said["box"]
        assert not meets(box, seen["bar"]), (said, "covers the bar", seen["bar"])
        assert not meets(box, seen["head"]), (said, "covers the room's head", seen["head"])
        inside = (
            box[0] >= felt[0] - 1
            and box[1] >= felt[1] - 1
            and box[2] <= felt[2] + 1
            and box[3] <= felt[3] + 1
        )
        assert inside, (said, "leaves the felt", felt)
    page.context.close()


# At game over: the bots' bubbles (a winning line, or what they say about the last reveal)
# and what a player wants to see or press then: every button of the room's head and of the
# middle (rematch, a new room, the game's page), the winner's heading ("Bo wins!") and how
# the last reveal went; null before the game is over or while no bot speaks.
OVER_BUBBLES = """() => {
    if (document.body.dataset.phase !== 'over') return null;
    // A bubble, a button or a link whole; the winner's heading and the result by their
    // words, not the full-width line they stand on (a bubble beside the words hides nothing).
    const box = (el) => {
        let b = el.getBoundingClientRect();
        if (el.matches('.big, .result')) {
            const words = document.createRange();
            words.selectNodeContents(el);
            b = words.getBoundingClientRect();
        }
        return [b.left, b.top, b.right, b.bottom];
    };
    const said = [...document.querySelectorAll('.seat .say')];
    if (!said.length) return null;
    const buttons = [...document.querySelectorAll(
        '.room-head :is(button, a, select), .centre.over :is(button, a, .big, .result)')]
        .filter((el) => el.getBoundingClientRect().width > 0);
    return {said: said.map((el) => ({text: el.innerText, box: box(el)})),
            buttons: buttons.map((el) => ({what: el.id || el.textContent.trim(), box: box(el)}))};
}"""


@pytest.mark.parametrize("players", [3, 6])
@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844), (320, 568), (640, 360)])
def test_a_bots_speech_bubble_keeps_off_the_buttons_and_the_winner_at_game_over_on_a_phone(
    server: str, browser: Browser, width: int, height: int, players: int
) -> None:
    from test_web_table import play_to_the_end

    page = phone(browser, width, height)
    # One die each: a reveal or a few end the game, and a bot always speaks at its end
    # (voice.js: the winner if a bot, else one about the last reveal), its bubble on screen
    # for a few seconds of the game-over screen.
    seat_in_a_room(page, server, [None] + ["easy"] * (players - 1), rules={"starting_dice": 1})
    page.click("#start")
    play_to_the_end(page)
    seen = wait_until(page, OVER_BUBBLES)
    page.evaluate("scrollTo(0, 0)")
    shot(page, f"over-bot-talk-{players}-{width}x{height}")
    # Every look while a bubble is up (one read each: the page is redrawn as bubbles come
    # and go).
    covered = []
    while seen:
        covered += [
            (said["text"], said["box"], button["what"], button["box"])
            for said in seen["said"]
            for button in seen["buttons"]
            if meets(said["box"], button["box"])
        ]
        page.wait_for_timeout(100)
        seen = page.evaluate(OVER_BUBBLES)
    assert covered == [], covered
    page.context.close()


# The game's end held back on its way in (the server has ended the game; the page still
# shows the last round) until the test lets it through: the place the player is at when it
# is drawn is then known, without a race with the bots. Every frame's phase and scroll
# offset is kept, from a frame callback.
HOLD_THE_END = """() => {
    const table = window.dudo.view;
    const receive = table.receive.bind(table);
    window.held = null;
    table.receive = (message) => {
        if (window.held) { window.held.push(message); return; }
        if (message.type === 'state' && message.game && message.game.phase === 'over') {
            window.held = [message];
            return;
        }
        receive(message);
    };
    window.letTheEndIn = () => { const held = window.held; table.receive = receive;
                                 held.forEach(receive); };
    window.scrolls = [];
    const look = () => {
        window.scrolls.push([document.body.dataset.phase, scrollY]);
        requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
}"""
PLACES = """() => {
    const box = (el) => { const b = el.getBoundingClientRect(); return [b.top, b.bottom]; };
    return {scrollY, height: innerHeight, felt: box(document.querySelector('.felt')),
            max: document.documentElement.scrollHeight - innerHeight};
}"""


@pytest.mark.parametrize("place", ["top", "bottom"])
def test_the_page_stays_where_the_player_was_at_game_over_on_a_phone_held_sideways(
    server: str, browser: Browser, place: str
) -> None:
    from test_web import play_turn

    # At the top the winner's heading is on the screen; at the bottom (the chat, the log)
    # the felt is off it, and the game's end puts the standings, the series and the next
    # game above the log: the browser's scroll anchoring kept the log in place, so the
    # page jumped down by all of that (about 700 px), the heading further off the screen.
    page = phone(browser, 640, 360)
    seat_in_a_room(page, server, [None, "easy", "easy"], rules={"starting_dice": 1})
    page.evaluate(HOLD_THE_END)
    page.click("#start")
    calls: dict[str, int] = {}
    for _ in range(200):
        if page.evaluate("!!window.held"):
            break
        play_turn(page, calls, want_calza=False)
    assert page.evaluate("!!window.held"), calls
    page.evaluate("scrollTo(0, 0)" if place == "top" else "scrollTo(0, 1e6)")
    before = page.evaluate(PLACES)
    if place == "bottom":
        assert before["felt"][1] <= 0, before  # the felt is off the screen
    page.evaluate("letTheEndIn()")
    wait_until(page, "document.body.dataset.phase === 'over'")
    page.wait_for_timeout(1000)  # frames to look at, not a time limit
    # Read before the screenshot: a full page's screenshot moves the page's scroll offset
    # as its frames see it (measured: 477 px to 400 and 490 while one was taken).
    scrolls = page.evaluate("window.scrolls")
    shot(page, f"over-place-{place}-640x360")
    ended = [y for phase, y in scrolls if phase == "over"]
    assert ended, scrolls
    moved = [y - before["scrollY"] for y in ended]
    if place == "bottom":
        # The big moves are gone (before: up by 45 to 80 px, or down by about 700), but a
        # second or so after the end the page still moves down by 24 to 30 px as the side
        # column grows by 23 px, with no script scrolling it and scroll anchoring off: not
        # understood yet, so held to less than the smallest of the old moves.
        assert all(abs(move) < 40 for move in moved), (before, sorted(set(moved)))
    else:
        assert set(moved) == {0}, (before, sorted(set(moved)))
    if place == "top":
        heading = page.evaluate(
            "(() => { const b = document.querySelector('.centre.over .big')"
            ".getBoundingClientRect(); return [b.top, b.bottom]; })()"
        )
        assert heading[0] >= 0 and heading[1] <= 360, heading
    page.context.close()


@pytest.mark.parametrize(("width", "height"), [(1024, 768), (1024, 600), (768, 1024)])
def test_a_bots_speech_bubble_stays_on_the_felt_of_a_tablet(
    server: str, browser: Browser, width: int, height: int
) -> None:
    # The oval: at three seats both bots sit at its top, under the room's head.
    test_a_bots_speech_bubble_stays_on_the_felt_on_a_phone(server, browser, width, height)


TURN_TIPS = ("open", "raise", "wild", "liar", "calza", "odds", "palifico")
LOOK = """() => ({tip: document.querySelector('#tip')?.dataset.tip || '',
    turn: !!document.querySelector('#bid-go'),
    standing: !!document.querySelector('#standing'),
    over: !!document.querySelector('.centre.over')})"""
"""What the practice page shows now: its tip, whether it is your turn, a standing bid, the
game over."""
DISMISS = """(tip) => document.querySelector(`#tip[data-tip="${tip}"] #tip-ok`)?.click()"""
"""Press the OK of tip ``tip`` if it is still shown (nothing otherwise), in one step."""
BID = """() => { const go = document.querySelector('#bid-go');
    if (document.querySelector('#tip') || !go || go.disabled) return false;
    go.click(); return true; }"""
"""Make the picker's bid if it is your turn and no tip is up, in one step: between a look and
a click a tip can come up or a bot's calza out of turn end the round (a click then waited 8 s
for a button that was gone: once in five runs)."""


@pytest.mark.parametrize(("width", "height"), [(640, 360), (844, 390), (568, 320)])
def test_practice_tip_and_picker_fit_a_phone_held_sideways(
    server: str, browser: Browser, width: int, height: int
) -> None:
    from test_web_table import MUST_SEE, on_first_screen

    page = phone(browser, width, height)
    page.goto(server + "/")
    page.fill("#name", "Newcomer")
    page.click("#practice")
    page.wait_for_selector("#tip", timeout=30000)
    seen: list[str] = []
    trace: list[str] = []  # what each look saw, for the failure's message
    games = 1
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # every tip of a turn the game brings (palifico's is
        look = page.evaluate(LOOK)  # the tallest)
        trace.append(f"{len(trace)}: {look}")
        if set(seen) >= set(TURN_TIPS) or (look["over"] and (len(seen) >= 3 or games == 4)):
            break
        if look["over"]:
            # A game can end before your turn ever met a standing bid (you opened each round
            # and lost it, until out): the tips of raising are still to come, so play on.
            page.click("#rematch")
            page.wait_for_function("() => !document.querySelector('.centre.over')", timeout=30000)
            games += 1
        elif look["turn"] and look["tip"] in TURN_TIPS:
            page.evaluate("scrollTo(0, 0)")
            page.wait_for_timeout(100)
            shot(page, f"practice-{look['tip']}-{width}x{height}")
            # No timer in practice, no calza in its first round; nothing to call yet when
            # we open the round.
            needed = {
                what: where
                for what, where in MUST_SEE.items()
                if what not in ("the timer", "calza")
                and (look["standing"] or what not in ("the standing bid", "liar"))
            }
            on_first_screen(page, {"tip": "#tip", "its button": "#tip-ok", **needed})
            seen.append(look["tip"])
            page.click(f"#tip[data-tip={look['tip']}] #tip-ok")  # your turn waits for you
        elif look["tip"]:
            # Not your turn: the tip may go before a click lands (the reveal's when the next
            # round rolls, calza's when the round ends), and a click that waited for a
            # #tip-ok dismissed the next tip instead (your turn's, unseen) or timed out when
            # none came. Only the tip seen, and only if it is still there, in one step.
            page.evaluate(DISMISS, look["tip"])
        elif look["turn"]:
            page.evaluate(BID)
        page.wait_for_timeout(100)
    assert len(seen) >= 3, (seen, games, "\n".join(trace[-60:]))
    page.context.close()


# A tablet held sideways (1024 × 768) and a short laptop or tablet (1024 × 600): the table
# is the oval with the side column beside it, the felt at its shortest.
SHORT_WIDE = [(1024, 768), (1024, 600)]


@pytest.mark.parametrize("players", [2, 6])
def test_seats_keep_off_the_middle_of_a_short_wide_table(
    server: str, browser: Browser, players: int
) -> None:
    from test_web_table import MUST_SEE, RIM, on_first_screen, our_turn, overlap

    page = phone(browser, *SHORT_WIDE[0])
    seat_in_a_room(page, server, [None] + ["easy"] * (players - 1), rules={"calza": "any_time"})
    page.click("#start")
    our_turn(page, calza=players > 2)
    must_see = MUST_SEE if players > 2 else {k: v for k, v in MUST_SEE.items() if k != "calza"}
    for width, height in SHORT_WIDE:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        page.evaluate("scrollTo(0, 0)")
        shot(page, f"short-wide-{players}-{width}x{height}")
        table = page.evaluate(RIM)
        for seat in table["seats"]:
            assert not overlap(seat, table["centre"]), (width, height, seat, table["centre"])
        on_first_screen(page, must_see)
        assert small_targets(page) == [], (width, height)
    # The reveal's middle (the call, the bid called and the count, the verdict, the next
    # round's button) is taller, and the seats' dice show their faces.
    page.click("#call-dudo")
    page.wait_for_selector(".centre.reveal .tally-label")
    for width, height in reversed(SHORT_WIDE):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        table = page.evaluate(RIM)
        for seat in table["seats"]:
            assert not overlap(seat, table["centre"]), ("reveal", width, height, seat)
    page.context.close()


@pytest.mark.parametrize("players", [2, 4, 6])
def test_seats_keep_off_the_middle_of_a_short_wide_table_at_game_over(
    server: str, browser: Browser, players: int
) -> None:
    from test_web_table import RIM, overlap, play_to_the_end

    # The game-over middle (round and dice, the winner, how the last reveal went, then
    # Rematch, New room and the game's page, 40 px high on a touch screen) is the tallest,
    # and the seats show the last reveal's dice and who lost a die.
    page = phone(browser, *SHORT_WIDE[1])
    seat_in_a_room(page, server, [None] + ["easy"] * (players - 1), rules={"starting_dice": 1})
    page.click("#start")
    play_to_the_end(page)
    for width, height in SHORT_WIDE:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(150)
        page.evaluate("scrollTo(0, 0)")
        shot(page, f"short-wide-over-{players}-{width}x{height}")
        table = page.evaluate(RIM)
        assert len(table["seats"]) == players
        for seat in table["seats"]:
            assert not overlap(seat, table["centre"]), ("over", width, height, seat, table)
        for i, one in enumerate(table["seats"]):
            for other in table["seats"][i + 1 :]:
                assert not overlap(one, other), ("over", width, height, one, other)
    page.context.close()


# What a TV across the room (3840 × 2160 at 1×) shows of the table: the felt's and the side
# column's boxes, the own and the others' dice, in px.
TV_TABLE = """() => {
    const box = (s) => {
        const b = document.querySelector(s).getBoundingClientRect();
        return [b.left, b.top, b.right, b.bottom];
    };
    const size = (s) => document.querySelector(s).getBoundingClientRect().width;
    return {felt: box('.felt'), side: box('.side'), mine: size('.my-dice .die'),
            theirs: size('.seat .seat-dice .die')};
}"""


def test_a_tv_at_1x_is_filled_by_the_table_and_its_type_grows(
    server: str, browser: Browser
) -> None:
    from test_web_table import MUST_SEE, on_first_screen, open_page, our_turn

    width, height = 3840, 2160
    page = open_page(browser, width, height)
    # A TV's pixels are seen from a sofa: the type is half as big again as at 2560 (15 px).
    for path in ["/", "/me", "/my-games", "/rules"]:
        page.goto(server + path)
        page.wait_for_selector("main :is(h1, h2), h1")
        assert page.evaluate(SMALLEST_TEXT) >= 22, path
    page.set_viewport_size({"width": 2560, "height": 1440})
    page.goto(server + "/rules")
    assert page.evaluate(SMALLEST_TEXT) >= 15, "/rules at 2560"
    page.set_viewport_size({"width": width, "height": height})
    seat_in_a_room(page, server, [None] + ["easy"] * 5, rules={"calza": "any_time"})
    page.click("#start")
    our_turn(page, calza=True)
    page.wait_for_timeout(150)
    shot(page, "tv-turn")
    seen = page.evaluate(TV_TABLE)
    felt, side = seen["felt"], seen["side"]
    # The table is no island: felt and side column span most of the screen both ways.
    assert side[2] - felt[0] >= 0.8 * width, seen
    assert felt[3] - felt[1] >= 0.7 * height, seen
    assert seen["mine"] >= 100 and seen["theirs"] >= 70, seen
    assert page.evaluate(SMALLEST_TEXT) >= 22
    on_first_screen(page, MUST_SEE)
    page.context.close()


def test_the_rules_sheet_reads_in_the_app_s_type_on_screen_and_a_serif_on_paper(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(server + "/")
    app_type = page.evaluate("getComputedStyle(document.body).fontFamily")
    page.goto(server + "/rules")
    page.wait_for_selector("main h1")
    type_of = "(selector) => getComputedStyle(document.querySelector(selector)).fontFamily"
    assert "sans-serif" in app_type
    for part in ("main section p", "main h1", "main h2", "nav"):
        assert page.evaluate(type_of, part) == app_type, part
    page.emulate_media(media="print")
    printed = page.evaluate(type_of, "main section p")
    assert "serif" in printed and "sans-serif" not in printed, printed
    page.context.close()
