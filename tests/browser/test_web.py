"""The browser client in a real browser: Playwright driving Debian's Chromium.

A real server process (tests/serverkit.py) with short bot and reveal delays, so the flow a
person sees still happens: rooms made and joined by code and by link, whole games to a
winner, a reload mid-round, the practice round, two screen sizes and an accessibility scan.
Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from serverkit import server_process, sqlite_url

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# The browser tests' server: quick bots, a short pause at each reveal (1.5 s: most tests
# play whole games against bots, and a game is mostly its reveals' pauses; the modules that
# watch a reveal count up take REVEAL_TIMINGS).
TIMINGS = {
    "DUDO_BOT_DELAY": "0.15",
    "DUDO_REVEAL_PAUSE": "1.5",
    "DUDO_SEED_WINDOW": "0.1",
    "DUDO_GRACE": "30",
    "DUDO_QUICK_FILL": "0.5",
    # A browser suite shares a busy machine: a slow SQLite write is no outage here.
    "DUDO_WRITE_PATIENCE": "10",
}
# A reveal's count-up (a cup every few hundred ms) and what waits for it (the log, the
# voice) need the pause a table of six takes to count up, with time to look.
REVEAL_TIMINGS = {**TIMINGS, "DUDO_REVEAL_PAUSE": "2.5"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("web")), env=TIMINGS) as (base, _):
        yield base


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium driven by Playwright (every browser test module's fixture)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (CI does, in .ci/run)")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def new_page(browser: Browser, width: int = 1280, height: int = 800, locale: str = "en-US") -> Page:
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(8000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    return page


# The table redraws its whole DOM with every state, so nothing read from the page stays
# true for long: a button or tip seen a moment ago may be gone (or replaced) by the next
# step. Hence each look at the page is one read (a single evaluate or count), each wait is
# on a condition (expect, wait_for_selector, wait_until), and each click is a locator click
# that auto-waits a moment and is allowed to find its target gone.
#
# No page.wait_for_function: Playwright runs its predicate through eval inside the page,
# and the site's Content-Security-Policy (script-src 'self', no 'unsafe-eval') rightly
# refuses that. The tests keep the real policy (no bypass_csp), so they see what users see.


def phase(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.phase || ''"))


def version(page: Page) -> str:
    return str(page.evaluate("document.body.dataset.version || ''"))


def tip_on_screen(page: Page) -> str:
    """The name of the practice tip shown now, '' if none (one read, no waiting)."""
    return str(page.evaluate("document.querySelector('#tip')?.dataset.tip || ''"))


# The call of the reveal on screen if this page's player made it ('dudo' or 'calza'), else
# null: a bot may have called first, and then our click was refused.
OUR_CALL = """() => {
    const state = window.dudo.view.state;
    const reveal = state && state.game && state.game.last_reveal;
    return reveal && reveal.caller === state.you.seat ? reveal.call : null;
}"""


def try_click(page: Page, selector: str, timeout: float = 1500) -> bool:
    """Click the element if it is on screen and enabled now; False if it is not.

    The count only decides whether to try: the click auto-waits (a redraw that puts the
    same button back is fine) and, if a state took the button away meanwhile, gives up
    after `timeout` ms instead of failing the test."""
    target = page.locator(selector).and_(page.locator(":enabled")).filter(visible=True).first
    if not target.count():
        return False
    try:
        target.click(timeout=timeout)
    except PlaywrightTimeout:
        return False
    return True


def wait_until(page: Page, script: str, timeout: float = 8000) -> Any:
    """Evaluate `script` in the page until it gives a truthy value, and return that value
    (polled from here: see above why not page.wait_for_function)."""
    end = time.monotonic() + timeout / 1000
    while True:
        value = page.evaluate(script)
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(
                f"not true within {timeout / 1000:g} s: {script}\n"
                f"the page then showed: {page_summary(page)}"
            )
        page.wait_for_timeout(50)


def page_summary(page: Page) -> str:
    """What a failing wait saw: the state's version, the socket and the page's text, so a
    rare failure in CI says what the table was doing."""
    return str(
        page.evaluate("""() => ({
        version: document.body.dataset.version,
        socket: window.dudo && window.dudo.view && window.dudo.view.socket
            ? window.dudo.view.socket.readyState : null,
        text: (document.querySelector('main') || document.body).innerText.slice(0, 800),
    })""")
    )


def wait_for_news(page: Page, seen_version: str, timeout: float = 4000) -> bool:
    """Wait until the page shows a state newer than `seen_version` (the server answered)."""
    try:
        expect(page.locator("body")).not_to_have_attribute(
            "data-version", seen_version, timeout=timeout
        )
    except AssertionError:
        return False
    return True


def play_turn(
    page: Page, calls: dict[str, int], want_calza: bool = True, next_round: bool = True
) -> None:
    """One step of a simple player: calza once if offered, else Liar!, else the lowest bid."""
    for call in ("calza", "dudo"):
        if call == "calza" and (not want_calza or calls.get("calza")):
            continue
        if try_click(page, f"#call-{call}"):
            try:
                page.wait_for_selector("#reveal, .centre.over", timeout=4000)
            except PlaywrightTimeout:
                return  # the table moved on first (the server said so in a toast)
            made = page.evaluate(OUR_CALL)
            if made:  # counted only if the reveal is of our call, not a bot's just before
                calls[made] = calls.get(made, 0) + 1
                calls["reveals"] = calls.get("reveals", 0) + 1
            return
    before = version(page)
    if try_click(page, "#bid-go"):
        calls["bids"] = calls.get("bids", 0) + 1
        # Until the server answers, the page still shows the turn just played: wait, so
        # the next step does not bid again on a stale view.
        wait_for_news(page, before)
        return
    if next_round:
        try_click(page, "#next-round")


def keep_shot(target: Page | Locator, name: str, **options: Any) -> None:
    """A picture of the page (or one element) for a person to look at, in
    test-artifacts/NAME.jpg. It also waits, as any screenshot does, for the page to draw a
    frame, which the measures that follow some of these rely on. JPEG, not PNG: the browser
    suite takes about 1,200 screenshots, and a 3840x2160 page took 2.4 s to encode as a PNG
    against 0.3 s as a JPEG (1920x1080: 0.58 s against 0.12 s)."""
    target.screenshot(path=str(ARTIFACTS / f"{name}.jpg"), type="jpeg", quality=80, **options)


def check_fits(page: Page, name: str) -> None:
    keep_shot(page, name, full_page=True)
    overflow = page.evaluate("""() => {
        const width = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll('body *')].filter((el) => {
            const box = el.getBoundingClientRect();
            return box.width > 0 && (box.right > width + 1 || box.left < -1)
                && !el.closest('.sr-only, .skip') && getComputedStyle(el).position !== 'fixed';
        }).map((el) => el.tagName + '.' + el.className);
        return {scroll: document.documentElement.scrollWidth - width, wide: wide.slice(0, 5)};
    }""")
    assert overflow["scroll"] <= 0 and not overflow["wide"], (name, overflow)


def axe_check(page: Page, name: str, skip: frozenset[str] = frozenset()) -> None:
    """axe with every rule it has turned on (best practices, AAA contrast and experimental
    rules too), every violation counted whatever its impact; `skip` names rules left out
    (each use says why)."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    page.evaluate(axe.axe_script)
    rules = page.evaluate("axe.getRules().map((rule) => rule.ruleId)")
    assert len(rules) > 80, rules
    results = axe.run(
        page,
        options={
            "rules": {rule: {"enabled": rule not in skip} for rule in rules},
            "resultTypes": ["violations"],
        },
    )
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in results.response["violations"]
    ]
    assert not bad, (name, bad)


