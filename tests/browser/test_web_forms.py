"""The forms and words an outside audit found wanting, in a real browser (Debian's Chromium
through Playwright, as tests/browser/test_web.py): the profile page and the fair-dice lines
of a game's page in German and Spanish, the join page of a game already started, the
create form's seats for Common Hand, house rules that do not apply disabled, and name
inputs that hold no more than the server keeps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, Route, expect
from test_web import axe_check, chromium, keep_shot, new_page
from test_web_replay import finished, open_game, run_apart, server

from dudo.client import Client
from dudo.printable import MOST_NAME

__all__ = ["finished", "server"]  # the replay suite's fixtures, used here


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


PROFILE_WORDS = {
    "de-DE": ("dudo · dein Profil", "Spieler"),
    "es-ES": ("dudo · tu perfil", "Jugador"),
}


@pytest.mark.parametrize("locale", sorted(PROFILE_WORDS))
def test_the_profile_page_speaks_the_browsers_language(
    server: str, browser: Browser, locale: str
) -> None:
    title, name = PROFILE_WORDS[locale]
    page = new_page(browser, locale=locale)
    page.goto(f"{server}/me")
    expect(page.locator("#profile-name")).to_have_text(name)
    expect(page.locator("#profile-name-input")).to_have_value(name)
    expect(page).to_have_title(title)
    assert "profile" not in page.title()
    page.context.close()


FAIR_WORDS = {
    # The game of `finished` (two bots), its first round.
    "de-DE": (
        r"Zusage [0-9a-f]{12}… passt",
        r"\d+ Server-Seeds? gebunden",
        r"\d+ Würfel neu berechnet",
    ),
    "es-ES": (
        r"el compromiso [0-9a-f]{12}… coincide",
        r"\d+ semillas? del servidor vinculadas?",
        r"\d+ dados recalculados",
    ),
}


@pytest.mark.parametrize("locale", sorted(FAIR_WORDS))
def test_the_fair_dice_lines_speak_the_browsers_language(
    server: str, browser: Browser, finished: dict[str, Any], locale: str
) -> None:
    page = new_page(browser, locale=locale)
    open_game(page, server, finished["id"])
    first = page.locator('#fair-rounds li[data-round="1"]')
    for words in FAIR_WORDS[locale]:
        expect(first).to_contain_text(re.compile(words))
    text = page.inner_text("#fair")
    for english in ("matches", "bound", "recomputed", "commitment", "seeded"):
        assert english not in text, (english, text)
    page.context.close()


def started_room(server: str) -> str:
    """A room of one player and a bot whose game has started (and waits for the player)."""

    async def make() -> str:
        async with Client(server) as client:
            seat = await client.create_room("Ana", seats=2, bots=[None, "normal"], timer=0)
            async with client.table(seat) as table:
                await table.start()
            return str(seat.code)

    return run_apart(make())


def test_a_started_games_link_does_not_offer_a_seat(server: str, browser: Browser) -> None:
    code = started_room(server)
    assert httpx.get(f"{server}/api/rooms/{code}").json()["status"] == "playing"
    page = new_page(browser)
    page.goto(f"{server}/r/{code}")
    lead = page.locator(".join .lead")
    expect(lead).to_have_text("Ana invites you to a game of Liar's Dice.")
    expect(page.locator(".join")).to_contain_text("The game has started. You can watch")
    expect(page.locator("#name")).to_have_count(0)
    expect(page.locator("#watch")).to_be_visible()
    page.context.close()


def test_common_hand_sets_two_seats_and_the_host_may_change_them(
    server: str, browser: Browser
) -> None:
    page = new_page(browser)
    page.goto(f"{server}/")
    seats = page.locator("#seats")
    expect(seats).to_have_value("4")
    page.select_option("#preset", "common-hand")
    expect(seats).to_have_value("2")
    expect(page.locator("#seat-list li")).to_have_count(2)
    page.select_option("#preset", "perudo")  # set by the preset: back to the form's 4
    expect(seats).to_have_value("4")
    page.select_option("#preset", "common-hand")
    page.select_option("#seats", "3")  # the host's own choice...
    expect(page.locator("#seat-list li")).to_have_count(3)
    page.select_option("#preset", "perudo")  # ...stays
    expect(seats).to_have_value("3")
    page.context.close()


def test_house_rules_that_do_not_apply_are_disabled_and_keep_their_values(
    server: str, browser: Browser
) -> None:
    page = new_page(browser)
    page.goto(f"{server}/")
    page.click("#house-rules summary")
    minimum = page.locator("#opt-calza_min_players")
    rounds = page.locator("#opt-points_rounds")
    palifico_parts = [
        page.locator(f"#opt-palifico_{part}")
        for part in ("once_per_player", "min_players", "open_on_ones", "one_die_may_change_face")
    ]
    # Perudo: calza and palifico on, elimination.
    expect(minimum).to_be_enabled()
    for part in palifico_parts:
        expect(part).to_be_enabled()
    expect(rounds).to_be_disabled()
    # Calza off: its player minimum means nothing; its value waits.
    minimum.fill("4")
    page.select_option("#opt-calza", "off")
    expect(minimum).to_be_disabled()
    expect(minimum).to_have_value("4")
    page.select_option("#opt-calza", "in_turn")
    expect(minimum).to_be_enabled()
    expect(minimum).to_have_value("4")
    # Palifico off: its own options mean nothing.
    page.locator("#opt-palifico_min_players").fill("3")
    page.uncheck("#opt-palifico")
    for part in palifico_parts:
        expect(part).to_be_disabled()
    expect(page.locator("#opt-palifico_min_players")).to_have_value("3")
    page.select_option("#opt-calza", "off")
    page.locator("#opt-palifico_min_players").scroll_into_view_if_needed()
    keep_shot(page, "forms-house-rules-off-1280")
    axe_check(page, "house rules that do not apply")  # the dimmed labels still read
    page.select_option("#opt-calza", "in_turn")
    page.check("#opt-palifico")
    for part in palifico_parts:
        expect(part).to_be_enabled()
    # A points race: its rounds apply, palifico (and so its options) does not.
    page.select_option("#opt-format", "points")
    expect(rounds).to_be_enabled()
    expect(page.locator("#opt-palifico")).to_be_disabled()
    for part in palifico_parts:
        expect(part).to_be_disabled()
    rounds.fill("7")
    page.select_option("#opt-format", "elimination")
    expect(rounds).to_be_disabled()
    expect(rounds).to_have_value("7")
    for part in palifico_parts:
        expect(part).to_be_enabled()
    # A preset with neither calza nor palifico starts with their options disabled.
    page.select_option("#preset", "tavern")
    expect(minimum).to_be_disabled()
    for part in palifico_parts:
        expect(part).to_be_disabled()
    page.select_option("#preset", "perudo")
    page.set_viewport_size({"width": 1366, "height": 768})
    page.locator("#house-rules").scroll_into_view_if_needed()
    keep_shot(page, "forms-house-rules-1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#house-rules").scroll_into_view_if_needed()
    keep_shot(page, "forms-house-rules-390", full_page=True)
    page.context.close()


def typed_name(page: Page, selector: str) -> str:
    page.fill(selector, "")
    page.locator(selector).press_sequentially("N" * (MOST_NAME + 10))
    return str(page.locator(selector).input_value())


def test_every_name_input_holds_what_the_server_keeps(server: str, browser: Browser) -> None:
    page = new_page(browser)
    page.goto(f"{server}/")
    assert typed_name(page, "#name") == "N" * MOST_NAME
    answer = httpx.post(
        f"{server}/api/rooms", json={"name": "Ana", "seats": 2, "bots": [None, None]}
    )
    code = answer.json()["code"]
    joining = new_page(browser)
    joining.goto(f"{server}/r/{code}")
    assert typed_name(joining, "#name") == "N" * MOST_NAME
    joining.goto(f"{server}/me")
    expect(joining.locator("#profile-name-input")).to_be_visible()
    assert typed_name(joining, "#profile-name-input") == "N" * MOST_NAME
    for each in (page, joining):
        each.context.close()


def test_a_fair_dice_problem_speaks_the_browsers_language(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    changed = json.loads(json.dumps(finished["record"]))
    changed["fairness"][0]["server_seed"] = "not hex"
    page = new_page(browser, locale="de-DE")

    def serve_changed(route: Route) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(changed))

    page.route(re.compile(rf"/api/games/{finished['id']}$"), serve_changed)
    open_game(page, server, finished["id"], fair="failed")
    expect(page.locator('#fair-rounds li[data-round="1"]')).to_contain_text(
        "der Seed des Servers ist keine Hex-Bytefolge"
    )
    assert "not hex" not in page.inner_text("#fair")
    page.context.close()
