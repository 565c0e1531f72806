"""The variants of issue 25 in a real browser (Debian's Chromium through Playwright, as
tests/browser/test_web.py, against a real server process):

- the roll-off shown before round 1 (each attempt's dice per seat, who tied, who opens),
  in three languages, and in the replay, whose browser check verifies the roll-off's dice
  (and fails on a changed one);
- Common Hand: a hand picker that offers only the seat's legal hands, hands in words in
  the log and the reveal;
- the wild-aces switch of the room form, which sets the ones rule that goes with it;
- axe with every rule on each of these states.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, Route, expect
from test_web import (
    TIMINGS,
    axe_check,
    chromium,
    keep_shot,
    phase,
    try_click,
    wait_for_news,
    wait_until,
)
from test_web_table import seated, state, turn_with_a_standing_bid

from dudo.fairness import verify_record
from serverkit import server_process, sqlite_url

COMMON_HAND = {"preset": "common-hand", "first_opener": "host"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("variants")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


# -- the roll-off -------------------------------------------------------------------------


# Every state the table receives, as it stood once the table had drawn it: the bots may
# play round 1 out (one bids, the next calls) while the test runs axe or takes a screenshot,
# so what round 1 began with is recorded as it happened rather than read afterwards. The
# listener is added after the table's own (a microtask after `new WebSocket`), so the page
# it reads has been rendered from that very message.
RECORD_STATES = """
window.__states = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
    constructor(...args) {
        super(...args);
        queueMicrotask(() => this.addEventListener('message', (event) => {
            const message = JSON.parse(event.data);
            if (message.type !== 'state' || !message.game) return;
            const panel = document.querySelector('#rolloff');
            window.__states.push({
                round: message.game.round, phase: document.body.dataset.phase,
                opener: message.game.opener, revealed: !!message.game.last_reveal,
                rounds: message.events.filter((e) => e.event === 'round')
                    .map((e) => [e.number, e.opener]),
                panel: !!panel && panel.checkVisibility()});
        }));
    }
};
"""


@pytest.mark.parametrize(
    "locale, opens",
    [("en-US", "opens round 1"), ("de-DE", "eröffnet Runde 1"), ("es-ES", "abre la ronda 1")],
)
def test_the_rolloff_is_shown_before_round_1(
    server: str, browser: Browser, locale: str, opens: str
) -> None:
    page, _ = seated(
        browser,
        server,
        [None, "easy", "easy"],
        rules={"preset": "dudo"},
        width=360,
        height=740,
        locale=locale,
        motion="reduce",
        init=RECORD_STATES,
    )
    page.click("#start")
    panel = page.locator("#rolloff")
    expect(panel.locator(".rolloff-attempt").first).to_be_visible(timeout=10000)
    shown = page.evaluate("window.dudo.view.state.rolloff")
    while shown["opener"] is None:  # an attempt tied: the next one is on its way
        page.wait_for_timeout(100)
        shown = page.evaluate("window.dudo.view.state.rolloff")
    expect(panel.locator(".rolloff-attempt")).to_have_count(len(shown["attempts"]))
    names = [seat["name"] for seat in state(page)["room"]["seats"]]
    for number, attempt in enumerate(shown["attempts"], start=1):
        item = panel.locator(f'.rolloff-attempt[data-attempt="{number}"]')
        for seat, (a, b) in zip(attempt["seats"], attempt["rolls"], strict=True):
            row = item.locator(f'.rolloff-roll[data-seat="{seat}"]')
            expect(row.locator(".die")).to_have_count(2)
            expect(row).to_contain_text(str(a + b))
            expect(row).to_contain_text(names[seat])
        assert item.get_attribute("data-tied") == ",".join(map(str, attempt["tied"]))
        if len(attempt["tied"]) > 1:
            expect(item.locator(".rolloff-result")).to_contain_text(names[attempt["tied"][0]])
    last = panel.locator(".rolloff-attempt").last.locator(".rolloff-result")
    opener = shown["opener"]
    if opener == 0:
        expect(last).not_to_contain_text("{")
    else:
        expect(last).to_contain_text(names[opener])
        expect(last).to_contain_text(opens)
    if locale == "en-US":
        axe_check(page, "roll-off")
        keep_shot(page, "rolloff-360")
    # Round 1 starts with the roll-off's winner, and the panel stays until its first reveal:
    # read from the states as they came (see RECORD_STATES), not from the state now.
    wait_until(page, "window.__states.some((s) => s.phase === 'bidding')", timeout=15000)
    states = page.evaluate("window.__states")
    bidding = [s for s in states if s["phase"] == "bidding"]
    assert bidding[0]["round"] == 1 and bidding[0]["opener"] == opener, bidding[0]
    round_events = [pair for s in states for pair in s["rounds"]]
    assert round_events[0] == [1, opener], round_events
    round_1 = [s for s in bidding if s["round"] == 1 and not s["revealed"]]
    assert round_1 and all(s["panel"] for s in round_1), round_1
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def finish_by_clicking(page: Page, timeout: float = 120) -> None:
    """Play our seat to the end: call when we may, else bid what the picker offers."""
    deadline = time.monotonic() + timeout
    while phase(page) != "over":
        assert time.monotonic() < deadline, "the game did not end"
        before = page.evaluate("document.body.dataset.version")
        if try_click(page, "#call-dudo") or try_click(page, "#bid-go"):
            wait_for_news(page, before)
        else:
            try_click(page, "#next-round")
            page.wait_for_timeout(50)


@pytest.fixture(scope="module")
def dudo_game(server: str, browser: Browser) -> dict[str, Any]:
    """A whole dudo-preset game (with its roll-off) played in the browser, and its record."""
    page, _ = seated(browser, server, [None, "easy"], rules={"preset": "dudo", "starting_dice": 2})
    page.click("#start")
    finish_by_clicking(page)
    game_id = state(page)["fair"]["game_id"]
    page.context.close()
    for _ in range(50):
        answer = httpx.get(f"{server}/api/games/{game_id}")
        if answer.status_code == 200:
            return {"id": game_id, "record": answer.json()}
        time.sleep(0.1)
    raise AssertionError("the record was not stored")


def open_replay(page: Page, server: str, game_id: str, fair: str) -> None:
    page.goto(f"{server}/g/{game_id}")
    expect(page.locator("#fair")).to_have_attribute("data-state", fair, timeout=15000)


def test_the_replay_shows_the_rolloff_and_checks_its_dice(
    server: str, browser: Browser, dudo_game: dict[str, Any]
) -> None:
    record = dudo_game["record"]
    verify_record(record)  # and so does dudo verify
    attempts = record["start"]["rolloff"]
    page = browser.new_page(viewport={"width": 360, "height": 740})
    open_replay(page, server, dudo_game["id"], "verified")
    for number in range(1, len(attempts) + 1):
        item = page.locator(f'#fair-rounds li[data-round="rolloff-{number}"]')
        expect(item).to_have_attribute("data-ok", "true")
        expect(item).to_contain_text(f"Roll-off attempt {number}")
    expect(page.locator("#fair-verdict")).to_contain_text("roll-off")
    page.keyboard.press("Home")
    shown = page.locator("#replay-rolloff")
    expect(shown.locator("li")).to_have_count(len(attempts))
    first = attempts[0]
    expect(shown.locator("li").first).to_contain_text(f"= {sum(first[0])}")
    expect(page.locator("#step-sentence")).to_contain_text("Roll-off 1")
    axe_check(page, "replay roll-off")
    # The same page with one roll-off die changed on its way from the server.
    changed = json.loads(json.dumps(record))
    pair = changed["start"]["rolloff"][-1][0]
    pair[0] = pair[0] % 6 + 1
    last = len(attempts)

    def serve_changed(route: Route) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(changed))

    page.route(re.compile(rf"/api/games/{dudo_game['id']}$"), serve_changed)
    open_replay(page, server, dudo_game["id"], "failed")
    expect(page.locator("#fair-verdict")).to_contain_text("NOT VERIFIED")
    bad = page.locator(f'#fair-rounds li[data-round="rolloff-{last}"]')
    if bad.count():
        expect(bad).to_have_attribute("data-ok", "false")
    keep_shot(page, "replay-rolloff-tampered")
    page.context.close()


# -- Common Hand --------------------------------------------------------------------------


def legal_hands(page: Page) -> list[dict[str, Any]]:
    hands: list[dict[str, Any]] = state(page)["game"]["legal"]["bids"]
    return hands


def key(hand: dict[str, Any]) -> str:
    return f"{hand['hand']}:{','.join(map(str, hand.get('faces', [])))}"


def offered(page: Page) -> list[str]:
    """Every hand the picker offers: each kind that can be pressed, each of its first faces,
    then each of its second faces."""
    found: list[str] = []
    picker = page.locator(".hand-picker")
    kinds = picker.locator("[data-hand-kind]:enabled").evaluate_all(
        "(bs) => bs.map((b) => b.dataset.handKind)"
    )
    for kind in kinds:
        press(page, f'[data-hand-kind="{kind}"]')
        firsts = picker.locator("[data-hand-first]:enabled").evaluate_all(
            "(bs) => bs.map((b) => b.dataset.handFirst)"
        )
        if not firsts:
            found.append(f"{kind}:")
        for first in firsts:
            press(page, f'[data-hand-first="{first}"]')
            seconds = picker.locator("[data-hand-second]:enabled").evaluate_all(
                "(bs) => bs.map((b) => b.dataset.handSecond)"
            )
            found += [f"{kind}:{first},{second}" for second in seconds] or [f"{kind}:{first}"]
    return found


def press(page: Page, selector: str) -> None:
    """Click a choice of the hand picker and wait for it to show as chosen."""
    button = page.locator(f".hand-picker {selector}")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")


def test_the_hand_picker_offers_only_legal_hands_and_hands_read_in_words(
    server: str, browser: Browser
) -> None:
    page, _ = seated(
        browser, server, [None, "normal"], rules=COMMON_HAND, width=360, height=640, motion="reduce"
    )
    page.click("#start")
    page.wait_for_selector(".hand-picker [data-hand-kind]")
    opening = legal_hands(page)
    assert len(opening) == 71  # the opener may bid any hand (10 dice in play)
    assert sorted(offered(page)) == sorted(key(hand) for hand in opening)
    axe_check(page, "hand picker, opening")
    # Pick a full house and bid it by clicking; the log and the centre read it in words.
    press(page, '[data-hand-kind="full_house"]')
    press(page, '[data-hand-first="4"]')
    press(page, '[data-hand-second="2"]')
    expect(page.locator("#bid-go")).to_have_text("Bid a full house, 4s over 2s")
    before = page.evaluate("document.body.dataset.version")
    page.click("#bid-go")
    wait_for_news(page, before)
    # The bot raises it (it stays the round's first bid) or calls it (the reveal names it):
    # read at once, as the next round soon clears the bids.
    wait_until(page, "(g => g.bids.length >= 1 || !!g.last_reveal)(window.dudo.view.state.game)")
    game = state(page)["game"]
    ours = game["last_reveal"]["bid"] if game["last_reveal"] else game["bids"][0][1]
    assert game["last_reveal"] or game["bids"][0][0] == 0
    assert ours == {"hand": "full_house", "faces": [4, 2]}
    expect(page.locator(".history")).to_contain_text("a full house, 4s over 2s")
    turn_with_a_standing_bid(page)
    standing = state(page)["game"]["standing"]
    legal = legal_hands(page)
    assert legal and key(standing) not in {key(hand) for hand in legal}
    assert sorted(offered(page)) == sorted(key(hand) for hand in legal)
    expect(page.locator("#standing .words")).not_to_be_empty()
    axe_check(page, "hand picker, raising")
    keep_shot(page, "hand-picker-360")
    # Call: the reveal says whether all the dice together show the hand.
    page.click("#call-dudo")
    page.wait_for_selector("#reveal, .centre.over")
    reveal = state(page)["game"]["last_reveal"]
    assert isinstance(reveal["bid"], dict) and "count" not in reveal
    said = re.compile("all the dice together (do not )?show", re.I)
    expect(page.locator(".log-reveal").first).to_contain_text(said)
    if page.locator("#reveal").count():
        axe_check(page, "hand reveal")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


# -- the wild-aces switch -----------------------------------------------------------------


def test_the_wild_aces_switch_sets_the_ones_rule_that_goes_with_it(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": 360, "height": 740})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    page.fill("#name", "Ana")
    page.select_option("#preset", "perudo")
    page.click("#house-rules summary")
    switch = page.locator("#opt-wild_ones")
    expect(page.locator(".wild-aces label")).to_contain_text("Wild aces")
    expect(switch).to_be_checked()
    expect(page.locator("#opt-ones_bids")).to_have_value("halve")
    switch.uncheck()
    expect(page.locator("#opt-ones_bids")).to_have_value("plain")
    expect(page.locator("#opt-wild_ones-help")).to_contain_text("only as ones")
    axe_check(page, "wild aces off")
    switch.check()
    expect(page.locator("#opt-ones_bids")).to_have_value("halve")
    expect(page.locator("#opt-wild_ones-help")).to_contain_text("Halve")
    # Tavern's aces are wild and never bid: switched back on, its own rule returns.
    page.select_option("#preset", "tavern")
    page.locator("#opt-wild_ones").uncheck()
    expect(page.locator("#opt-ones_bids")).to_have_value("plain")
    page.locator("#opt-wild_ones").check()
    expect(page.locator("#opt-ones_bids")).to_have_value("never")
    # Off on Perudo, and the room is made: no 'halve' without wild ones reaches the server.
    page.select_option("#preset", "perudo")
    page.locator("#opt-wild_ones").uncheck()
    page.select_option("#seats", "2")
    page.click("#create")
    page.wait_for_url(re.compile(r"/r/[A-Z]{4}"))
    code = page.url.rsplit("/", 1)[1][:4]
    rules = httpx.get(f"{server}/api/rooms/{code}").json()["rules"]
    assert rules["wild_ones"] is False and rules["ones_bids"] == "plain"
    assert not errors
    page.context.close()


def test_the_wild_aces_switch_is_off_and_disabled_with_poker_hands(
    server: str, browser: Browser
) -> None:
    """Common Hand has no wild aces (the server refuses wild_ones with poker hands): the
    switch cannot be turned on there, and its help line says why."""
    page = browser.new_page(viewport={"width": 360, "height": 740})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    page.fill("#name", "Ana")
    page.select_option("#preset", "common-hand")
    page.click("#house-rules summary")
    switch = page.locator("#opt-wild_ones")
    expect(switch).to_be_disabled()
    expect(switch).not_to_be_checked()
    expect(page.locator("#opt-ones_bids")).to_have_value("plain")
    expect(page.locator("#opt-wild_ones-help")).to_contain_text("Common Hand has no wild aces")
    axe_check(page, "wild aces with poker hands")
    # Poker hands chosen by hand on a preset with wild aces: the switch goes off with them
    # (and the ones rule plain), and comes back, still off, with quantity bids.
    page.select_option("#preset", "perudo")
    expect(switch).to_be_enabled()
    expect(switch).to_be_checked()
    page.select_option("#opt-bids", "poker")
    expect(switch).to_be_disabled()
    expect(switch).not_to_be_checked()
    expect(page.locator("#opt-ones_bids")).to_have_value("plain")
    expect(page.locator("#opt-wild_ones-help")).to_contain_text("Common Hand has no wild aces")
    page.select_option("#opt-bids", "quantity")
    expect(switch).to_be_enabled()
    expect(switch).not_to_be_checked()
    expect(page.locator("#opt-wild_ones-help")).to_contain_text("only as ones")
    switch.check()
    expect(page.locator("#opt-ones_bids")).to_have_value("halve")
    # Poker hands on Perudo again, and the room is made: picking them also set what Common
    # Hand needs (no calza, no palifico, no loss by difference), so the server takes it.
    page.select_option("#opt-bids", "poker")
    expect(page.locator("#opt-calza")).to_have_value("off")
    expect(page.locator("#opt-palifico")).not_to_be_checked()
    page.select_option("#seats", "2")
    page.click("#create")
    page.wait_for_url(re.compile(r"/r/[A-Z]{4}"))
    code = page.url.rsplit("/", 1)[1][:4]
    rules = httpx.get(f"{server}/api/rooms/{code}").json()["rules"]
    assert rules["bids"] == "poker" and rules["wild_ones"] is False
    assert rules["ones_bids"] == "plain" and rules["calza"] == "off"
    assert rules["palifico"] is False and rules["loss_by_difference"] is False
    assert not errors
    page.context.close()


def test_the_replay_of_a_common_hand_game_reads_hands_in_words(
    server: str, browser: Browser
) -> None:
    from test_web_replay import run_apart

    from dudo.bots import make_bot
    from dudo.client import Client

    async def play() -> str:
        async with Client(server) as client:
            seat = await client.create_room(
                "Ana", rules={**COMMON_HAND, "starting_dice": 2}, seats=2, bots=[None, "easy"]
            )
            async with client.table(seat) as table:
                await table.start()
                await table.play(make_bot("normal", seed=5))
                return str(table.state["fair"]["game_id"])

    game_id = run_apart(play())
    for _ in range(50):
        answer = httpx.get(f"{server}/api/games/{game_id}")
        if answer.status_code == 200:
            break
        time.sleep(0.1)
    record = answer.json()
    verify_record(record)
    first = record["rounds"][0]["actions"][0]
    assert isinstance(first["bid"], dict)
    page = browser.new_page(viewport={"width": 360, "height": 740})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_replay(page, server, game_id, "verified")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#stage .replay-bid")).to_have_attribute("data-bid", first["bid"]["hand"])
    words = {
        "pair": "pair of",
        "two_pair": "two pair",
        "three": "three",
        "four": "four",
        "five": "five",
        "full_house": "full house",
        "low_straight": "low straight",
        "high_straight": "high straight",
    }[first["bid"]["hand"]]
    expect(page.locator("#step-sentence")).to_contain_text(words)
    axe_check(page, "replay common hand")
    assert not errors
    page.context.close()


# -- rules that do not go together ----------------------------------------------------------


def test_rules_that_do_not_go_together_are_refused_naming_the_option(
    server: str, browser: Browser
) -> None:
    """The create form and the host's room settings send what the host picked; the
    server refuses a combination that makes no sense, and the toast says which option
    (RULES.md: rejected with an error that names the option), instead of quietly making a
    room with other rules or a bare "the server refused that request"."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    page.fill("#name", "Ana")
    page.select_option("#preset", "perudo")
    page.click("#house-rules summary")
    page.select_option("#seats", "2")
    # Aces not wild, then halving picked by hand: the form shows halve, so halve is sent
    # and refused, rather than a room made with plain aces nobody asked for.
    page.locator("#opt-wild_ones").uncheck()
    page.select_option("#opt-ones_bids", "halve")
    page.click("#create")
    expect(page.locator(".toast").last).to_contain_text("ones_bids")
    expect(page.locator(".toast").last).to_contain_text("Those rules do not go together")
    assert "/r/" not in page.url
    # A points race with palifico asked for explicitly: the form cannot ask for it (the
    # box is off and disabled in a points race, see below), the server refuses it by name.
    refused = httpx.post(
        f"{server}/api/rooms",
        json={
            "name": "Ana",
            "seats": 2,
            "rules": {"preset": "tavern", "format": "points", "palifico": True},
        },
    )
    assert refused.status_code == 400 and refused.json()["error"] == "bad_rules", refused.text
    assert "palifico" in refused.json()["message"], refused.text
    page.select_option("#preset", "tavern")
    page.select_option("#opt-format", "points")
    expect(page.locator("#opt-palifico")).to_be_disabled()
    # The same in the host's settings of a room (the table's socket, `configure`).
    page.click("#create")
    page.wait_for_url(re.compile(r"/r/[A-Z]{4}"))
    page.locator("#set-house > summary").click()
    expect(page.locator("#set-format")).to_have_value("points")
    page.locator("#set-wild_ones").uncheck()
    page.select_option("#set-ones_bids", "halve")
    expect(page.locator(".toast").last).to_contain_text("ones_bids")
    expect(page.locator(".toast").last).to_contain_text("Those rules do not go together")
    assert not errors
    page.context.close()


