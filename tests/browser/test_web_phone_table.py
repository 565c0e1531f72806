"""The table on phones (and the desktop felt) as an outside visual audit saw it, measured in
a real browser (Debian's Chromium through Playwright, as tests/browser/test_web_table.py):

- the bots' speech bubbles during a reveal never cover the call's headline, the bid and the
  count, the verdict, the result or Next round, nor each other, nor another seat's name or
  dice, and stay on the felt: on phones upright and sideways and at 1366 × 768;
- on a phone held sideways, calling Liar! leaves the page where it was: the call, the bid
  and the count and the verdict stay on the screen (focus moves without scrolling);
- the −1 badge at a reveal takes no room in its seat: the seat is the same box with it and
  without it (and it covers neither the seat's dice nor its name), and no seat grows or
  moves from the bidding to the reveal (on big screens too);
- on a phone the seats fill their rows: four seats are two rows of two, five are three and
  a centred two, two are one row of two (no empty cell);
- a name cut with "…" on a seat (or in the game log) has its full name in a title, and a
  name shown whole has none;
- on a phone held sideways at six seats, the others' names of up to eight letters are
  whole (at 568x320 they were cut to three or four: "Hen…", "Tom…"), the turn's too
  (its mark ▶ cut "Bartholo" to "Bartho…").

Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page
from test_web import TIMINGS, chromium, keep_shot, try_click, wait_until
from test_web_table import our_turn, wait_for_lobby

from serverkit import server_process, sqlite_url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("phone")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def table_page(
    browser: Browser,
    server: str,
    bots: list[str | None],
    width: int,
    height: int,
    *,
    motion: str = "no-preference",
    join: dict[int, str] | None = None,
) -> Page:
    """A room made over HTTP (seat 0 ours, a long timer; `join`: seats taken by other
    people by name), its lobby open in a page of that size: a touch screen below 900 px
    wide (a phone, upright or sideways), a mouse above."""
    mobile = width < 900
    context = browser.new_context(
        viewport={"width": width, "height": height},
        is_mobile=mobile,
        has_touch=mobile,
        reduced_motion=motion,  # type: ignore[arg-type]
    )
    page = context.new_page()
    page.set_default_timeout(8000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    body = {"name": "Ana", "seats": len(bots), "bots": bots, "timer": 300}
    answer = httpx.post(f"{server}/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    ticket = answer.json()
    for _, name in sorted((join or {}).items()):
        joined = httpx.post(f"{server}/api/rooms/{ticket['code']}/join", json={"name": name})
        assert joined.status_code in (200, 201), joined.text
    page.goto(server + "/")
    page.evaluate(
        "(t) => localStorage.setItem(`dudo.seat.${t.code}`, JSON.stringify("
        "{token: t.token, seat: t.seat, name: t.name}))",
        ticket,
    )
    page.goto(f"{server}/r/{ticket['code']}")
    wait_for_lobby(page)
    return page


def meets(a: list[float], b: list[float]) -> bool:
    """Whether two boxes [left, top, right, bottom] share more than a pixel's sliver."""
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


