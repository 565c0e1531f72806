"""The game page (issue 22): an unknown id is told at once in the page's language, the
round buttons stop at the ends, and moves a bot made for a player are marked as such."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, expect
from test_web import new_page
from test_web_replay import axe_every_rule, browser, finished, open_game, server

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
    expect(page.locator("h1")).to_have_text(heading, timeout=1500)
    assert len(asked) == 1, asked  # no waiting and asking again for a game never seen
    text = page.inner_text(".replay-missing")
    assert "no finished game with that id" not in text  # not the server's raw words
    axe_every_rule(page, f"missing game {locale}")
    page.context.close()


def test_the_round_buttons_stop_at_the_ends(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    page = new_page(browser, 1280, 800)
    open_game(page, server, finished["id"])
    for button in ("#first", "#prev", "#prev-round"):
        expect(page.locator(button)).to_be_disabled()
    expect(page.locator("#next-round")).to_be_enabled()
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
