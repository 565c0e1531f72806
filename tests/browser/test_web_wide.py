"""A finished game's page (/g/ID) and the profile page (/me) on a big screen use it as the
table does (dudo.css, table.css: from 1600 px the page widens, two columns), and so does a
laptop's from 1280 px (1280x720, 1366x768, 1440x900): the replay beside the moves and the
analysis, the numbers beside the games over time (below 1600 px the numbers across, the
games over time beside the leaderboard), the profile's head card a line across its width,
readable lines, nothing overlapping; and neither page scrolls sideways from a small phone
to a 2560 px monitor, phones and a 1024 px tablet keeping their one column."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, Route, expect
from test_web import check_fits, keep_shot, new_page
from test_web_replay import axe_every_rule, browser, finished, open_game, server

__all__ = ["browser", "finished", "server"]  # the fixtures, shared with test_web_replay

SIZES = [
    (320, 568),
    (360, 640),
    (390, 844),
    (640, 360),
    (1024, 768),
    (1280, 720),
    (1366, 768),
    (1440, 900),
    (1920, 1080),
    (2560, 1440),
]
TWO_COLUMNS = 1280  # from a laptop's width; a 1024 px tablet keeps its one column

# The boxes of the page's panels (its head and every card), the width they take together
# and the widest paragraph of text in them.
MEASURE = """(selector) => {
    const boxes = [...document.querySelectorAll(selector)].map((el) => {
        const box = el.getBoundingClientRect();
        return {name: el.id || el.className, left: box.left, right: box.right,
                top: box.top + scrollY, bottom: box.bottom + scrollY};
    });
    const left = Math.min(...boxes.map((b) => b.left));
    const right = Math.max(...boxes.map((b) => b.right));
    const texts = [...document.querySelectorAll(`:is(${selector}) p`)]
        .filter((p) => p.textContent.trim().length > 80)
        .map((p) => p.getBoundingClientRect().width / parseFloat(getComputedStyle(p).fontSize));
    return {boxes, share: (right - left) / document.documentElement.clientWidth,
            widest: Math.max(0, ...texts)};
}"""


# How much of the profile's head card its content spans: from the left of its first words
# (or the avatar) to the right of its last, a share of the card's width inside its padding.
# Form fields are left out, as a field stretched across would fill the card with nothing.
HEAD_SPAN = """() => {
    const card = document.querySelector('.profile-head-card');
    const style = getComputedStyle(card);
    const inner = card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const rects = [...card.querySelectorAll('svg')].map((el) => el.getBoundingClientRect());
    const walker = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim() || node.parentElement.closest('.sr-only')) continue;
        range.selectNodeContents(node);
        rects.push(...range.getClientRects());
    }
    const left = Math.min(...rects.map((r) => r.left));
    const right = Math.max(...rects.map((r) => r.right));
    return (right - left) / inner;
}"""


def side_by_side(boxes: list[dict[str, Any]]) -> bool:
    """Whether two of the boxes share a row, one beside the other."""
    return any(
        abs(a["top"] - b["top"]) < 1 and (a["right"] <= b["left"] or b["right"] <= a["left"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
    )


def overlaps(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The pairs of boxes that overlap (by more than a pixel's rounding)."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if (
                min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
                and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5
            ):
                found.append((a["name"], b["name"]))
    return found


def page_fits(page: Page, name: str) -> None:
    """As test_web.check_fits, but a table in a box of its own that scrolls sideways
    (the profile's games per preset at 320 px, as before) may be wider than the screen."""
    keep_shot(page, name, full_page=True)
    overflow = page.evaluate("""() => {
        const width = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll('body *')].filter((el) => {
            const box = el.getBoundingClientRect();
            return box.width > 0 && (box.right > width + 1 || box.left < -1)
                && !el.closest('.sr-only, .skip, .table-wrap');
        }).map((el) => el.tagName + '.' + el.className);
        const wraps = [...document.querySelectorAll('.table-wrap')].filter((el) => {
            const box = el.getBoundingClientRect();
            return box.right > width + 1 || box.left < -1;
        });
        return {scroll: document.documentElement.scrollWidth - width, wide: wide.slice(0, 5),
                wraps: wraps.length};
    }""")
    assert overflow["scroll"] <= 0 and not overflow["wide"] and not overflow["wraps"], (
        name,
        overflow,
    )


def box(page: Page, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.locator(selector).bounding_box() or {}
    return found


REPLAY_PANELS = ".replay > *"
PROFILE_PANELS = "main > .card"


def moves_beside_the_replay(page: Page, height: int) -> None:
    """The moves stand in the column beside the replay and begin on the first screen. Not
    "beside the stage's box": the right column's head and how each played are about as tall
    as the stage, whose height follows the step it shows (at 2560x1440 the moves began 2 px
    below a 673 px stage in one game, 36 px above a 709 px one in another)."""
    stage, log = box(page, ".stage-card"), box(page, ".replay-log")
    assert stage["x"] + stage["width"] <= log["x"], (height, stage, log)
    assert stage["y"] <= log["y"] < height, (height, stage, log)


def replay_stays_in_view(page: Page, height: int) -> None:
    """The replay stays in view beside the moves: a step picked at the foot of the log is
    shown there without the page leaving the log."""
    steps = page.locator("#log .step-link")
    last = steps.nth(steps.count() - 2)
    last.scroll_into_view_if_needed()
    last.click()
    expect(page.locator(".step.current .step-link")).to_have_text(last.inner_text())
    stage = box(page, ".stage-card")
    assert stage["y"] >= 0 and stage["y"] + stage["height"] <= height, (height, stage)
    link = box(page, ".step.current .step-link")
    assert 0 <= link["y"] <= height, (height, link)


def test_a_games_page_uses_a_big_screen_and_fits_every_size(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    page = new_page(browser, 1920, 1080)
    open_game(page, server, finished["id"])
    page.keyboard.press("ArrowRight")
    page.click("#all-rounds")  # every round's moves (the current round's alone are open)
    measured = page.evaluate(MEASURE, REPLAY_PANELS)
    # Half the width before (a 980 px column); the table's 1760 px now.
    assert measured["share"] > 0.8, measured["share"]
    assert not overlaps(measured["boxes"]), overlaps(measured["boxes"])
    moves_beside_the_replay(page, 1080)
    assert measured["widest"] <= 48, measured["widest"]  # about 80 characters a line at most
    replay_stays_in_view(page, 1080)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("scrollTo(0, 0)")
        check_fits(page, f"wide-replay-{width}x{height}")
        measured = page.evaluate(MEASURE, REPLAY_PANELS)
        assert not overlaps(measured["boxes"]), (width, overlaps(measured["boxes"]))
        stage, log = box(page, ".stage-card"), box(page, ".replay-log")
        if width < TWO_COLUMNS:  # one column, as before
            assert stage["x"] == log["x"] and stage["y"] < log["y"], (width, stage, log)
            continue
        # A laptop's screen too (a 980 px column before: 0.75 of 1280 px, 0.66 of 1440).
        assert measured["share"] > 0.8, (width, measured["share"])
        moves_beside_the_replay(page, height)
        assert measured["widest"] <= 48, (width, measured["widest"])
        replay_stays_in_view(page, height)  # 720 px high too
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def profile_with_games(route: Route) -> None:
    """The profile as the server has it, with a dozen games in three presets and a
    leaderboard opted into (a new profile has played nothing)."""
    data = route.fetch().json()
    counts = {
        "games": 12,
        "wins": 5,
        "rounds": 140,
        "calls_right": 21,
        "calls_wrong": 13,
        "bluffs_caught": 9,
        "bluffs_survived": 17,
        "calza_right": 2,
        "calza_wrong": 3,
        "best_streak": 3,
    }
    presets = ["perudo", "dudo", "custom"]
    data["profile"]["rating"] = {"games": 12, "shown": 1562.4}
    data["profile"]["leaderboard"] = True
    data["stats"] = {
        "total": counts,
        "presets": {name: {key: value // 3 for key, value in counts.items()} for name in presets},
        "timeline": [
            {
                "game_id": f"{game:032x}",
                "at": 1_760_000_000 + game * 3600,
                "won": game % 3 == 0,
                "preset": presets[game % 3],
                "calls_right": game % 4,
                "calls_wrong": game % 2,
            }
            for game in range(12)
        ],
    }
    route.fulfill(response=route.fetch(), body=json.dumps(data))


def leaderboard(route: Route) -> None:
    players = [
        {
            "place": place + 1,
            "name": name,
            "avatar": None,
            "rating": {"shown": 1600 - 20 * place, "games": 10 + place},
        }
        for place, name in enumerate(["Ana", "Ben", "Carla", "Dmitri", "Eve"])
    ]
    route.fulfill(json={"players": players})


def test_the_profile_page_uses_a_big_screen_and_fits_every_size(
    server: str, browser: Browser
) -> None:
    page = new_page(browser, 1920, 1080)
    page.route("**/api/profile/me", profile_with_games)
    page.route("**/api/leaderboard", leaderboard)
    page.goto(f"{server}/me")
    expect(page.locator('[data-stat="games"]')).to_have_text("12")
    expect(page.locator("#board tbody tr")).to_have_count(5)
    measured = page.evaluate(MEASURE, PROFILE_PANELS)
    assert measured["share"] > 0.8, measured["share"]  # half the width before
    assert not overlaps(measured["boxes"]), overlaps(measured["boxes"])
    stats, plots = box(page, ".card:has(#stats-title)"), box(page, ".card:has(#plots-title)")
    assert stats["x"] + stats["width"] <= plots["x"]  # the numbers beside the games
    assert abs(stats["y"] - plots["y"]) < 1
    assert measured["widest"] <= 48, measured["widest"]
    # The head card's name, rating and form across it (they took 0.19 of it, the rest empty).
    assert page.evaluate(HEAD_SPAN) > 0.8, page.evaluate(HEAD_SPAN)
    axe_every_rule(page, "profile 1920")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page_fits(page, f"wide-profile-{width}x{height}")
        measured = page.evaluate(MEASURE, PROFILE_PANELS)
        assert not overlaps(measured["boxes"]), (width, overlaps(measured["boxes"]))
        stats, plots = box(page, ".card:has(#stats-title)"), box(page, ".card:has(#plots-title)")
        if width < TWO_COLUMNS:  # one column, as before
            assert stats["x"] == plots["x"] and stats["y"] < plots["y"], (width, stats, plots)
            continue
        # A laptop's screen too (a 980 px column before: 0.75 of 1280 px, 0.66 of 1440), the
        # cards two by two (below 1600 px the numbers across, for their table's columns).
        assert measured["share"] > 0.8, (width, measured["share"])
        assert side_by_side(measured["boxes"]), (width, measured["boxes"])
        assert measured["widest"] <= 48, (width, measured["widest"])
        assert page.evaluate(HEAD_SPAN) > 0.8, (width, page.evaluate(HEAD_SPAN))
        # The numbers' table shows all its columns without scrolling sideways in its box.
        wrap = page.locator(".presets-table").locator("..")
        hidden = wrap.evaluate("(el) => el.scrollWidth - el.clientWidth")
        assert hidden <= 0, (width, hidden)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