def create_room(
    page: Page,
    base: str,
    name: str,
    seats: int,
    bots: dict[int, str],
    options: dict[str, Any] | None = None,
    preset: str = "perudo",
) -> str:
    page.goto(base + "/")
    page.fill("#name", name)
    page.select_option("#preset", preset)
    if options:
        page.click("#house-rules summary")
        for option, value in options.items():
            if page.locator(f"select#opt-{option}").count():
                page.select_option(f"#opt-{option}", str(value))
            else:
                page.fill(f"#opt-{option}", str(value))
    page.select_option("#seats", str(seats))
    for index in range(1, seats):
        page.select_option(f'[data-seat="{index}"]', bots.get(index, ""))
    page.click("#create")
    page.wait_for_url(re.compile(r"/r/[A-Z]{4}$"))
    # A room's first page loads the table's modules: on a busy machine more than 8 s.
    page.wait_for_selector(".share-code", timeout=30000)
    return page.inner_text(".share-code").strip()


def test_three_players_play_a_whole_game(server: str, browser: Browser) -> None:
    ana, ben, cho = (new_page(browser) for _ in range(3))
    code = create_room(ana, server, "Ana", 5, {3: "easy", 4: "easy"}, {"starting_dice": 3})
    # A bad action: starting with open seats is refused, in the page's words for the
    # server's error code (not_ready).
    ana.click("#start")
    expect(ana.locator(".toast")).to_contain_text("Every seat needs a player")
    # Ben joins by code on the home page, Cho by the link.
    ben.goto(server + "/")
    ben.fill("#name", "Ben")
    ben.fill("#join-code", code.lower())
    ben.click("#join")
    ben.wait_for_url(f"**/r/{code}")
    cho.goto(f"{server}/r/{code}")
    cho.fill("#name", "Cho")
    cho.click("#take-seat")
    expect(ana.locator(".seat-list")).to_contain_text("Cho")
    expect(ana.locator(".seat-list")).to_contain_text("Ben")
    ana.click("#start")
    for page in (ana, ben, cho):
        page.wait_for_selector(".felt")
    # A reaction everyone sees.
    ben.click("#emote-0")
    expect(cho.locator('.seat[data-seat="1"] .bubble')).to_have_text("👍")
    ana.wait_for_selector(".my-dice")
    keep_shot(ana, "game-desktop", full_page=True)
    calls: dict[str, int] = {}
    deadline = time.monotonic() + 120
    while not all(phase(page) == "over" for page in (ana, ben, cho)):
        assert time.monotonic() < deadline, calls
        for page in (ana, ben, cho):
            play_turn(page, calls)
    assert calls.get("calza") == 1 and calls.get("reveals", 0) >= 2, calls
    for page in (ana, ben, cho):
        expect(page.locator(".centre.over")).to_contain_text("wins")
        expect(page.locator("#rematch")).to_be_visible()
        assert not page.js_errors  # type: ignore[attr-defined]
    keep_shot(ana, "game-over", full_page=True)
    # A spectator arriving now sees the table, without seat or actions.
    watcher = new_page(browser)
    watcher.goto(f"{server}/r/{code}")
    watcher.click("#watch")
    expect(watcher.locator(".badge", has_text="Watching")).to_be_visible()
    expect(watcher.locator(".centre.over")).to_contain_text("wins")
    expect(watcher.locator("#rematch")).to_have_count(0)
    for page in (ana, ben, cho, watcher):
        page.context.close()