# Lines the bots say (en.json and de.json, voice.*), short and long: one on every bot's seat
# at once (the third, the longest German line, on the seat at the felt's top at six seats).
LINES = [
    "Count them up.",
    "Oh! I thought that was true.",
    "Pah, ich habe mehr Würfel verloren, als du je geworfen hast.",
    "Hands off the cups… now lift!",
    "Oh, my heart!",
]
SPEAK = """(lines) => {
    const table = window.dudo.view;
    const bots = table.state.room.seats.flatMap((seat, i) => seat.kind === 'bot' ? [i] : []);
    bots.forEach((seat, i) => table.voices.said.set(seat, [lines[i % lines.length],
                                                             Date.now() + 120000]));
    table.render();
    return bots.length;
}"""
# What a bubble must not cover, each as the box of what is drawn (a paragraph's text, not
# its whole line), and the bubbles' own boxes.
REVEAL_BOXES = """() => {
    const box = (r) => [r.left, r.top, r.right, r.bottom];
    const drawn = (el) => {
        if (el.matches('button, a, .tally')) return box(el.getBoundingClientRect());
        const range = document.createRange();
        range.selectNodeContents(el);
        return box(range.getBoundingClientRect());
    };
    const felt = document.querySelector('.felt');
    const inner = felt.getBoundingClientRect();
    const pieces = [...document.querySelectorAll(
        '#reveal :is(.call-name, .tally, .verdict, .result, #next-round)')]
        .map((el) => ({what: el.className || el.id, box: drawn(el)}));
    const seats = [...document.querySelectorAll('.seat')].map((seat) => ({
        seat: seat.dataset.seat,
        name: drawn(seat.querySelector('.seat-name')),
        dice: box(seat.querySelector('.seat-dice').getBoundingClientRect()),
    }));
    const said = [...document.querySelectorAll('.seat .say')].map((el) => ({
        seat: el.closest('.seat').dataset.seat, text: el.innerText,
        box: box(el.getBoundingClientRect())}));
    return {pieces, seats, said,
            felt: [inner.left + felt.clientLeft, inner.top + felt.clientTop,
                   inner.left + felt.clientLeft + felt.clientWidth,
                   inner.top + felt.clientTop + felt.clientHeight]};
}"""


