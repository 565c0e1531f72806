"""The game page (issue 22): an unknown id is told at once in the page's language, the
round buttons stop at the ends, moves a bot made for a player are marked as such, and the
analysis's mistake sentences are said in the page's language from their code."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Route, expect
from test_web import new_page
from test_web_replay import (
    axe_every_rule,
    browser,
    finished,
    open_game,
    run_apart,
    server,
    stored_record,
)

from dudo.bots import make_bot
from dudo.client import Client

__all__ = ["browser", "finished", "server"]  # the fixtures, shared with test_web_replay


@pytest.mark.parametrize(
    ("locale", "heading"),
    [
        ("de-DE", "Hier ist kein beendetes Spiel"),
        ("es-ES", "Aquí no hay ninguna partida terminada"),
        ("en-US", "No finished game here"),
    ],
)
def test_an_unknown_game_is_told_at_once_in_the_pages_language(
    server: str, browser: Browser, locale: str, heading: str
) -> None:
    page = new_page(browser, 390, 844, locale=locale)
    asked: list[str] = []
    page.on(
        "request",
        lambda request: asked.append(request.url) if "/api/games/" in request.url else None,
    )
    page.goto(f"{server}/g/0123456789abcdef0123456789abcdef")
    # At once: one question, no waiting and asking again for a game never seen (the wait
    # below is only for a busy machine loading the page and its strings).
    expect(page.locator("h1")).to_have_text(heading, timeout=15_000)
    assert len(asked) == 1, asked
    text = page.inner_text(".replay-missing")
    assert "no finished game with that id" not in text  # not the server's raw words
    axe_every_rule(page, f"missing game {locale}")
    page.context.close()


LOOKS = """(selectors) => selectors.map((selector) => {
    const style = getComputedStyle(document.querySelector(selector));
    return [style.backgroundColor, style.color, style.borderColor, style.opacity];
})"""


def test_the_round_buttons_stop_at_the_ends(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    page = new_page(browser, 1280, 800)
    open_game(page, server, finished["id"])
    for button in ("#first", "#prev", "#prev-round"):
        expect(page.locator(button)).to_be_disabled()
    expect(page.locator("#next-round")).to_be_enabled()
    # The buttons that cannot be used look alike (Back is a primary button, First and
    # Round are secondary), and each step's sign is one drawn icon, not an emoji glyph.
    looks = page.evaluate(LOOKS, ["#first", "#prev", "#prev-round"])
    assert len({str(look) for look in looks}) == 1, looks
    signs = page.eval_on_selector_all(
        ".control-buttons button",
        "(bs) => bs.map((b) => [b.querySelectorAll('svg').length, b.textContent])",
    )
    for count, text in signs:
        assert count == 1 and not set(text) & set("⏮⏭◀▶«»"), signs
    page.keyboard.press("End")
    for button in ("#last", "#next", "#next-round"):
        expect(page.locator(button)).to_be_disabled()
    expect(page.locator("#prev-round")).to_be_enabled()
    page.click("#prev-round")  # back to the last round's deal: still the last round
    expect(page.locator("#next-round")).to_be_disabled()
    page.click("#prev-round")
    if len(finished["record"]["rounds"]) > 1:
        expect(page.locator("#next-round")).to_be_enabled()
    page.keyboard.press("Home")
    expect(page.locator("#prev-round")).to_be_disabled()
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize(
    ("locale", "words"),
    [
        (
            "de-DE",
            [
                "Wiederholung",
                "Wie jeder gespielt hat",
                "Jedes Gebot und jeder Ruf",
                "Faire Würfel, geprüft in deinem Browser",
                "Die Würfel sind geworfen",
            ],
        ),
        (
            "es-ES",
            [
                "Repetición",
                "Cómo jugó cada uno",
                "Cada apuesta y cada cante",
                "Dados justos, comprobados en tu navegador",
                "Se tiran los dados",
            ],
        ),
    ],
)
def test_the_game_page_speaks_german_and_spanish(
    server: str, browser: Browser, finished: dict[str, Any], locale: str, words: list[str]
) -> None:
    page = new_page(browser, 1280, 800, locale=locale)
    open_game(page, server, finished["id"])
    assert page.evaluate("document.documentElement.lang") == locale[:2]
    text = page.inner_text("main")
    for word in words:
        assert word in text, (word, text[:400])
    for english in (
        "How each player did",
        "Every bid and call",
        "The dice are rolled",
        "Calls right",
        "Download the record",
        "Step through",
    ):
        assert english not in text, english
    page.keyboard.press("End")
    assert "Round" not in page.inner_text("#stage"), page.inner_text("#stage")
    axe_every_rule(page, f"game page {locale}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize(
    ("locale", "sentence", "english"),
    [
        ("de-DE", "bot mit 7% Chance, obwohl eine andere Wahl 79% hatte", "bid at 7%"),
        ("es-ES", "apostó con un 7% cuando otra opción tenía un 79%", "bid at 7%"),
        ("en-US", "bid at 7% when another choice had 79%", None),
    ],
)
def test_the_mistake_sentence_is_said_in_the_pages_language(
    server: str,
    browser: Browser,
    finished: dict[str, Any],
    locale: str,
    sentence: str,
    english: str | None,
) -> None:
    # The game's analysis, with its first move marked as a long shot (the server's
    # English text beside the code and its numbers) and its second with a code this
    # page does not know: that one falls back to the server's words.
    analysis = json.loads(json.dumps(finished["analysis"]))
    first, second = analysis["rounds"][0]["steps"][:2]
    first["mistake"] = {
        "code": "long_shot",
        "params": {"holds": 0.07, "best": 0.79},
        "text": "bid at 7% when another choice had 79%",
    }
    second["mistake"] = {"code": "not_yet_known", "params": {}, "text": "words from the server"}

    def serve(route: Route) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(analysis))

    page = new_page(browser, 1280, 800, locale=locale)
    page.route(re.compile(rf"/api/games/{finished['id']}/analysis$"), serve)
    open_game(page, server, finished["id"])
    page.keyboard.press("ArrowRight")
    marks = page.locator("#stage .insight .marks")
    expect(marks).to_contain_text(sentence)
    if english:
        assert english not in marks.inner_text()
    page.keyboard.press("ArrowRight")
    expect(marks).to_contain_text("words from the server")
    axe_every_rule(page, f"mistake sentence {locale}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_moves_a_stand_in_made_are_marked_and_not_counted_for_the_player(
    server: str, browser: Browser
) -> None:
    """Ben leaves as the game starts: a bot plays his seat to the end. The game page says so
    at each of those moves, and his column of the analysis counts them apart."""

    async def play() -> tuple[str, dict[str, Any]]:
        async with Client(server) as client:
            host = await client.create_room(
                "Ana",
                rules={"preset": "perudo", "starting_dice": 2},
                seats=3,
                bots=[None, None, "easy"],
            )
            ben = await client.join(host.code, "Ben")
            async with client.table(host) as table:
                await table.start()
                async with client.table(ben) as leaving:  # mid-game: a bot takes the seat
                    assert (await leaving.request({"type": "leave"}))["type"] == "ack"
                await table.play(make_bot("normal", seed=5))
                game_id = table.state["fair"]["game_id"]
            return game_id, await stored_record(client, game_id)

    game_id, record = run_apart(play())
    bens = [a for played in record["rounds"] for a in played["actions"] if a["seat"] == 1]
    assert bens and all(action.get("by") == "stand_in" for action in bens), bens
    page = new_page(browser, 1280, 800)
    open_game(page, server, game_id)
    expect(page.locator('[data-stat="by-bot"]')).to_have_count(1)  # Ben's column alone
    expect(page.locator('[data-stat="by-bot"]')).to_have_text(str(len(bens)))
    marked = page.locator(".step-what .by")
    expect(marked.first).to_have_text("a bot standing in")
    assert marked.count() == len(bens), (marked.count(), len(bens))
    axe_every_rule(page, "a game with a stand-in")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