def open_safely(page: Page) -> bool:
    """Open the round with a bid our own cup makes true (one of a face we hold), so a
    call on it can never cost us a die: a test that waits for turns of ours must not be
    put out of the game by its own openings. False if there is no opening to make."""
    if not page.locator("#bid-go").is_visible() or page.locator("#standing").count():
        return False
    dice = [int(d) for d in page.get_attribute(".my-dice", "data-dice") or ""]
    face = next((d for d in dice if d != 1), 2)  # only aces: wild where the rules say so
    q_down = page.locator("#q-down")
    while q_down.is_enabled():
        q_down.click()
    if not try_click(page, f"#face-{face}"):
        return False
    return try_click(page, "#bid-go")


def test_reload_keeps_seat_and_dice_and_only_legal_bids(server: str, browser: Browser) -> None:
    page = new_page(browser)
    create_room(page, server, "Dee", 3, {1: "easy", 2: "easy"}, preset="tavern")
    page.click("#start")
    # Wait for a turn of ours that has a standing bid (bots move in 0.15 s). Each look is
    # one read of the page, taken only once it is our turn: a turn of ours with a bid to
    # beat, else we open (or, with no raise left, call) and look again once the server
    # has answered. From then on the table waits for us, so what follows reads a still page.
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline
        look = wait_until(
            page,
            """() => {
            if (!document.querySelector('#bid-go, #call-dudo')) return null;
            return {raise: !!(document.querySelector('#standing')
                              && document.querySelector('#bid-go')),
                    version: document.body.dataset.version};
        }""",
            timeout=20000,
        )
        if look["raise"]:
            break
        if open_safely(page) or try_click(page, "#call-dudo"):
            wait_for_news(page, look["version"], timeout=20000)
    # Only legal raises can be entered: tavern has no bids on ones, the lowest quantity
    # cannot be lowered, and faces that do not beat the standing bid are disabled.
    game = page.evaluate("JSON.parse(document.body.dataset.legal)")
    lowest = game["bids"][0]
    expect(page.locator("#face-1")).to_be_disabled()
    q_down = page.locator("#q-down")
    for _ in range(len(game["bids"])):
        if not q_down.is_enabled():
            break
        q_down.click()
    expect(q_down).to_be_disabled()
    expect(page.locator("#q-value")).to_have_text(str(lowest[0]))
    for face in range(1, 7):
        button = page.locator(f"#face-{face}")
        if [lowest[0], face] in game["bids"]:
            expect(button).to_be_enabled()
        else:
            expect(button).to_be_disabled()
    dice = page.get_attribute(".my-dice", "data-dice")
    seat = page.get_attribute(".seat.me", "data-seat")
    assert dice and seat
    page.reload()
    expect(page.locator(".my-dice")).to_have_attribute("data-dice", dice)
    expect(page.locator(".seat.me")).to_have_attribute("data-seat", seat)
    # A dropped connection comes back by itself, to the same seat.
    page.evaluate("window.dudo.view.socket.close()")
    wait_until(
        page,
        "window.dudo.view.socket.readyState === WebSocket.OPEN"
        " && !document.querySelector('.badge.warn')",
    )
    expect(page.locator(".my-dice")).to_have_attribute("data-dice", dice)
    expect(page.locator("#bid-go")).to_be_visible()
    page.keyboard.press("b")  # keyboard play: B bids the chosen raise
    # Screen readers hear it (the live region), even if a bot calls at once.
    expect(page.locator("#live")).to_contain_text("Dee bids")
    page.context.close()