# -- the practice round's tips follow the room's rules ---------------------------------------

# Every tip's words for one state of a room with `rules`, read from the practice module the
# page loaded (each tip made the current one in turn); a tip whose moment it is not is null.
PRACTICE_TIPS = """async ({rules, game}) => {
    const src = document.querySelector('script[type=module]').src;
    const {Practice} = await import(src.replace(/app\\.js$/, 'practice.js'));
    const table = {code: 'TEST', state: {room: {rules}, game, you: {seat: 0}}, render() {}};
    const names = ['welcome', 'your_dice', 'open', 'wild', 'raise', 'liar', 'calza', 'odds',
        'reveal', 'palifico', 'out', 'over'];
    const words = {};
    for (const name of names) {
        const practice = new Practice(table);
        practice.seen = new Set(names.filter((other) => other !== name));
        const panel = practice.panel();
        words[name] = panel ? new DOMParser().parseFromString(panel, 'text/html')
            .querySelector('p').textContent : null;
    }
    return words;
}"""


def practice_tips(page: Page, rules: dict[str, Any], **game: Any) -> dict[str, str | None]:
    base = {"phase": "bidding", "turn": 0, "dice": [2, 3, 3], "dice_counts": [3, 3]}
    base |= {"palifico": False, "wild": False}
    words: dict[str, str | None] = page.evaluate(
        PRACTICE_TIPS, {"rules": rules, "game": {**base, **game}}
    )
    return words


