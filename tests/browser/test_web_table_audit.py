"""The game table as an outside visual audit saw it, in a real browser (Debian's Chromium
through Playwright, as tests/browser/test_web_table.py):

- the game log keeps a call's result back while the table counts the reveal up (and the
  live region does too), and has it the moment the count is whole or skipped;
- only a new entry of the log fades in, never the ones already there;
- a bot's speech bubble of the last game does not carry into the rematch;
- at game over, a player who just lost the last die is drawn out like the others;
- the verdict says that a player who lost the last die is out (English and German).

Screenshots go to test-artifacts/ (look at them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page
from test_web import (
    REVEAL_TIMINGS,
    chromium,
    keep_shot,
    phase,
    wait_for_news,
    wait_until,
)
from test_web_table import our_turn, play_to_the_end, seated, state

from serverkit import server_process, sqlite_url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("audit")), env=REVEAL_TIMINGS) as (
        base,
        _,
    ):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


# Per reveal, as the page drew it: how many result lines the log had and how many reveal
# sentences the live region had said when the reveal was first drawn (and right after a
# skip, with window.__skip = 'key'), and what the count box showed when the log's result
# line came. Every line the live region said is kept in window.__said.
WATCH_LOG = """
window.__said = [];
window.__reveals = [];
const results = () => document.querySelectorAll('.history .log-reveal').length;
const said = () => window.__said.filter((line) => line.includes('Count:')).length;
const hear = (records) => {
    for (const record of records) {
        for (const node of record.addedNodes) {
            if (node.nodeType === 1 && node.parentElement && node.parentElement.id === 'live') {
                window.__said.push(node.textContent);
            }
        }
    }
};
const observer = new MutationObserver((records) => {
    hear(records);
    const reveal = document.querySelector('#reveal');
    let seen = window.__reveals[window.__reveals.length - 1];
    if (reveal && (!seen || seen.key !== reveal.dataset.key)) {
        seen = {key: reveal.dataset.key, index: window.__reveals.length, logged: results(),
                said: said(), truth: String(window.dudo.view.state.game.last_reveal.count)};
        window.__reveals.push(seen);
        if (window.__skip === 'key') {
            const key = new KeyboardEvent('keydown', {key: 'Escape', bubbles: true});
            document.body.dispatchEvent(key);
            hear(observer.takeRecords());
            seen.loggedAfterSkip = results();
            seen.saidAfterSkip = said();
        }
    }
    if (seen && seen.countWhenLogged === undefined && results() > seen.index) {
        const count = document.querySelector('#reveal .count');
        seen.countWhenLogged = count ? count.textContent : null;
        seen.saidWhenLogged = said();
    }
});
observer.observe(document, {subtree: true, childList: true, characterData: true});
"""


def call_and_watch(page: Page, skip: str | None = None) -> dict[str, Any]:
    """On our next turn with a bid to beat, call it a lie; the reveal as the log saw it,
    once its result line is in the log."""
    our_turn(page)
    page.evaluate("(skip) => { window.__skip = skip; }", skip)
    reveals = page.evaluate("window.__reveals.length")
    page.click("#call-dudo")
    seen: dict[str, Any] = wait_until(
        page,
        f"""() => {{
        const seen = window.__reveals[window.__reveals.length - 1];
        return window.__reveals.length > {reveals} && seen.countWhenLogged !== undefined
            ? seen : null;
    }}""",
        timeout=10000,
    )
    return seen


def test_the_log_keeps_the_result_back_until_the_reveal_has_counted(
    server: str, browser: Browser
) -> None:
    # Ten dice each: no call below puts us out.
    page, _ = seated(
        browser,
        server,
        [None, "easy", "easy"],
        init=WATCH_LOG,
        rules={"preset": "perudo", "starting_dice": 10},
    )
    page.click("#start")
    seen = call_and_watch(page)
    # When the reveal is first drawn, the log has no line for it, nor has the live region
    # said its count; the line comes when the count box shows the whole count.
    for reveal in page.evaluate("window.__reveals"):
        assert reveal["logged"] == reveal["index"], reveal
        assert reveal["said"] == reveal["index"], reveal
        assert reveal["countWhenLogged"] == reveal["truth"], reveal
        assert reveal["saidWhenLogged"] == reveal["index"] + 1, reveal
    assert seen["countWhenLogged"] == seen["truth"]
    # Skipped: the result is in the log (and said) at once.
    seen = call_and_watch(page, "key")
    assert seen["logged"] == seen["index"] and seen["said"] == seen["index"], seen
    assert seen["loggedAfterSkip"] == seen["index"] + 1, seen
    assert seen["saidAfterSkip"] == seen["index"] + 1, seen
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
    # Under reduced motion the reveal is whole at once: so is the log.
    still, _ = seated(browser, server, [None, "easy"], motion="reduce", init=WATCH_LOG)
    still.click("#start")
    seen = call_and_watch(still)
    assert seen["logged"] == seen["index"] + 1 and seen["said"] == seen["index"] + 1, seen
    assert not still.js_errors  # type: ignore[attr-defined]
    still.context.close()


# The log's bids that are animating now, by key.
MOVING = """() => [...document.querySelectorAll('.history [data-key]')]
    .filter((el) => el.getAnimations().some((a) => a.playState === 'running'))
    .map((el) => el.dataset.key)"""


def test_only_new_log_entries_fade_in(server: str, browser: Browser) -> None:
    page, _ = seated(browser, server, [None, "easy", "easy"], rules={"starting_dice": 10})
    page.click("#start")
    for _ in range(3):
        our_turn(page)
        page.wait_for_timeout(600)  # the fade-ins of what came so far are over
        before = page.evaluate(
            "[...document.querySelectorAll('.history [data-key]')].map((el) => el.dataset.key)"
        )
        assert any(key.startswith("b") for key in before), before
        version = page.evaluate("document.body.dataset.version")
        page.click("#bid-go")
        assert wait_for_news(page, version)
        moving = page.evaluate(MOVING)
        assert not set(moving) & set(before), (moving, before)
        # The bots answer: each new state again animates its new entry only.
        for _ in range(3):
            version = page.evaluate("document.body.dataset.version")
            if not wait_for_news(page, version, timeout=2000):
                break
            moving = page.evaluate(MOVING)
            assert not set(moving) & set(before), (moving, before)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def game_over(browser: Browser, server: str, **options: Any) -> Page:
    page, _ = seated(browser, server, [None, "easy", "easy"], rules={"starting_dice": 2}, **options)
    page.click("#start")
    play_to_the_end(page, timeout=120)
    return page


def test_at_game_over_the_last_one_out_is_drawn_out(server: str, browser: Browser) -> None:
    page = game_over(browser, server)
    page.wait_for_timeout(1500)  # the last reveal's cups are up
    game = state(page)["game"]
    loser = game["last_reveal"]["loser"]
    assert loser is not None and game["dice_counts"][loser] == 0, game["last_reveal"]
    # The one who lost the last die is drawn out like those out before: no cup, no dice.
    seats = page.evaluate("""() => [...document.querySelectorAll('.felt .seat')].map((el) => ({
        seat: Number(el.dataset.seat), out: el.classList.contains('out'),
        cup: !!el.querySelector('.cup, .seat-dice.revealed'),
        dice: el.querySelectorAll('.seat-dice .die:not(.lost)').length,
        lost: el.querySelectorAll('.seat-dice .die.lost').length}))""")
    for seat in seats:
        if game["dice_counts"][seat["seat"]] == 0:
            assert seat["out"] and not seat["cup"] and not seat["dice"], seats
    # ... and with as many lost dice drawn as the others out.
    assert len({seat["lost"] for seat in seats if seat["out"]}) == 1, seats
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def last_loser_and_verdict(page: Page) -> tuple[dict[str, Any], str, str]:
    """At game over: the game's state, the name of the last reveal's loser, the verdict."""
    game: dict[str, Any] = state(page)["game"]
    loser = game["last_reveal"]["loser"]
    name = str(page.evaluate("(seat) => window.dudo.view.name(seat)", loser))
    return game, name, page.locator(".centre.over .result").inner_text()


def test_the_verdict_says_who_is_out(server: str, browser: Browser) -> None:
    page = game_over(browser, server)
    game, name, verdict = last_loser_and_verdict(page)
    assert f"{name} loses the last die and is out." in verdict, verdict
    assert "loses a die" not in verdict, verdict
    # So does the log, for everyone who went out (and not twice over).
    log = page.locator(".history").inner_text()
    for seat, count in enumerate(game["dice_counts"]):
        if not count:
            out = page.evaluate("(seat) => window.dudo.view.name(seat)", seat)
            assert log.count(f"{out} loses the last die and is out.") == 1, log
            assert f"{out} is out." not in log, log
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_a_bots_bubble_does_not_carry_into_the_rematch(server: str, browser: Browser) -> None:
    page = game_over(browser, server)
    seen = state(page)
    # A bot still speaking at the game's end (here: a line that would stay a minute) is
    # not heard over the rematch's first round.
    bot = next(i for i, s in enumerate(seen["room"]["seats"]) if s["kind"] == "bot")
    page.evaluate(
        "(seat) => { window.dudo.view.voices.said.set(seat, ['Still here!', Date.now() + 60000]);"
        " window.dudo.view.render(); }",
        bot,
    )
    assert "Still here!" in page.locator(".felt").inner_text()
    game_id = seen["fair"]["game_id"]
    page.click("#rematch")
    wait_until(
        page,
        f"() => window.dudo.view.state.game && window.dudo.view.state.fair.game_id !== '{game_id}'",
        timeout=15000,
    )
    page.wait_for_selector(".felt")
    assert "Still here!" not in page.locator(".felt").inner_text()
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_the_verdict_in_german_says_who_is_out(server: str, browser: Browser) -> None:
    page = game_over(browser, server, locale="de-DE")
    _, name, verdict = last_loser_and_verdict(page)
    assert f"{name} verliert den letzten Würfel und ist raus." in verdict, verdict
    assert "verliert einen Würfel" not in verdict, verdict
    assert phase(page) == "over"
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize("size", [(390, 844), (1366, 768)])
def test_screenshots_of_the_reveal_and_the_game_over(
    server: str, browser: Browser, size: tuple[int, int]
) -> None:
    width, height = size
    page, _ = seated(
        browser,
        server,
        [None, "easy", "easy"],
        rules={"starting_dice": 2},
        width=width,
        height=height,
        init=WATCH_LOG,
    )
    page.click("#start")
    our_turn(page)
    page.click("#call-dudo")
    page.wait_for_selector("#reveal, .centre.over")
    page.wait_for_timeout(700)
    keep_shot(page, f"audit-reveal-counting-{width}", full_page=True)
    page.wait_for_timeout(1800)
    keep_shot(page, f"audit-reveal-done-{width}", full_page=True)
    play_to_the_end(page, timeout=120)
    page.wait_for_timeout(2500)
    keep_shot(page, f"audit-game-over-{width}", full_page=True)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
