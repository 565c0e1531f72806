"""After the game, as a player reads it: the profile page names presets as the rest of the
client does (in the page's language, never the raw id), numbers are written as the page's
language writes them, and a record cut down to nothing is not verified."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Route, expect
from test_web import new_page
from test_web_replay import browser, finished, open_game, server

__all__ = ["browser", "finished", "server"]  # the fixtures, shared with test_web_replay


def counters(games: int, wins: int) -> dict[str, int]:
    keys = ["rounds", "calls_right", "calls_wrong", "bluffs_caught", "bluffs_survived"]
    keys += ["calza_right", "calza_wrong", "best_streak"]
    return {"games": games, "wins": wins, **dict.fromkeys(keys, 0)}


@pytest.mark.parametrize(
    ("locale", "names"),
    [
        (
            "en-US",
            {"common-hand": "Common Hand", "ones-lock": "Ones lock", "custom": "House rules"},
        ),
        (
            "de-DE",
            {"common-hand": "Common Hand", "ones-lock": "Einser-Sperre", "custom": "Hausregeln"},
        ),
        (
            "es-ES",
            {
                "common-hand": "Common Hand",
                "ones-lock": "Ases bloqueados",
                "custom": "Reglas de la casa",
            },
        ),
    ],
)
def test_the_profile_page_names_presets_in_the_pages_language(
    server: str, browser: Browser, locale: str, names: dict[str, str]
) -> None:
    page = new_page(browser, 1280, 900, locale=locale)

    def stats(route: Route) -> None:
        answer: dict[str, Any] = json.loads(route.fetch().text())
        answer["stats"] = {
            "total": counters(3, 1),
            "presets": {preset: counters(1, preset == "custom") for preset in names},
            "timeline": [
                {
                    "game_id": f"{k:032x}",
                    "at": 1_790_000_000 + k,
                    "preset": preset,
                    "won": preset == "custom",
                    "place": 1,
                    "calls_right": 0,
                    "calls_wrong": 0,
                }
                for k, preset in enumerate(names)
            ],
        }
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answer))

    page.route("**/api/profile/me", stats)
    page.goto(f"{server}/me")
    for preset, name in names.items():
        expect(page.locator(f'tr[data-preset="{preset}"] th')).to_have_text(name)
    recent = page.locator("#recent-games")
    for preset, name in names.items():
        expect(recent).to_contain_text(f"({name})")
        assert preset not in recent.inner_text()
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_a_record_without_rounds_is_not_verified(server: str, browser: Browser) -> None:
    """A record cut down to no rounds on its way (or stored so) says NOT verified, not
    "checking..." forever behind a script error."""
    page = new_page(browser, 1280, 800)
    game_id = "0123456789abcdef0123456789abcdef"
    record = {
        "players": 2,
        "names": ["Ana", "Bo"],
        "bots": [],
        "rules": {},
        "start": {},
        "rounds": [],
        "fairness": [],
        "game_id": game_id,
        "room": "ABCD",
    }
    page.route(
        f"**/api/games/{game_id}",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(record)
        ),
    )
    page.goto(f"{server}/g/{game_id}")
    expect(page.locator("#fair")).to_have_attribute("data-state", "failed")
    expect(page.locator("#fair-verdict")).to_contain_text("NOT VERIFIED")
    expect(page.locator("#fair-verdict")).to_contain_text("no rounds")
    for key in ("ArrowRight", "PageDown", "End", "PageUp"):
        page.locator("#slider").press(key)
    assert not page.js_errors, page.js_errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize(("locale", "point"), [("de-DE", ","), ("es-ES", ","), ("en-US", ".")])
def test_decimals_are_written_as_the_pages_language_writes_them(
    server: str, browser: Browser, finished: dict[str, Any], locale: str, point: str
) -> None:
    other = "." if point == "," else ","
    page = new_page(browser, 1280, 900, locale=locale)
    open_game(page, server, finished["id"])
    page.keyboard.press("ArrowRight")  # the first bid: its expected dice, and hard's
    insight = page.locator("#stage .insight")
    expect(insight).to_contain_text(re.compile(rf"[+−]\d+{re.escape(point)}\d\d "))
    assert not re.search(rf"[+−]\d+{re.escape(other)}\d\d ", insight.inner_text())

    def rated(route: Route) -> None:
        answer: dict[str, Any] = json.loads(route.fetch().text())
        answer["profile"]["rating"] = {"mu": 18.77, "sigma": 7.612, "shown": -4.06, "games": 3}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answer))

    page.route("**/api/profile/me", rated)
    page.goto(f"{server}/me")
    expect(page.locator("#rating-line")).to_contain_text(f"4{point}1")
    page.context.close()


def test_my_games_dates_are_written_in_the_pages_language(server: str, browser: Browser) -> None:
    """A browser set to American English showing the page in German writes the dates of
    /my-games as German does (they followed the browser's locale: 12/5/2026, 8:10:00 PM)."""
    page = new_page(browser, 1280, 900, locale="en-US")
    page.goto(server + "/")
    when = 1_764_965_400_000  # 2025-12-05 20:10 UTC
    game = {"id": "a" * 32, "room": "ABCD", "names": ["Ana", "Ben"], "when": when}
    page.evaluate(
        """(game) => { localStorage.setItem('dudo.lang', 'de');
            localStorage.setItem('dudo.games', JSON.stringify([game])); }""",
        game,
    )
    page.goto(server + "/my-games")
    shown = page.locator(f'li[data-game="{game["id"]}"] .help')
    expect(shown).not_to_be_empty()
    expected = page.evaluate("(ms) => new Date(ms).toLocaleString('de')", when)
    assert shown.inner_text().startswith(expected), (shown.inner_text(), expected)
    assert "PM" not in shown.inner_text() and "/" not in shown.inner_text()
    page.context.close()
