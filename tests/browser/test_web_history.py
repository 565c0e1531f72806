"""A finished game's results are history, in a real browser against a real server.

The seat changes of issue 22: a game played to its end with a bot at seat 4; between
games the host makes seat 4 an open seat, then a spectator sits there as Dee. The winner
line, the standings, the game log and the reveal sentence keep naming the bot that
played, and the server's state keeps the names the game was played by.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect
from test_web import TIMINGS, axe_check, chromium
from test_web_table import open_page, play_to_the_end, seated, state

from serverkit import server_process, sqlite_url

RESULTS = ".centre.over h2, .centre.over .result, .standings-list, .history .log-rounds"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("history")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def results(page: Page) -> str:
    return str(
        page.evaluate(f"""() => [...document.querySelectorAll('{RESULTS}')]
        .map((el) => el.innerText).join('\\n')""")
    )


def test_results_keep_the_names_of_the_game_when_seats_change(
    server: str, browser: Browser
) -> None:
    host, code = seated(
        browser,
        server,
        [None, "easy", "easy", "easy"],
        rules={"preset": "perudo", "starting_dice": 1},
        width=1280,
        height=900,
    )
    host.click("#start")
    play_to_the_end(host)
    bot = state(host)["room"]["seats"][3]["name"]
    played = state(host)["names"]
    assert played[3] == bot, played
    before = results(host)
    assert bot in before, before
    # The host frees the bot's seat for the next game.
    host.locator(".next-game").scroll_into_view_if_needed()
    host.select_option("#seat-kind-3", "")
    expect(host.locator(".next-game .seat-list em")).to_have_count(1)
    assert state(host)["room"]["seats"][3]["kind"] == "open"
    assert state(host)["names"] == played
    after = results(host)
    assert "Seat 4" not in after and after == before, (before, after)
    # A spectator sits there as Dee: the game she did not play is not hers.
    guest = open_page(browser, 390, 844)
    guest.goto(f"{server}/r/{code}?watch=1")
    expect(guest.locator(".centre.over")).to_be_visible()
    guest.fill("#take-name", "Dee")
    guest.click("#take-seat")
    expect(guest.locator(".next-game .badge.you")).to_be_visible()
    expect(host.locator(".next-game .seat-list")).to_contain_text("Dee")
    for page in (host, guest):
        shown = results(page)
        assert "Dee" not in shown and bot in shown, shown
        assert state(page)["names"] == played
    assert results(host) == before
    axe_check(guest, "results after the seats changed")
    for page in (host, guest):
        assert not page.js_errors  # type: ignore[attr-defined]
        page.context.close()