def test_practice_needs_no_name_hides_sharing_and_talk_and_moves_on_with_play(
    server: str, browser: Browser
) -> None:
    """A beginner's practice round: started without typing a name (no error toast over the
    page), with nothing of a room for friends (a code and link to share, table talk, emotes,
    bot-talk settings), and its tips moving on when the player plays instead of pressing
    Got it."""
    page = new_page(browser, 390, 844)
    page.goto(server + "/")
    page.click("#practice")
    expect(page.locator('#tip[data-tip="welcome"]')).to_be_visible(timeout=30000)
    expect(page.locator(".toast")).to_have_count(0)
    expect(page.locator(".room-title")).to_have_text("Practice round")
    expect(page.locator(".felt")).to_contain_text("Player")
    for clutter in ("#copy-link", ".room-title .code", "#chat-form", "#voice-toggle", ".emotes"):
        expect(page.locator(clutter)).to_have_count(0)
    # Our first turn, the welcome still up: we bid without pressing Got it.
    wait_until(page, "() => !!document.querySelector('#bid-go:enabled')", timeout=30000)
    assert tip_on_screen(page) == "welcome"
    before = version(page)
    page.click("#bid-go")
    wait_for_news(page, before)
    expect(page.locator('#tip[data-tip="welcome"]')).to_have_count(0)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_practice_round_from_start_to_end(server: str, browser: Browser) -> None:
    page = new_page(browser, 360, 740)
    page.goto(server + "/")
    page.fill("#name", "Newcomer")
    page.click("#practice")
    expect(page.locator('#tip[data-tip="welcome"]')).to_be_visible()
    seen: set[str] = set()
    order: list[str] = []
    calls: dict[str, int] = {}
    # Something for the player to do: a tip to read, a turn, a reveal, or the end.
    something = page.locator("#tip, #bid-go, #call-dudo, #next-round, .centre.over").first
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, (order, calls)
        expect(something).to_be_attached(timeout=20000)
        # One read of the tip: it can go between two reads (the reveal's tip goes when the
        # next round is dealt), so its name is never fetched from the element afterwards.
        name = tip_on_screen(page)
        if name == "over":  # shown only once the game is over and every other tip is read
            break
        if name:
            if name not in seen:
                seen.add(name)
                order.append(name)
                if name in ("raise", "reveal"):
                    keep_shot(page, f"practice-{name}", full_page=True)
            # Only the OK of the tip just read: a state arriving in between can put
            # another tip in its place, and that one must not be dismissed unseen. If the
            # tip went by itself, the click finds nothing and the loop looks again.
            if try_click(page, f'#tip[data-tip="{name}"] #tip-ok'):
                expect(page.locator(f'#tip[data-tip="{name}"]')).to_have_count(0)
            continue
        play_turn(page, calls, want_calza=False, next_round="reveal" in seen)
    expect(page.locator("body")).to_have_attribute("data-phase", "over")
    expect(page.locator(".centre.over")).to_contain_text("wins")
    expect(page.locator("#tip")).to_contain_text("Practice done")
    assert {"welcome", "your_dice", "reveal"} <= seen, (order, calls)
    assert seen & {"open", "raise"}, seen
    # "Liar!" is explained the first time we may call it: on a turn that faces a bid (the
    # turn "raise" explains). A game of random dice may put us out before such a turn.
    assert "liar" in seen or "raise" not in seen, (order, calls)
    assert calls.get("bids", 0) + calls.get("dudo", 0) >= 1, (order, calls)
    check_fits(page, "practice-over-360")
    axe_check(page, "game over")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_layout_and_accessibility(server: str, browser: Browser) -> None:
    for width, height in ((360, 740), (1280, 800)):
        page = new_page(browser, width, height)
        page.goto(server + "/")
        page.wait_for_selector("#create")
        check_fits(page, f"home-{width}")
        if width == 360:
            axe_check(page, "home")
        code = create_room(page, server, "Eve", 6, {i: "easy" for i in range(1, 5)})
        check_fits(page, f"lobby-{width}")
        if width == 360:
            guest = browser.new_page(viewport={"width": 360, "height": 740})
            guest.goto(f"{server}/r/{code}")
            guest.wait_for_selector("#take-seat")
            check_fits(guest, "join-360")
            axe_check(guest, "join")
            guest.close()
        page.click("#fill-bots")
        expect(page.locator(".seat-list em")).to_have_count(0)
        if width == 360:
            axe_check(page, "lobby")
        page.click("#start")
        # Measure and scan on a turn of ours: the table then waits for us and stands still
        # (with bots playing it redraws every 0.15 s, under the scan's feet).
        expect(page.locator("#bid-go")).to_be_visible(timeout=30000)
        expect(page.locator(".my-dice")).to_be_visible()
        check_fits(page, f"table-{width}")
        if width == 360:
            axe_check(page, "table")
        page.goto(server + "/rules?preset=dudo&starting_dice=3")
        check_fits(page, f"rules-{width}")
        if width == 360:
            axe_check(page, "rules")
        page.context.close()