# Once the reveal's verdict is drawn, the page hears nothing more: a look taken a moment
# later is still at the reveal. (The server starts the next round after its reveal pause;
# on a busy machine the page's count-up took most of it, and a look 0.7 s after the verdict
# found the bots already bidding in the next round: seen in CI.)
HOLD_AFTER_THE_VERDICT = """() => {
    const table = window.dudo.view;
    const receive = table.receive.bind(table);
    table.receive = (message) => {
        if (!document.querySelector('#reveal .verdict')) receive(message);
    };
}"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844), (844, 390), (1366, 768)])
def test_bubbles_keep_off_the_reveal_each_other_and_the_other_seats(
    server: str, browser: Browser, width: int, height: int
) -> None:
    page = table_page(browser, server, [None] + ["easy"] * 5, width, height)
    page.click("#start")
    our_turn(page)
    page.evaluate(HOLD_AFTER_THE_VERDICT)
    page.click("#call-dudo")
    page.wait_for_selector("#reveal .verdict")
    # Every bot speaks at once (more than a game ever has: one line a moment), then a
    # moment for the bid called to land.
    assert page.evaluate(SPEAK, LINES) == 5
    page.wait_for_timeout(700)
    seen = page.evaluate(REVEAL_BOXES)
    page.evaluate("scrollTo(0, 0)")
    keep_shot(page, f"phone-table-bubbles-{width}x{height}")
    assert len(seen["said"]) == 5, seen["said"]
    assert {piece["what"] for piece in seen["pieces"]} >= {"call-name", "verdict"}, seen
    felt = seen["felt"]
    faults = []
    for i, said in enumerate(seen["said"]):
        box = said["box"]
        inside = (
            box[0] >= felt[0] - 1
            and box[1] >= felt[1] - 1
            and box[2] <= felt[2] + 1
            and box[3] <= felt[3] + 1
        )
        if not inside:
            faults.append((said, "leaves the felt", felt))
        faults += [(said, "covers", piece) for piece in seen["pieces"] if meets(box, piece["box"])]
        faults += [
            (said, "covers", other) for other in seen["said"][i + 1 :] if meets(box, other["box"])
        ]
        for seat in seen["seats"]:
            if seat["seat"] == said["seat"]:
                continue
            if meets(box, seat["name"]) or meets(box, seat["dice"]):
                faults.append((said, "covers the seat", seat))
    assert faults == [], faults
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


# Each bubble drawn on its own seat: its box, its text's box, whether it is cut after a
# line ("…") and its type size against the usual.
ON_SEAT = """() => [...document.querySelectorAll('.seat .say[data-side="on"]')].map((say) => {
    const box = (r) => [r.left, r.top, r.right, r.bottom];
    return {text: say.innerText, say: box(say.getBoundingClientRect()),
            line: box(say.querySelector('bdi').getBoundingClientRect()),
            cut: say.hasAttribute('data-clamp'),
            size: parseFloat(getComputedStyle(say).fontSize)};
})"""


@pytest.mark.timeout(180)
def test_a_bubble_on_its_own_seat_is_never_cut_through_a_line(
    server: str, browser: Browser
) -> None:
    """Where no place beside a seat is free (six seats on a phone), a bot's bubble sits on
    its own seat; a long line overflowed it there, its first and last lines cut through
    the middle at the bubble's edges (568x320). Now it is set smaller or cut after a whole
    line with "…"."""
    page = table_page(browser, server, [None] + ["easy"] * 5, 568, 320, motion="reduce")
    page.click("#start")
    our_turn(page)
    on_seat = 0
    for width, height in [(568, 320), (640, 360), (320, 568), (360, 640), (667, 375)]:
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate(SPEAK, LINES) == 5
        page.wait_for_timeout(300)
        keep_shot(page, f"phone-table-bubble-on-seat-{width}x{height}")
        for said in page.evaluate(ON_SEAT):
            on_seat += 1
            say, line = said["say"], said["line"]
            assert say[1] - 1 <= line[1] and line[3] <= say[3] + 1, (width, height, said)
            assert said["size"] >= 0.7 * 12.48 - 0.1, (width, height, said)
    assert on_seat >= 3, on_seat  # (sideways at six seats every long line is on its seat)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


PLACE = """() => {
    const box = (el) => {
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    return {scrollY, height: innerHeight, felt: box(document.querySelector('.felt')),
            call: box(document.querySelector('#reveal .call-name')),
            tallies: box(document.querySelector('#reveal .tallies')),
            verdict: box(document.querySelector('#reveal .verdict')),
            focus: document.activeElement ? (document.activeElement.id
                                             || document.activeElement.className) : null};
}"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("how", ["click", "key"])
def test_calling_liar_on_a_phone_held_sideways_keeps_the_felt_in_view(
    server: str, browser: Browser, how: str
) -> None:
    page = table_page(browser, server, [None] + ["easy"] * 5, 844, 390)
    page.click("#start")
    our_turn(page)
    page.evaluate(HOLD_AFTER_THE_VERDICT)
    page.evaluate("scrollTo(0, 0)")
    before = page.evaluate(PLACE)
    if how == "click":
        page.click("#call-dudo")
    else:
        page.focus("#bid-go")
        page.evaluate("scrollTo(0, 0)")
        before = page.evaluate(PLACE)
        page.keyboard.press("l")
    page.wait_for_selector("#reveal .verdict")
    # The page has drawn the reveal and moved focus (to the actions' place or Next round).
    seen = wait_until(page, f"(() => {{ const p = ({PLACE})(); return p.call ? p : null; }})")
    page.wait_for_timeout(300)
    seen = page.evaluate(PLACE)
    keep_shot(page, f"phone-table-sideways-call-{how}")
    assert seen["scrollY"] == before["scrollY"], (before, seen)
    for what in ("call", "tallies", "verdict"):
        top, bottom = seen[what][1], seen[what][3]
        assert top >= 0 and bottom <= seen["height"], (what, seen)
    assert seen["felt"][1] >= 0, seen
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


BADGE = """() => {
    const box = (el) => {
        const r = el.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    const badge = document.querySelector('.seat .change');
    if (!badge) return null;
    const seat = badge.closest('.seat');
    const name = document.createRange();
    name.selectNodeContents(seat.querySelector('.seat-name'));
    const found = {seat: box(seat), badge: box(badge), name: box(name),
                   dice: [...seat.querySelectorAll('.seat-dice .die')].map(box)};
    badge.style.display = 'none';
    found.without = box(seat);
    badge.style.display = '';
    return found;
}"""


PLATES = """() => Object.fromEntries([...document.querySelectorAll('.seat')].map((seat) => {
    const r = seat.getBoundingClientRect();
    return [seat.dataset.seat, [r.left, r.top, r.right, r.bottom]];
}))"""


@pytest.mark.timeout(120)
# (1920x1080 and 1920x700: the felt grows with a big screen, and there the plates shrank by 5
# to 16 px as the cups, taller than the dice, lifted, and moved by up to 11.)
@pytest.mark.parametrize(
    ("width", "height"), [(1366, 768), (390, 844), (844, 390), (1920, 1080), (1920, 700)]
)
def test_the_minus_one_badge_takes_no_room_in_its_seat(
    server: str, browser: Browser, width: int, height: int
) -> None:
    page = table_page(browser, server, [None] + ["easy"] * 3, width, height, motion="reduce")
    page.click("#start")
    our_turn(page)
    plates = page.evaluate(PLATES)
    page.click("#call-dudo")
    seen = wait_until(page, BADGE, timeout=10000)
    keep_shot(page, f"phone-table-badge-{width}x{height}")
    assert seen["seat"] == seen["without"], seen
    assert not any(meets(seen["badge"], die) for die in seen["dice"]), seen
    assert not meets(seen["badge"], seen["name"]), seen
    # Nor does a seat grow or move as its cup lifts and its dice show: every plate is where
    # it was while we bid.
    assert page.evaluate(PLATES) == plates, (plates, page.evaluate(PLATES))
    page.context.close()


SEATS = """() => {
    const area = document.querySelector('.seats').getBoundingClientRect();
    return {area: [area.left, area.right],
            seats: [...document.querySelectorAll('.seat')].map((seat) => {
                const r = seat.getBoundingClientRect();
                return [r.left, r.top, r.right, r.bottom];
            })};
}"""
ROWS = {2: [2], 3: [3], 4: [2, 2], 5: [3, 2], 6: [3, 3]}


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 640), (844, 390)])
def test_the_seats_fill_their_rows_on_a_phone(
    server: str, browser: Browser, width: int, height: int
) -> None:
    for players, rows in ROWS.items():
        page = table_page(
            browser, server, [None] + ["easy"] * (players - 1), width, height, motion="reduce"
        )
        page.click("#start")
        page.wait_for_selector(".felt .seat")
        seen = page.evaluate(SEATS)
        tops: dict[int, list[list[float]]] = {}
        for seat in seen["seats"]:
            tops.setdefault(round(seat[1]), []).append(seat)
        found = [len(row) for _, row in sorted(tops.items())]
        keep_shot(page, f"phone-table-rows-{players}-{width}x{height}")
        assert found == rows, (players, width, seen)
        left, right = seen["area"]
        for row in tops.values():
            # Centred, with no empty cell: as much room on either side of a row, and a full
            # row reaches both sides of the seats' area.
            before = min(seat[0] for seat in row) - left
            after = right - max(seat[2] for seat in row)
            assert abs(before - after) <= 2, (players, width, row, seen["area"])
            if len(row) == max(rows):
                assert before <= 2 and after <= 2, (players, width, row, seen["area"])
        page.context.close()


