"""A finished game's every move (the game page's log, /g/ID): its columns (the step's number,
who, the move, its chance, what the hard bot would have done, the marks) line up from row to
row and from round to round at every width the page has, a long name in one row shifting
nothing in the others (each move was a grid of its own: a name, a chance or a mark wider
than the next row's moved that row's columns). Each move keeps its line on a laptop and a
desktop, the current one is still a whole row, and a phone does not scroll sideways."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect
from test_web import check_fits, keep_shot, new_page
from test_web_replay import axe_every_rule, browser, open_game, run_apart, server, stored_record

from dudo.bots import make_bot
from dudo.client import Client

__all__ = ["browser", "server"]  # the fixtures, shared with test_web_replay

LONG_NAME = "Maximiliana Oyarzún-Ruiz"  # 24 characters, the most a name may have
CELLS = ["step-link", "step-who", "step-what", "step-chance", "step-hard", "step-notes"]
SIZES = [(320, 568), (390, 844), (1024, 768), (1280, 800), (1440, 900), (1920, 1080)]

# For each column, the left x of its cell in every move of every round; and for each move,
# the lines its words take, its box and the tops and bottoms of its cells.
MEASURE = """(cells) => {
    const log = document.querySelector('#log').getBoundingClientRect();
    const steps = [...document.querySelectorAll('#log .step')];
    const lefts = Object.fromEntries(cells.map((cell) => [cell,
        steps.map((step) => step.querySelector(`.${cell}`)).filter(Boolean)
            .map((el) => el.getBoundingClientRect().left)]));
    const rows = steps.map((step) => {
        const what = step.querySelector('.step-what');
        const box = step.getBoundingClientRect();
        const words = document.createRange();
        words.selectNodeContents(what.firstChild);  // the move's words, before any note
        const lines = new Set([...words.getClientRects()].map((r) => Math.round(r.top)));
        return {id: step.id, lines: lines.size, left: box.left, right: box.right,
                boxes: cells.map((cell) => step.querySelector(`.${cell}`)).filter(Boolean)
                    .map((el) => el.getBoundingClientRect()).map((r) => [r.top, r.bottom])};
    });
    return {lefts, rows, log: {left: log.left, right: log.right}};
}"""


@pytest.fixture(scope="module")
def long_named(server: str) -> dict[str, Any]:
    """A whole game in which one player's name is as long as a name may be, beside two
    bots' short ones."""

    async def play() -> dict[str, Any]:
        async with Client(server) as client:
            seat = await client.create_room(
                LONG_NAME,
                rules={"preset": "perudo", "starting_dice": 3},
                seats=3,
                bots=[None, "hard", "normal"],
            )
            async with client.table(seat) as table:
                await table.start()
                await table.play(make_bot("normal", seed=4))
                game_id = table.state["fair"]["game_id"]
            return {"id": game_id, "record": await stored_record(client, game_id)}

    return run_apart(play())


def misaligned(measured: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The columns whose cells do not share a left edge (within a pixel): their extremes."""
    spread = {cell: (min(xs), max(xs)) for cell, xs in measured["lefts"].items() if len(xs) > 1}
    return {cell: (lo, hi) for cell, (lo, hi) in spread.items() if hi - lo > 1}


def log_problems(page: Page, width: int, name: str) -> dict[str, Any]:
    """What is wrong with the log's rows at this width (nothing: an empty dict): columns
    out of line, moves over more than a line, rows not the log's width, and from 900 px
    cells under one another. Told, not asserted, so that a test can tell every width's."""
    measured: dict[str, Any] = page.evaluate(MEASURE, CELLS)
    rows = measured["rows"]
    assert len(rows) > 10, (name, len(rows))
    for cell in ("step-link", "step-who", "step-what", "step-chance", "step-hard"):
        assert len(measured["lefts"][cell]) == len(rows), (name, cell)
    log = measured["log"]
    problems = {
        "out of line": misaligned(measured),
        # A move's words on a line (a perudo game's moves fit one at any of these widths).
        "moves wrapped": [row["id"] for row in rows if row["lines"] != 1],
        # Each move is a whole row of the log (its stripe and the current one's outline).
        "rows not whole": [
            row["id"]
            for row in rows
            if abs(row["left"] - log["left"]) > 1 or abs(row["right"] - log["right"]) > 1
        ],
        # From 900 px a line a move: its cells side by side, none under another.
        "cells stacked": [
            row["id"]
            for row in rows
            if width >= 900
            and max(top for top, _ in row["boxes"]) >= min(bottom for _, bottom in row["boxes"])
        ],
    }
    return {key: value for key, value in problems.items() if value}


def test_the_logs_columns_line_up_at_every_width(
    server: str, browser: Browser, long_named: dict[str, Any]
) -> None:
    names = long_named["record"]["names"]
    assert LONG_NAME in names and min(len(n) for n in names) < 10, names
    page = new_page(browser, 1280, 800)
    open_game(page, server, long_named["id"])
    for _ in range(2):  # a round has two moves at least: a bid and a call
        page.keyboard.press("ArrowRight")
    current = page.locator("#log .step.current")
    expect(current).to_have_attribute("id", "log-r1s2")
    expect(current).to_have_attribute("aria-current", "step")
    axe_every_rule(page, "the log at 1280")
    page.click("#all-rounds")  # every round's moves (the current round's alone are open)
    problems: dict[str, dict[str, Any]] = {}
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("scrollTo(0, 0)")
        name = f"replay-log-{width}x{height}"
        check_fits(page, name)  # no sideways scroll, 320 px too
        problems[name] = log_problems(page, width, name)
        rounds = page.locator("#log .round-log")  # the first two rounds' moves, up close
        top = rounds.first.bounding_box() or {}
        end = rounds.nth(1).bounding_box() or {}
        clip = {"x": top["x"], "y": top["y"], "width": top["width"]}
        clip["height"] = end["y"] + end["height"] - top["y"]
        keep_shot(page, f"{name}-moves", clip=clip, full_page=True)
    assert not any(problems.values()), problems
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize(("width", "height"), [(360, 640), (1024, 768)])
def test_the_logs_columns_line_up_on_a_touch_screen(
    server: str, browser: Browser, long_named: dict[str, Any], width: int, height: int
) -> None:
    """A phone's and a tablet's touch screen, where a step's number is a finger's width:
    the columns still line up, and a tablet's moves still take a line each."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    page.set_default_timeout(8000)
    open_game(page, server, long_named["id"])
    page.click("#all-rounds")  # every round's moves (the current round's alone are open)
    assert page.evaluate("matchMedia('(pointer: coarse)').matches")
    name = f"replay-log-touch-{width}x{height}"
    check_fits(page, name)
    problems = log_problems(page, width, name)
    assert not problems, (name, problems)
    links = page.evaluate(
        "[...document.querySelectorAll('#log .step-link')].map((a) => a.offsetWidth)"
    )
    assert min(links) >= 40, links
    context.close()