def test_languages_follow_the_browser(server: str, browser: Browser) -> None:
    page = new_page(browser, locale="de-DE")
    page.goto(server + "/")
    expect(page.locator("#quick")).to_have_text("Schnelles Spiel")
    page.select_option("#lang-select", "es")
    expect(page.locator("#quick")).to_have_text("Partida rápida")
    page.reload()
    expect(page.locator("#quick")).to_have_text("Partida rápida")
    page.fill("#join-code", "abcd")
    page.select_option("#lang-select", "de")
    page.set_viewport_size({"width": 360, "height": 740})
    page.fill("#name", "Zoë")
    # The page drawn again in German keeps what was typed, before the switch and after.
    expect(page.locator("#quick")).to_have_text("Schnelles Spiel")
    expect(page.locator("#name")).to_have_value("Zoë")
    expect(page.locator("#join-code")).to_have_value("abcd")
    page.click("#practice")
    expect(page.locator('#tip[data-tip="welcome"] h2')).to_have_text("Willkommen bei Liar's Dice")
    page.click('#tip[data-tip="welcome"] #tip-ok')
    expect(page.locator('#tip[data-tip="welcome"]')).to_have_count(0)
    expect(page.locator(".my-dice")).to_be_visible()
    check_fits(page, "table-de-360")
    # The rules sheet follows the browser's language too, and switches on request.
    page.goto(server + "/rules?preset=dudo&starting_dice=3")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("h2").first).to_have_text("Das Spiel")
    check_fits(page, "rules-de-360")
    page.click("a[hreflang=es]")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator("h2").first).to_have_text("El juego")
    page.context.close()


def test_quick_game_fills_with_bots_and_starts(server: str, browser: Browser) -> None:
    page = new_page(browser, 360, 740)
    page.goto(server + "/")
    page.fill("#name", "Quick")
    page.click("#quick")
    page.wait_for_selector(".felt", timeout=15000)
    expect(page.locator(".seat.me")).to_contain_text("Quick")
    page.context.close()
