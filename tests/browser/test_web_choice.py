"""The table people choose (issue 22), in a real browser against a real server: a quick
game that says what happens, practice tips on a phone's first screen, leaving the table,
the keyboard, and the small things (one Rules picker, the join page's bots, ...).

The server fills quick tables after 5 seconds here, so the countdown is there to see.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, expect
from test_web import TIMINGS, axe_check, chromium, keep_shot, wait_until
from test_web_table import open_page

from serverkit import server_process, sqlite_url

QUICK_TIMINGS = {**TIMINGS, "DUDO_QUICK_FILL": "5"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("choice")), env=QUICK_TIMINGS) as (
        base,
        _,
    ):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def test_a_quick_game_counts_down_to_the_bots_and_offers_no_private_room(
    server: str, browser: Browser
) -> None:
    page = open_page(browser, 360, 740)
    page.goto(server + "/")
    page.fill("#name", "Quinn")
    page.click("#quick")
    countdown = page.locator("#quick-countdown")
    expect(countdown).to_have_text(
        re.compile(
            r"Bots fill the open seats and the game starts "
            r"in [1-5] seconds?\."
        )
    )
    lobby = page.locator(".quick-lobby")
    expect(lobby).to_contain_text("Quinn")
    # Nothing of a private room: no link to send, no code to tell, no host's controls.
    for absent in (
        ".share-code",
        "#share-link",
        "#share-qr",
        "#start",
        "#fill-bots",
        ".quick-lobby select",
        "#room-settings-form",
    ):
        expect(page.locator(absent)).to_have_count(0)
    expect(lobby).not_to_contain_text("friends")
    keep_shot(page, "quick-lobby-360")
    axe_check(page, "quick lobby")
    # The bots come when the countdown ends, and the game starts by itself.
    page.wait_for_selector(".felt", timeout=15000)
    seats = page.evaluate("window.dudo.view.state.room.seats.map((s) => s.kind)")
    assert seats.count("bot") == 3, seats
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_a_quick_game_can_start_at_once_with_bots(server: str, browser: Browser) -> None:
    page = open_page(browser, 1280, 720, locale="de-DE")
    page.goto(server + "/")
    page.fill("#name", "Uli")
    page.click("#quick")
    expect(page.locator("#quick-countdown")).to_contain_text("Bots")
    page.click("#quick-now")
    page.wait_for_selector(".felt", timeout=3000)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


TURN_TIPS = ("open", "raise", "wild", "liar", "calza", "odds", "palifico")


def test_practice_tip_for_your_turn_is_on_a_phones_first_screen(
    server: str, browser: Browser
) -> None:
    from test_web_table import MUST_SEE, on_first_screen

    page = open_page(browser, 360, 640)
    page.goto(server + "/")
    page.fill("#name", "Newcomer")
    page.click("#practice")
    expect(page.locator('#tip[data-tip="welcome"]')).to_be_visible()
    seen: list[str] = []
    while len(seen) < 2:
        look = page.evaluate("""() => ({tip: document.querySelector('#tip')?.dataset.tip || '',
            turn: !!document.querySelector('#bid-go')})""")
        if look["turn"] and look["tip"] in TURN_TIPS:
            page.evaluate("scrollTo(0, 0)")
            page.wait_for_timeout(100)
            keep_shot(page, f"practice-tip-{look['tip']}-360x640")
            # The tip and everything for the turn on the first screen.
            standing = page.locator("#standing").count() > 0
            # No timer in practice, no calza in Perudo's first round; nothing to call yet
            # when we open the round.
            needed = {
                what: where
                for what, where in MUST_SEE.items()
                if what not in ("the timer", "calza")
                and (standing or what not in ("the standing bid", "liar"))
            }
            on_first_screen(page, {"tip": "#tip", "its button": "#tip-ok", **needed})
            seen.append(look["tip"])
            axe_check(page, f"practice tip {look['tip']}")
            page.click("#tip-ok")
            continue
        if look["tip"]:
            page.click("#tip-ok")
            continue
        if look["turn"]:
            page.click("#bid-go")
        page.wait_for_timeout(100)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


NAME_WHOLE = """() => {
    const name = document.querySelector('.seat.me .seat-name');
    const box = name.getBoundingClientRect();
    const seat = name.closest('.seat').getBoundingClientRect();
    return {text: name.innerText, cut: name.scrollWidth > name.clientWidth + 1,
            inside: box.left >= seat.left - 1 && box.right <= seat.right + 1};
}"""


@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844), (1280, 720)])
def test_your_own_name_is_never_cut(server: str, browser: Browser, width: int, height: int) -> None:
    from test_web_table import our_turn, seated

    name = "Maximiliana Montgomery"
    page, _ = seated(
        browser,
        server,
        [None, "easy", "easy", "easy", "easy", "easy"],
        name=name,
        width=width,
        height=height,
    )
    page.click("#start")
    our_turn(page, standing=False)
    look = page.evaluate(NAME_WHOLE)
    assert name in look["text"] and not look["cut"] and look["inside"], look
    keep_shot(page, f"own-name-{width}x{height}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def room_seats(server: str, code: str) -> list[dict[str, object]]:
    import httpx

    seats: list[dict[str, object]] = httpx.get(f"{server}/api/rooms/{code}").json()["seats"]
    return seats


def test_leaving_mid_game_asks_first_and_a_bot_plays_on(server: str, browser: Browser) -> None:
    from test_web_table import seated, wait_until

    page, code = seated(
        browser,
        server,
        [None, "easy", "easy"],
        rules={"preset": "perudo", "starting_dice": 2},
        width=390,
        height=844,
        motion="reduce",
    )
    axe_check(page, "lobby with leave")
    page.click("#start")
    page.wait_for_selector(".my-dice")
    page.click("#leave")
    dialog = page.locator("#leave-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("A bot plays your seat to the end of this game")
    expect(page.locator("#leave-no")).to_be_focused()
    keep_shot(page, "leave-dialog-390")
    axe_check(page, "leave dialog")
    page.keyboard.press("Escape")  # stays: nothing sent
    expect(dialog).to_have_count(0)
    expect(page.locator("#leave")).to_be_focused()
    assert room_seats(server, code)[0]["kind"] == "human"
    page.click("#leave")
    page.click("#leave-yes")
    page.wait_for_url(f"{server}/")
    assert page.evaluate(f"localStorage.getItem('dudo.seat.{code}')") is None
    seat = room_seats(server, code)[0]
    assert seat.get("left") is True and seat["bot_playing"] is True, seat
    # The game goes on without us; a bot keeps the seat afterwards.
    watch = open_page(browser, 1280, 720)
    watch.goto(f"{server}/r/{code}?watch=1")
    wait_until(watch, "document.body.dataset.phase === 'over'", timeout=60000)
    assert room_seats(server, code)[0]["kind"] == "bot"
    for each in (page, watch):
        assert not each.js_errors  # type: ignore[attr-defined]
        each.context.close()


def test_a_player_out_of_dice_can_leave_or_start_a_new_game(server: str, browser: Browser) -> None:
    from test_web_table import join_page, seated, wait_for_news, wait_until

    ours, code = seated(
        browser,
        server,
        [None, None, "easy"],
        width=360,
        height=740,
        rules={"preset": "perudo", "starting_dice": 1, "calza": "off", "first_opener": "host"},
        motion="reduce",
    )
    guest = join_page(browser, server, code, "Ben")
    ours.click("#start")
    while True:
        look = wait_until(
            ours,
            """() => {
            const s = window.dudo.view.state, g = s && s.game;
            if (!g || (g.phase === 'roll' && !g.last_reveal)) return null;
            if (g.phase === 'over') return {kind: 'over', version: s.version};
            if (!g.dice_counts[0]) return {kind: 'out'};
            if (g.phase === 'bidding' && g.turn === 0 && g.legal.bids.length)
                return {kind: 'ours', version: s.version};
            return null;
        }""",
            timeout=30000,
        )
        if look["kind"] == "out":
            break
        if look["kind"] == "over":
            ours.click("#rematch")
            wait_for_news(ours, str(look["version"]))
            continue
        # Our highest bid, and Ben calls it: most likely we lose our one die. When that bid was
        # true, Ben lost his instead and is out: the bot answers our bids until the game ends
        # (then a rematch) or we are out.
        ben_in = ours.evaluate("window.dudo.view.state.game.dice_counts[1] > 0")
        ours.evaluate(
            "(() => { const b = window.dudo.view.state.game.legal.bids;"
            " const [q, f] = b[b.length - 1]; window.dudo.view.act('bid', "
            "{quantity: q, face: f}); })()"
        )
        if not ben_in:
            wait_for_news(ours, str(look["version"]))
            continue
        wait_until(guest, "window.dudo.view.state.game.legal.calls.includes('dudo')")
        guest.evaluate("window.dudo.view.act('call', {call: 'dudo'})")
        wait_for_news(ours, str(look["version"] + 1))
    choices = ours.locator("#out-choices")
    expect(choices).to_be_visible()
    expect(choices).to_contain_text("Watch the others finish")
    keep_shot(ours, "out-choices-360")
    axe_check(ours, "out of dice")
    ours.click("#leave-new")
    ours.wait_for_url(f"{server}/")
    expect(ours.locator("#quick")).to_be_visible()
    assert room_seats(server, code)[0].get("left") is True
    for each in (ours, guest):
        assert not each.js_errors  # type: ignore[attr-defined]
        each.context.close()


FOCUS_AT_NEXT_VERSION = """() => {
    const before = document.body.dataset.version;
    const watch = new MutationObserver(() => {
        if (document.body.dataset.version === before) return;
        watch.disconnect();
        const active = document.activeElement;
        window.focusAtNextVersion = active.closest('.actions') ? 'actions' : active.tagName;
    });
    watch.observe(document.body, {attributes: true, attributeFilter: ['data-version']});
}"""


def test_the_keyboard_follows_the_turns_and_lists_its_keys(server: str, browser: Browser) -> None:
    from test_web_table import our_turn, seated, wait_until

    page = None
    sent: list[str] = []
    page, _ = seated(
        browser,
        server,
        [None, "easy", "easy"],
        width=1280,
        height=720,
        rules={"preset": "perudo", "starting_dice": 3},
        motion="reduce",
    )
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(str(frame))))
    page.reload()
    page.wait_for_selector(".share-code")
    page.click("#start")
    our_turn(page, standing=False)
    expect(page.locator("#bid-go")).to_be_focused()
    # Where focus is once the table has drawn our bid: read as the next version is drawn
    # (a bot may call at once, and the round's end come before this test looks).
    page.evaluate(FOCUS_AT_NEXT_VERSION)
    page.keyboard.press("Enter")  # bids what the picker shows
    wait_until(page, "window.focusAtNextVersion !== undefined")
    # The picker went with the bid; focus did not fall to the page's start.
    active = page.evaluate("window.focusAtNextVersion")
    assert active == "actions", active
    assert any('"type":"bid"' in frame.replace(" ", "") for frame in sent), sent
    # The next turn of ours: focus is on the picker again.
    our_turn(page, standing=True)
    expect(page.locator("#bid-go")).to_be_focused()
    # The list of keys, from the key and from the table's button.
    page.keyboard.press("?")
    dialog = page.locator("#keys-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("roll the next round now")
    expect(dialog).to_contain_text("call calza")  # Perudo plays calza
    axe_check(page, "keys dialog")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(page.locator("#bid-go")).to_be_focused()
    page.click("#keys-help")
    expect(dialog).to_be_visible()
    page.click("#keys-close")
    expect(dialog).to_have_count(0)
    # L calls; N rolls the next round at once.
    page.keyboard.press("l")
    page.wait_for_selector("#next-round, .centre.over")
    if page.locator("#next-round").count():
        page.keyboard.press("n")
        wait_until(
            page, "document.body.dataset.phase !== 'roll' || !document.querySelector('#next-round')"
        )
        assert any('"type":"next_round"' in frame.replace(" ", "") for frame in sent), sent
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_the_list_of_keys_leaves_out_calza_where_it_is_not_played(
    server: str, browser: Browser
) -> None:
    from test_web_table import our_turn, seated

    page, _ = seated(browser, server, [None, "easy"], rules={"preset": "tavern"})
    page.click("#start")
    our_turn(page, standing=False)
    page.keyboard.press("?")
    dialog = page.locator("#keys-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("call Liar!")
    expect(dialog.locator("kbd")).to_have_text(["+ −", "1–6", "B", "L", "N", "?", "Esc"])
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


# Every error the server sends the page, as it arrives (the table's own handler runs too).
RECORD_ERRORS = """() => {
    const table = window.dudo.view;
    const receive = table.receive.bind(table);
    window.seenErrors = [];
    table.receive = (message) => {
        if (message.type === 'error') window.seenErrors.push(message.code);
        receive(message);
    };
}"""


def test_a_step_someone_else_took_first_is_no_error(server: str, browser: Browser) -> None:
    """Two players press Next round at once (or one presses it as its countdown runs out):
    the server starts the round for the first and refuses the second as not_now. The table
    has done what the second asked, so no error toast (there was one: "That is not
    possible right now.")."""
    from test_web_table import seated, turn_with_a_standing_bid, wait_for_news

    page, _ = seated(browser, server, [None, "easy"], rules={"preset": "tavern"})
    page.click("#start")
    turn_with_a_standing_bid(page)
    page.click("#call-dudo")
    page.wait_for_selector("#next-round:enabled")
    page.evaluate(RECORD_ERRORS)
    before = page.evaluate("document.body.dataset.version")
    # Both presses leave before either is answered, as two players' would.
    page.evaluate(
        "() => { window.dudo.view.act('next_round'); window.dudo.view.act('next_round'); }"
    )
    wait_for_news(page, before)
    wait_until(page, "() => window.seenErrors.length > 0")
    assert page.evaluate("window.seenErrors") == ["not_now"]
    page.wait_for_timeout(300)
    # (Counted once: a toast leaves by itself after 5 s, which a retrying check would wait for.)
    assert page.locator("#toasts .toast").all_inner_texts() == []
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_the_small_things(server: str, browser: Browser) -> None:
    import httpx
    from test_web_table import our_turn, seated

    # "Fill open seats with bots" only when a seat is open.
    full, _ = seated(browser, server, [None, "easy", "hard"])
    expect(full.locator("#start")).to_be_visible()
    expect(full.locator("#fill-bots")).to_have_count(0)
    full.context.close()
    host, code = seated(browser, server, [None, None, "hard"])
    expect(host.locator("#fill-bots")).to_be_visible()
    # The join page marks the bots as bots.
    visitor = open_page(browser, 360, 640)
    visitor.goto(f"{server}/r/{code}")
    seat_list = visitor.locator(".join .seat-list li")
    expect(seat_list).to_have_count(3)
    expect(seat_list.nth(2)).to_contain_text("Bot (hard)")
    expect(seat_list.nth(1)).to_contain_text("Open")
    axe_check(visitor, "join page")
    visitor.context.close()
    host.context.close()
    # One Rules picker on the home page, and practice plays the rules it shows.
    home = open_page(browser, 1280, 800)
    home.goto(server + "/")
    home.wait_for_selector("#create-form")
    labels = home.evaluate("""() => [...document.querySelectorAll('select')].map((s) =>
        (s.labels[0] || {}).textContent || '').filter((text) => text.trim() === 'Rules')""")
    assert len(labels) == 1, labels
    home.select_option("#preset", "tavern")
    expect(home.locator("#create-preset")).to_contain_text("Tavern")
    home.fill("#name", "Tess")
    home.click("#practice")
    home.wait_for_selector(".felt", timeout=15000)
    rules = home.evaluate("window.dudo.view.state.room.rules")
    assert rules["calza"] == "off" and rules["ones_bids"] == "never", rules
    home.context.close()
    # The rules sheet has a header and a way back.
    sheet = open_page(browser, 360, 640)
    sheet.goto(f"{server}/rules?preset=perudo")
    expect(sheet.locator("header.sheet-head a.brand")).to_have_attribute("href", "/")
    sheet.click("header.sheet-head a.back")
    sheet.wait_for_url(f"{server}/")
    assert "<header" not in httpx.get(f"{server}/rules?preset=perudo&embed=1").text
    sheet.context.close()
    # German odds: "Chance, dass drei 5er stimmen".
    german, _ = seated(
        browser,
        server,
        [None, "easy", "easy"],
        locale="de-DE",
        init="localStorage.setItem('dudo.odds', '1')",
    )
    german.click("#start")
    our_turn(german, standing=False)
    quantity = german.evaluate("window.dudo.view.pick[0]")
    text = german.inner_text("#pick-odds")
    assert ("stimmen" if quantity > 1 else "stimmt") in text, (quantity, text)
    german.context.close()


BIG = """() => {
    const box = (el) => {
        const r = el.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    const size = (el) => parseFloat(getComputedStyle(el).fontSize);
    const width = (selector) => [...document.querySelectorAll(selector)]
        .map((d) => d.getBoundingClientRect().width);
    const seats = [...document.querySelectorAll('.seat')];
    const verdict = document.querySelector('.verdict');
    return {
        seats: seats.map(box),
        centre: box(document.querySelector('.centre')),
        names: seats.map((s) => size(s.querySelector('.seat-name'))),
        others: width('.seat:not(.me) .seat-dice .die:not(.lost)'),
        mine: width('.my-dice .die'),
        verdict: verdict ? size(verdict) : null,
        avatars: document.querySelectorAll('.seat .avatar').length,
        colours: new Set(seats.map((s) => getComputedStyle(s).borderTopColor)).size,
        badges: [...document.querySelectorAll('.seat .change')].map((badge) => {
            const dice = [...badge.closest('.seat').querySelectorAll('.die')].map(box);
            return {badge: box(badge), dice};
        }),
    };
}"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_big_screen_gets_a_big_table(server: str, browser: Browser, players: int) -> None:
    from test_web_table import our_turn, seated

    page, _ = seated(
        browser,
        server,
        [None] + ["easy"] * (players - 1),
        width=1920,
        height=1080,
        motion="reduce",
        timer=300,
    )
    page.click("#start")
    our_turn(page, standing=True)
    look = page.evaluate(BIG)
    keep_shot(page, f"big-table-{players}-1920")
    assert min(look["others"]) >= 40 and min(look["mine"]) >= 40, look
    assert min(look["names"]) >= 20, look["names"]
    assert look["avatars"] == players and look["colours"] == players, look
    boxes = look["seats"]
    for i, a in enumerate(boxes):
        assert not overlaps(a, look["centre"]), (i, a, look["centre"])
        for b in boxes[i + 1 :]:
            assert not overlaps(a, b), (a, b)
    page.click("#call-dudo")
    page.wait_for_selector("#reveal .verdict")
    look = page.evaluate(BIG)
    keep_shot(page, f"big-reveal-{players}-1920")
    assert look["verdict"] >= 28, look["verdict"]
    # At the reveal too: every cup lifted, the others' dice shown at least 40 px, the names
    # at least 20 px.
    assert look["others"] and min(look["others"]) >= 40, look["others"]
    assert min(look["names"]) >= 20, look["names"]
    for seat in look["badges"]:  # the −1 beside the dice, never on one
        assert not any(overlaps(seat["badge"], die) for die in seat["dice"]), seat
    boxes = look["seats"]
    for i, a in enumerate(boxes):
        assert not overlaps(a, look["centre"]), (i, a, look["centre"])
        for b in boxes[i + 1 :]:
            assert not overlaps(a, b), (a, b)
    if players == 6:
        axe_check(page, "big reveal")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


CUPS_AT = """(fraction) => {
    // Every cup's lift stopped at the same point of its own animation (its delay past).
    for (const animation of document.getAnimations()) {
        if (animation.animationName !== 'cup-tip') continue;
        const timing = animation.effect.getComputedTiming();
        animation.pause();
        animation.currentTime = timing.delay + fraction * timing.duration;
    }
    const box = (el) => {
        const r = el.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    };
    // The cup is the dice row's ::before: its box from its own used size and position,
    // through its transform (about its transform-origin), in the page's coordinates.
    return [...document.querySelectorAll('.seat-dice.revealed')].map((row) => {
        const cup = getComputedStyle(row, '::before');
        const place = row.getBoundingClientRect();
        const [left, top] = [parseFloat(cup.left), parseFloat(cup.top)];
        const [width, height] = [parseFloat(cup.width), parseFloat(cup.height)];
        const [ox, oy] = cup.transformOrigin.split(' ').map(parseFloat);
        const m = new DOMMatrix(cup.transform === 'none' ? undefined : cup.transform);
        const corners = [[0, 0], [width, 0], [0, height], [width, height]].map(([x, y]) => {
            const p = m.transformPoint(new DOMPoint(x - ox, y - oy));
            return [place.left + row.clientLeft + left + ox + p.x,
                    place.top + row.clientTop + top + oy + p.y];
        });
        const xs = corners.map((c) => c[0]);
        const ys = corners.map((c) => c[1]);
        const seat = row.closest('.seat');
        return {
            cup: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
            opacity: parseFloat(cup.opacity),
            name: box(seat.querySelector('.seat-name')),
            status: box(seat.querySelector('.seat-status')),
        };
    });
}"""


@pytest.mark.parametrize("size", [(1920, 1080), (1366, 768), (360, 640)])
def test_lifting_cups_never_cover_a_name_or_a_bot_label(
    server: str, browser: Browser, size: tuple[int, int]
) -> None:
    """With motion on, the cups tip away inside the dice's row: at every point of the lift
    (stopped there through the Web Animations API) no visible cup covers a seat's name or
    its status line ("Bot (easy)")."""
    from test_web_table import our_turn, seated

    page, _ = seated(
        browser, server, [None] + ["easy"] * 5, width=size[0], height=size[1], timer=300
    )
    page.click("#start")
    our_turn(page, standing=True)
    page.click("#call-dudo")
    page.wait_for_selector(".seat-dice.revealed")
    seen = 0
    for fraction in (0.0, 0.2, 0.35, 0.5, 0.7, 0.9):
        for seat in page.evaluate(CUPS_AT, fraction):
            if seat["opacity"] < 0.2:
                continue  # all but gone
            seen += 1
            assert not overlaps(seat["cup"], seat["name"]), (size, fraction, seat)
            assert not overlaps(seat["cup"], seat["status"]), (size, fraction, seat)
    assert seen >= 6, seen  # the cups were there to be measured
    keep_shot(page, f"cups-lifting-{size[0]}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_the_winners_moment_is_quiet_under_reduced_motion(server: str, browser: Browser) -> None:
    from test_web_table import play_to_the_end, seated, state

    page, _ = seated(
        browser,
        server,
        [None, "easy"],
        width=1920,
        height=1080,
        rules={"preset": "perudo", "starting_dice": 1},
    )
    page.click("#start")
    play_to_the_end(page)
    winner = page.locator(".seat.winner")
    expect(winner).to_have_count(1)
    moving = "getComputedStyle(document.querySelector('.seat.winner')).animationName"
    assert page.evaluate(moving) == "winner-glow"
    keep_shot(page, "winner-1920")
    axe_check(page, "the winner's moment at 1920")
    # The winner hears a fanfare (made with Web Audio, the sound switch on by default; the
    # click on Start let the page make sound). Whoever won, the switch silences it.
    if state(page)["game"]["winners"] == [0]:
        expect(page.locator("body")).to_have_attribute("data-sounded", "win")
    fanfare = """async () => {
        const src = document.querySelector('script[type=module]').src;
        const {play} = await import(src.replace(/app\\.js$/, 'sound.js'));
        delete document.body.dataset.sounded;
        play('win');
        return [document.body.dataset.sound, document.body.dataset.sounded || null];
    }"""
    assert page.evaluate(fanfare) == ["win", "win"]
    page.click("#sound-toggle")
    expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
    assert page.evaluate(fanfare) == ["win", None]  # asked for, not made
    page.click("#sound-toggle")
    assert page.evaluate(fanfare) == ["win", "win"]
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(moving) == "none"
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


VOICED = ("easy", "normal", "hard")  # the levels a room's bot seat can have
VOICE_INDEPENDENT = """async (personas) => {
    const src = document.querySelector('script[type=module]').src;
    const {reactions} = await import(src.replace(/app\\.js$/, 'voice.js'));
    const base = {
        room: {seats: [{kind: 'human', name: 'Ana'},
                       {kind: 'bot', level: 'easy', name: 'Lucy'},
                       {kind: 'bot', level: 'normal', name: 'Bo'},
                       {kind: 'bot', level: 'hard', name: 'Mei'}]},
        fair: {game_id: 'g1'},
    };
    const dice = () => Array.from({length: 5}, () => 1 + Math.floor(Math.random() * 6));
    const moments = [];
    for (let round = 1; round <= 12; round += 1) {
        for (const loser of [0, 1, 2, 3]) {
            moments.push({round, bids: [[0, [2, 3]], [1, [5, 3]]], phase: 'bidding',
                          events: [{event: 'bid', seat: 1, quantity: 5, face: 3}]});
            moments.push({round, bids: [], phase: 'roll', events: [{event: 'reveal',
                          caller: (loser + 1) % 4, loser, change: 1, bid: [4, 2], count: 3,
                          outcome: 'fails'}]});
            moments.push({round, bids: [], phase: 'over',
                          events: [{event: 'game_over', winners: [loser]}]});
        }
    }
    const said = new Set();
    let spoke = 0;
    for (const m of moments) {
        const lines = [];
        for (let trial = 0; trial < 6; trial += 1) {
            const cups = [dice(), dice(), dice(), dice()];
            const events = m.events.map((e) => (e.event === 'reveal' ? {...e, cups} : e));
            const game = {round: m.round, bids: m.bids, phase: m.phase, dice: cups[0],
                          last_reveal: {cups}};
            lines.push(JSON.stringify(reactions({...base, game, events})));
        }
        if (new Set(lines).size !== 1) return {differs: lines};
        if (lines[0] !== '[]') { spoke += 1; said.add(lines[0]); }
    }
    // Every line of every level's voice can be said: the choice (public facts only, no
    // cup among its inputs) reaches the whole list, in the page's language.
    const {chooseLine, personaKey} = await import(src.replace(/app\\.js$/, 'voice.js'));
    const {t} = await import(src.replace(/app\\.js$/, 'i18n.js'));
    const unsaid = {};
    const sizes = {};
    for (const level of ['easy', 'normal', 'hard']) {
        sizes[level] = 0;
        for (const moment of ['big_raise', 'call', 'lost', 'win']) {
            const lines = t(`voice.${level}.${moment}`).split('|');
            sizes[level] += lines.length;
            const heard = new Set();
            for (let round = 1; round <= 40; round += 1) {
                for (let bids = 0; bids < 6; bids += 1) {
                    for (let seat = 0; seat < 6; seat += 1) {
                        heard.add(chooseLine({level, moment, gameId: 'g1', round, bids, seat}));
                    }
                }
            }
            const missing = lines.filter((line) => !heard.has(line));
            if (missing.length || heard.size !== lines.length) {
                unsaid[`${level}.${moment}`] = missing;
            }
            // A persona says its own lines one time in three, its level's the rest.
            for (const name of personas[level]) {
                const own = t(`voice.persona.${personaKey(name)}.${moment}`).split('|');
                const counts = new Map();
                let total = 0;
                for (let round = 1; round <= 40; round += 1) {
                    for (let bids = 0; bids < 6; bids += 1) {
                        const line = chooseLine({level, moment, gameId: 'g2', round, bids,
                                                 seat: 3, name});
                        counts.set(line, (counts.get(line) || 0) + 1);
                        total += 1;
                    }
                }
                const mine = own.reduce((sum, line) => sum + (counts.get(line) || 0), 0);
                const strange = [...counts.keys()].filter(
                    (line) => !own.includes(line) && !lines.includes(line));
                if (own.some((line) => !counts.has(line)) || strange.length
                    || mine < total / 6 || mine > total / 2) {
                    unsaid[`${name}.${moment}`] = {own, mine, total, strange};
                }
            }
        }
    }
    return {spoke, distinct: said.size, unsaid, sizes};
}"""


# The table hears that a bot won (a public moment every bot may speak at), as if the server
# had said so: the line shows over that bot's seat unless this player silenced it.
WINS = """(winner) => {
    const table = window.dudo.view;
    const state = {...table.state, events: [{event: 'game_over', winners: [winner]}]};
    table.voices.observe(state, (seat) => table.name(seat));
    table.render();
    return document.querySelectorAll(`.seat[data-seat="${winner}"] .say`).length;
}"""


def test_bots_speak_from_public_moments_never_from_their_dice(
    server: str, browser: Browser
) -> None:
    from test_web_table import play_turn, seated, wait_until

    page, _ = seated(
        browser,
        server,
        [None, "easy", "normal", "hard"],
        width=1280,
        height=800,
        rules={"preset": "perudo", "starting_dice": 2},
        motion="reduce",
    )  # axe looks at a still page
    # The same public moment with other dice (every cup, ours too) gives the same line.
    from dudo.bots.registry import LEVELS

    personas = {level: [p.name for p in LEVELS[level].personas] for level in VOICED}
    look = page.evaluate(VOICE_INDEPENDENT, personas)
    assert "differs" not in look, look
    assert look["spoke"] > 20 and look["distinct"] > 10, look
    assert not look["unsaid"], look["unsaid"]
    assert all(size >= 36 for size in look["sizes"].values()), look["sizes"]
    # At the table: a bot says something at a reveal, in its level's voice.
    page.click("#start")
    calls: dict[str, int] = {}
    said = ""
    for _ in range(200):
        said = page.evaluate("document.querySelector('.seat .say')?.innerText || ''")
        if said:
            break
        play_turn(page, calls, want_calza=False)
    assert said, calls
    expect(page.locator(".voice-toggle")).to_be_visible()
    keep_shot(page, "bot-talk-1280")
    axe_check(page, "bot talk")
    # One bot silenced, the others heard: a box per bot, remembered for the room.
    boxes = page.locator("[data-voice-seat]")
    expect(boxes).to_have_count(3)
    page.uncheck('[data-voice-seat="1"]')
    assert page.evaluate(WINS, 1) == 0  # silenced
    assert page.evaluate(WINS, 2) == 1  # the others still talk
    axe_check(page, "bot talk, one bot silenced")
    page.reload()
    page.wait_for_selector("[data-voice-seat]")
    expect(page.locator('[data-voice-seat="1"]')).not_to_be_checked()
    expect(page.locator('[data-voice-seat="2"]')).to_be_checked()
    page.check('[data-voice-seat="1"]')
    assert page.evaluate(WINS, 1) == 1
    # Switched off: no line shows any more.
    page.uncheck("#voice-toggle")
    expect(page.locator(".seat .say")).to_have_count(0)
    assert page.evaluate("localStorage.getItem('dudo.voices')") == "0"
    wait_until(page, "!document.querySelector('.seat .say')")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


# At the end of a real game: the winner (a seat's kind, level and name) and what shows over
# its seat, with every line a bot of that level and name may say when it wins (its level's
# and, if it has them, its persona's).
WINNER_SAYS = """async () => {
    const src = document.querySelector('script[type=module]').src;
    const {personaKey} = await import(src.replace(/app\\.js$/, 'voice.js'));
    const {has, t} = await import(src.replace(/app\\.js$/, 'i18n.js'));
    const state = window.dudo.view.state;
    const winner = state.game.winners[0];
    const seat = state.room.seats[winner];
    const said = document.querySelector(`.seat[data-seat="${winner}"] .say`);
    if (seat.kind !== 'bot') return {winner, kind: seat.kind};
    const own = `voice.persona.${personaKey(seat.name)}.win`;
    return {winner, kind: seat.kind, name: seat.name, said: said ? said.innerText : null,
            lines: [...t(`voice.${seat.level}.win`).split('|'),
                    ...(has(own) ? t(own).split('|') : [])]};
}"""


def test_a_bot_that_wins_a_real_game_says_a_winning_line(server: str, browser: Browser) -> None:
    from test_web_table import play_to_the_end, seated

    # The game-over state's events are the last reveal, who went out and the game's end:
    # the end comes first, so the bot that won says a winning line (not a reveal's line).
    # One die each and two bots: a game is over in a reveal or two; played again until a
    # bot wins (about two games in three).
    page, _ = seated(
        browser,
        server,
        [None, "easy", "hard"],
        rules={"preset": "perudo", "starting_dice": 1},
        width=1280,
        height=800,
    )
    page.click("#start")
    seen = []
    for _ in range(8):
        play_to_the_end(page)
        look = page.evaluate(WINNER_SAYS)
        seen.append(look)
        if look["kind"] == "bot":
            assert look["said"] in look["lines"], look
            break
        page.click("#rematch")
        expect(page.locator("body")).not_to_have_attribute("data-phase", "over")
    else:
        raise AssertionError(f"no bot won in {len(seen)} games: {seen}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_table_talk_with_a_mute_per_player_and_the_hosts_switch(
    server: str, browser: Browser
) -> None:
    from test_web_table import join_page, seated

    host, code = seated(browser, server, [None, None, "easy"], width=1280, height=800)
    guest = join_page(browser, server, code, "Ben")
    host.fill("#chat-text", "<b>hola</b> 👋")
    host.press("#chat-text", "Enter")
    line = guest.locator(".chat-lines li")
    expect(line).to_contain_text("<b>hola</b> 👋")  # text only, never markup
    expect(guest.locator(".chat-lines b")).to_have_count(0)
    expect(host.locator("#chat-text")).to_have_value("")
    axe_check(guest, "table talk")
    # Ben mutes Ana: her lines are gone for him, and come back when he wants.
    guest.click('.chat-lines [data-mute="0"]')
    expect(guest.locator(".chat-lines li")).to_have_count(0)
    expect(guest.locator('.chat-muted [data-mute="0"]')).to_be_visible()
    axe_check(guest, "table talk with a player muted")
    guest.click('.chat-muted [data-mute="0"]')
    expect(guest.locator(".chat-lines li")).to_have_count(1)
    # The host turns it off: no one can write.
    host.uncheck("#chat-on")
    expect(guest.locator(".chat")).to_contain_text("turned table talk off")
    expect(guest.locator("#chat-text")).to_have_count(0)
    axe_check(guest, "table talk turned off")
    axe_check(host, "table talk turned off, the host's switch")
    for page in (host, guest):
        assert not page.js_errors  # type: ignore[attr-defined]
        page.context.close()