NAMES = """() => [...document.querySelectorAll('.seat-name, .history .who')].map((el) => ({
    text: (el.querySelector('bdi') || el).textContent,
    cut: el.scrollWidth > el.clientWidth + 1,
    title: el.getAttribute('title'),
}))"""


@pytest.mark.timeout(120)
def test_a_cut_name_has_its_full_name_in_a_title(server: str, browser: Browser) -> None:
    long = "Maximiliana Montgomery-X"
    page = table_page(
        browser,
        server,
        [None, None, "easy", "easy", "easy", "easy"],
        1366,
        768,
        motion="reduce",
        join={1: long},
    )
    page.click("#start")
    page.wait_for_selector(".felt .seat")
    names = wait_until(page, NAMES)
    keep_shot(page, "phone-table-cut-name-1366")
    cut = [name for name in names if name["cut"]]
    assert any(name["text"] == long for name in cut), names
    for name in names:
        assert name["title"] == (name["text"] if name["cut"] else None), name
    page.context.close()


# Every seat's name on the felt: its text, whether it is cut, whether its avatar shows, and
# whether it has the turn's mark (▶), with the mark's box and the plate's.
SEAT_NAMES = """() => [...document.querySelectorAll('.felt .seat')].map((seat) => {
    const name = seat.querySelector('.seat-name');
    const avatar = name.querySelector('.avatar');
    const mark = seat.querySelector('.turn-mark');
    const box = (el) => {
        const r = el.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    return {
        text: name.querySelector('bdi').textContent,
        me: seat.classList.contains('me'),
        cut: name.scrollWidth > name.clientWidth + 1,
        avatar: !!avatar && avatar.getBoundingClientRect().width > 0,
        mark: mark ? box(mark) : null,
        plate: box(seat),
        size: parseFloat(getComputedStyle(name).fontSize),
    };
})"""
# The seat whose turn it is (null between turns).
TURN = """() => { const game = window.dudo.view.state?.game;
    return game && game.phase === 'bidding' ? {turn: game.turn} : null; }"""


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    ("width", "height"), [(568, 320), (600, 360), (640, 360), (667, 375), (740, 360)]
)
def test_names_are_whole_on_a_phone_held_sideways(
    server: str, browser: Browser, width: int, height: int
) -> None:
    """Six seats on a phone held sideways, two of them people with names of eight wide
    letters, the others bots: every other seat's name is whole, also while it is that
    seat's turn and it carries the turn's mark (▶: it cut "Bartholo" to "Bartho…" at
    568x320). Below 660 px (a plate 63 to 90 px inside) the others' avatars give way for
    it; your own keeps its avatar, and from 660 px every seat does. The mark sits on the
    plate's edge. A name a little too wide ("Mohammed": 4 to 14 px) is drawn smaller, to
    no less than 85% of the type of your own name."""
    page = table_page(
        browser,
        server,
        [None, None, None, "normal", "normal", "normal"],
        width,
        height,
        motion="reduce",
        join={1: "Wolfgang", 2: "Mohammed"},
    )
    page.click("#start")
    page.wait_for_selector(".felt .seat")
    # Wait for a turn of one of the two people (who are away: the table waits for them),
    # bidding on ours, which comes before Wolfgang's.
    end = time.monotonic() + 120
    while (wait_until(page, TURN, timeout=30000) or {}).get("turn") not in (1, 2):
        assert time.monotonic() < end, "the turn never came to Wolfgang or Mohammed"
        try_click(page, "#bid-go")
        page.wait_for_timeout(100)
    marked_names = f"() => ({SEAT_NAMES})().some((name) => name.mark) && ({SEAT_NAMES})()"
    names = wait_until(page, marked_names)
    keep_shot(page, f"phone-table-sideways-names-{width}x{height}")
    assert len(names) == 6, names
    assert {"Wolfgang", "Mohammed"} <= {name["text"] for name in names}, names
    marked = [name for name in names if name["mark"]]
    assert [name["text"] for name in marked] in (["Wolfgang"], ["Mohammed"]), names
    (mine,) = [name for name in names if name["me"]]
    for name in names:
        assert not name["cut"] or name["me"], (width, name)
        assert name["avatar"] == (name["me"] or width >= 660), (width, name)
        assert name["size"] >= 0.85 * mine["size"] - 0.1, (width, name, mine)
    if width < 660:  # the mark on the plate's top left corner, out of the name's line
        mark, plate = marked[0]["mark"], marked[0]["plate"]
        assert mark[1] < plate[1] and mark[0] < plate[0] + 8, (mark, plate)
    page.context.close()