def test_the_practice_tips_follow_the_rules(server: str, browser: Browser) -> None:
    """Measured: in a Common Hand practice the tips said a bid is "how many dice ... show a
    face", a raise is "more dice", the hand was "too many", and the reveal "there are
    undefined"; with the dudo preset the calza tip said it may be called out of turn."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    presets = httpx.get(f"{server}/api/presets").json()["presets"]
    poker = presets["common-hand"]["rules"]
    pair3, pair4 = {"hand": "pair", "faces": [3]}, {"hand": "pair", "faces": [4]}
    opening = practice_tips(
        page, poker, standing=None, legal={"bids": [pair3], "calls": []}, bids=[]
    )
    assert opening["open"] and "poker hand" in opening["open"], opening
    assert "a pair of 3s" in opening["open"], opening
    facing = practice_tips(
        page, poker, standing=pair3, legal={"bids": [pair4], "calls": ["dudo"]}, bids=[pair3]
    )
    assert facing["raise"] and "more dice" not in facing["raise"], facing
    assert "a pair of 4s" in facing["raise"], facing
    assert facing["liar"] and "too many" not in facing["liar"], facing
    assert facing["odds"] is None, facing  # no odds helper with poker hands
    reveal = practice_tips(
        page,
        poker,
        phase="revealed",
        standing=None,
        legal={"bids": [], "calls": []},
        last_reveal={"bid": pair3, "call": "dudo", "outcome": "holds"},
    )
    assert reveal["reveal"] and "undefined" not in reveal["reveal"], reveal
    assert "a pair of 3s" in reveal["reveal"], reveal
    bid = [3, 4]
    calza = {"standing": bid, "legal": {"bids": [[4, 4]], "calls": ["dudo", "calza"]}}
    in_turn = practice_tips(page, presets["dudo"]["rules"], wild=True, **calza)
    assert in_turn["calza"] and "only on your turn" in in_turn["calza"], in_turn
    any_time = practice_tips(page, presets["perudo"]["rules"], wild=True, **calza)
    assert any_time["calza"] and "not your turn" in any_time["calza"], any_time
    assert not errors
    page.context.close()


# -- the form shows the rules the room will get ----------------------------------------------


def test_a_points_race_shows_palifico_off_and_says_why(server: str, browser: Browser) -> None:
    """Measured: Perudo with a points race left "Palifico rounds" ticked, and the room was
    made with palifico off (the engine turns palifico off for a points race unless it is
    asked for). The box now goes off and disabled with the reason, in the create form and
    in the host's settings of a room, and comes back with the preset's value."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    page.fill("#name", "Ana")
    page.select_option("#preset", "perudo")
    page.click("#house-rules summary")
    box, help_line = page.locator("#opt-palifico"), page.locator("#opt-palifico-help")
    expect(box).to_be_checked()
    page.select_option("#opt-format", "points")
    expect(box).not_to_be_checked()
    expect(box).to_be_disabled()
    expect(help_line).to_contain_text("no palifico rounds")
    axe_check(page, "palifico in a points race")
    page.select_option("#opt-format", "elimination")
    expect(box).to_be_enabled()
    expect(box).to_be_checked()
    expect(help_line).not_to_contain_text("no palifico rounds")
    # The room made from what the form shows: a points race without palifico.
    page.select_option("#opt-format", "points")
    page.select_option("#seats", "2")
    page.click("#create")
    page.wait_for_url(re.compile(r"/r/[A-Z]{4}"))
    code = page.url.rsplit("/", 1)[1][:4]
    rules = httpx.get(f"{server}/api/rooms/{code}").json()["rules"]
    assert rules["format"] == "points" and rules["palifico"] is False, rules
    # The host's settings: drawn from the room's rules, then changed by the host.
    page.locator("#set-house > summary").click()
    expect(page.locator("#set-format")).to_have_value("points")
    expect(page.locator("#set-palifico")).to_be_disabled()
    expect(page.locator("#set-palifico")).not_to_be_checked()
    expect(page.locator("#set-palifico-help")).to_contain_text("no palifico rounds")
    page.select_option("#set-format", "elimination")
    expect(page.locator("#set-palifico")).to_be_enabled()
    wait_until(page, "window.dudo.view.state.room.rules.format === 'elimination'")
    rules = httpx.get(f"{server}/api/rooms/{code}").json()["rules"]
    shown = page.locator("#set-palifico").is_checked()
    assert rules["palifico"] is shown, (rules, shown)
    page.locator("#set-palifico").check()
    wait_until(page, "window.dudo.view.state.room.rules.palifico === true")
    page.select_option("#set-format", "points")
    expect(page.locator("#set-palifico")).to_be_disabled()
    expect(page.locator("#set-palifico")).not_to_be_checked()
    wait_until(page, "window.dudo.view.state.room.rules.format === 'points'")
    rules = httpx.get(f"{server}/api/rooms/{code}").json()["rules"]
    assert rules["format"] == "points" and rules["palifico"] is False, rules
    expect(page.locator("#set-palifico")).not_to_be_checked()
    assert not errors
    page.context.close()


# -- the keys line of the picker ----------------------------------------------------------


def keys_line(page: Page) -> tuple[str, list[str]]:
    """The picker's keys line and the calls the server says are legal, from one look."""
    look: dict[str, Any] = page.evaluate(
        """() => ({text: document.querySelector('.picker-foot .keys').textContent,
                   calls: window.dudo.view.state.game.legal.calls})"""
    )
    return look["text"], look["calls"]


def test_the_keys_line_names_calza_only_when_it_is_legal(server: str, browser: Browser) -> None:
    """Measured: with calza in the rules the picker's line said "C calls calza" on every
    turn, also when the server did not offer it (an opening bid, two players under
    Perudo's 3+ for calza). It now follows the legal calls the server sent."""
    # Perudo, two players: calza needs three alive, so it is never legal here.
    page, _ = seated(browser, server, [None, "easy"], rules={"preset": "perudo"})
    page.click("#start")
    turn_with_a_standing_bid(page, timeout=60)
    text, calls = keys_line(page)
    assert "calza" not in calls and "L calls Liar!" in text, (text, calls)
    assert "calza" not in text, (text, calls)
    page.context.close()
    # The dudo sheet: calza in turn with 2+ alive. Not on an opening bid (no bid to call),
    # and on a turn with a bid to beat the line says what the server offers.
    rules = {"preset": "dudo", "first_opener": "host"}
    page, _ = seated(browser, server, [None, "easy"], rules=rules)
    page.click("#start")
    wait_until(page, "!!document.querySelector('#bid-go')", timeout=60000)
    assert page.evaluate("window.dudo.view.state.game.standing") is None
    text, calls = keys_line(page)
    assert "calza" not in calls and "calza" not in text, (text, calls)
    turn_with_a_standing_bid(page, timeout=60)
    text, calls = keys_line(page)
    assert ("C calls calza" in text) == ("calza" in calls), (text, calls)
    if not page.evaluate("window.dudo.view.state.game.palifico"):
        assert "calza" in calls and "C calls calza" in text, (text, calls)
    page.context.close()


# -- practice tips under the palifico and ones rules ------------------------------------------


TIP_WORDS = {
    "en": {"change": "may change the face", "lock": "until someone bids ones"},
    "de": {"change": "darf die Zahl wechseln", "lock": "bis jemand auf Einsen bietet"},
    "es": {"change": "puede cambiar la cara", "lock": "hasta que alguien apuesta a ases"},
}


@pytest.mark.parametrize("lang", ["en", "de", "es"])
def test_the_palifico_and_wild_tips_follow_the_rules(
    server: str, browser: Browser, lang: str
) -> None:
    """Measured: the palifico tip said the face stays for everyone, also under the dudo
    sheet where a player who also has one die may change it; the "ones are wild" tip did
    not say that under ones-lock they are wild only until someone bids ones."""
    page = browser.new_page(locale={"en": "en-US", "de": "de-DE", "es": "es-ES"}[lang])
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "/")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    presets = httpx.get(f"{server}/api/presets").json()["presets"]
    words = TIP_WORDS[lang]
    palifico = {"palifico": True, "standing": [1, 4], "dice": [3], "dice_counts": [1, 3]}
    palifico |= {"legal": {"bids": [[2, 4]], "calls": ["dudo"]}}
    dudo = practice_tips(page, presets["dudo"]["rules"], **palifico)
    assert dudo["palifico"] and words["change"] in dudo["palifico"], dudo
    perudo = practice_tips(page, presets["perudo"]["rules"], **palifico)
    assert perudo["palifico"] and words["change"] not in perudo["palifico"], perudo
    opening = {"wild": True, "standing": None, "legal": {"bids": [[1, 2]], "calls": []}}
    lock = practice_tips(page, presets["ones-lock"]["rules"], **opening)
    assert lock["wild"] and words["lock"] in lock["wild"], lock
    halve = practice_tips(page, presets["perudo"]["rules"], **opening)
    assert halve["wild"] and words["lock"] not in halve["wild"], halve
    assert not errors
    page.context.close()
