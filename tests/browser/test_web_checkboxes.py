"""Checkboxes a finger can hit, and a German table's bots with German names, in a real
browser (Debian's Chromium through Playwright, as tests/browser/test_web_create_form.py).

An outside audit (items 31 and 23) found the boxes 19 × 19 px on phones ("Show the odds",
"Bot talk", the per-bot "Who may talk" boxes, the house rules; /me's leaderboard opt-in 16
× 19), the per-bot boxes in tight rows; and "Uncle Bo" at the German and Spanish tables.
Now on a touch screen every box is 24 px or more and its label, the row a tap lands on, 40
px tall or more, rows apart, nothing wider than the screen from 320 to 1920 px; and a room
made from a German page seats "Onkel Bo" and "Der Professor", whose own lines (voice.js)
they still say.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect
from test_web import TIMINGS, chromium, keep_shot
from test_web_audit import seat_in_a_room
from test_web_table import wait_for_lobby

from serverkit import server_process, sqlite_url

pytestmark = pytest.mark.timeout(180)

BOX = 24  # the least side of a box on a touch screen, px
ROW = 40  # the least height of the label around it (the tap target), px


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("checkboxes")), env=TIMINGS) as (
        base,
        _,
    ):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def new_page(
    browser: Browser, width: int, height: int, touch: bool = True, locale: str = "en-US"
) -> Page:
    context = browser.new_context(
        viewport={"width": width, "height": height},
        has_touch=touch,
        is_mobile=touch,
        locale=locale,
    )
    page = context.new_page()
    page.set_default_timeout(10000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    return page


# Every checkbox shown: its size, and its label's box (the target a tap lands on); the
# labels that overlap another's box; and the page's width against the screen's.
CHECKBOXES = """() => {
    // (A closed <details> keeps its content's boxes: checkVisibility leaves them out.)
    const shown = [...document.querySelectorAll('input[type=checkbox]')].filter((el) => {
        const box = el.getBoundingClientRect();
        return box.width && box.height && el.checkVisibility({visibilityProperty: true});
    });
    const rect = (el) => { const r = el.getBoundingClientRect();
        return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                width: r.width, height: r.height}; };
    const boxes = shown.map((el) => ({
        id: el.id || `voice-${el.dataset.voiceSeat ?? ''}`,
        box: rect(el), label: el.closest('label') ? rect(el.closest('label')) : null,
        inside: !!el.closest('label')}));
    const overlaps = [];
    for (const [i, a] of boxes.entries()) {
        for (const b of boxes.slice(i + 1)) {
            if (!a.label || !b.label) continue;
            const x = Math.min(a.label.right, b.label.right) - Math.max(a.label.left, b.label.left);
            const y = Math.min(a.label.bottom, b.label.bottom) - Math.max(a.label.top, b.label.top);
            if (x > 0.5 && y > 0.5) overlaps.push([a.id, b.id]);
        }
    }
    return {boxes, overlaps, scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth};
}"""


def finger_sized(page: Page, where: str, least: int) -> list[str]:
    """Check every box shown: at least BOX px, inside a label at least ROW px tall, no two
    labels overlapping, nothing wider than the screen. The ids seen (``least`` at least)."""
    seen: dict[str, Any] = page.evaluate(CHECKBOXES)
    ids = [box["id"] for box in seen["boxes"]]
    assert len(ids) >= least, (where, ids)
    for box in seen["boxes"]:
        assert box["inside"], (where, box)  # the label is the target
        assert box["box"]["width"] >= BOX and box["box"]["height"] >= BOX, (where, box)
        assert box["label"]["height"] >= ROW, (where, box)
        assert box["label"]["left"] >= 0 and box["label"]["right"] <= seen["clientWidth"] + 0.5, (
            where,
            box,
        )
    assert seen["overlaps"] == [], (where, seen["overlaps"])
    assert seen["scrollWidth"] <= seen["clientWidth"], (where, seen["scrollWidth"])
    return ids


# (width, height) of touch screens: the smallest phone, a common one, a tablet, a big
# touch screen.
TOUCH = [(320, 568), (390, 844), (1024, 768), (1920, 1080)]


@pytest.mark.parametrize("width, height", TOUCH)
def test_every_checkbox_is_finger_sized_on_a_touch_screen(
    server: str, browser: Browser, width: int, height: int
) -> None:
    """The create form's boxes (public, lost dice, every house rule), the host's lobby
    settings and house rules, the table's odds, table talk and bot talk with a box per bot,
    and /me's leaderboard; with a mouse, the boxes as they were."""
    page = new_page(browser, width, height)
    page.goto(f"{server}/")
    page.click("#house-rules summary")
    expect(page.locator("#opt-format")).to_be_visible()
    ids = finger_sized(page, "home", 5)
    assert {"public", "show-lost"} <= set(ids), ids
    keep_shot(page, f"checkboxes-home-{width}", full_page=True)

    seat_in_a_room(page, server, [None, "easy", "normal", "hard"], timer=0)
    page.click(".settings details summary")  # the house rules, which the host may change
    ids = finger_sized(page, "lobby", 8)
    assert {"set-public", "lock-room", "set-lost", "chat-on"} <= set(ids), ids
    page.click("#start")
    expect(page.locator("[data-voice-seat]")).to_have_count(3)
    expect(page.locator("#odds-toggle")).to_be_attached()
    ids = finger_sized(page, "table", 5)
    assert {"odds-toggle", "voice-toggle", "voice-1", "voice-2", "voice-3"} <= set(ids), ids
    keep_shot(page, f"checkboxes-table-{width}", full_page=True)

    page.goto(f"{server}/me")
    expect(page.locator("#board-opt-in")).to_be_visible()
    assert "board-opt-in" in finger_sized(page, "me", 1)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()

    # With a mouse at the same width the form keeps its 1.2rem boxes, inside the page.
    page = new_page(browser, width, height, touch=False)
    page.goto(f"{server}/")
    page.click("#house-rules summary")
    expect(page.locator("#opt-format")).to_be_visible()
    seen: dict[str, Any] = page.evaluate(CHECKBOXES)
    assert seen["boxes"] and seen["overlaps"] == [], seen["overlaps"]
    assert all(box["box"]["width"] < BOX for box in seen["boxes"]), seen["boxes"]
    assert seen["scrollWidth"] <= seen["clientWidth"], seen
    page.context.close()


def persona_key(name: str) -> str:
    """As voice.js reads an English persona's name: "The Professor" -> "the_professor"."""
    bare = "".join(c for c in unicodedata.normalize("NFD", name) if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "_", bare.lower()).strip("_")


def test_a_room_made_from_a_german_page_seats_bots_with_german_names(
    server: str, browser: Browser
) -> None:
    """The create form on a German page, six seats, an easy bot in seat 5 and a hard one in
    seat 6: the lobby lists "Onkel Bo" and "Der Professor" (not Uncle Bo, The Professor);
    and every persona's German and Spanish name finds its own lines (voice.js)."""
    page = new_page(browser, 1280, 900, touch=False, locale="de-DE")
    page.goto(f"{server}/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.fill("#name", "Fritz")
    page.select_option("#seats", "6")
    levels = ["easy", "easy", "easy", "easy", "hard"]
    for index, level in enumerate(levels, start=1):
        page.select_option(f'[data-seat="{index}"]', level)
    page.click("#create")
    wait_for_lobby(page)
    names = page.locator(".seat-list li .who").all_inner_texts()
    assert len(names) == 6, names
    assert any(name.startswith("Onkel Bo") for name in names), names
    assert any(name.startswith("Der Professor") for name in names), names
    assert not any(name.startswith(("Uncle Bo", "The Professor")) for name in names), names
    keep_shot(page, "german-room-bots")

    from dudo.bots.registry import LEVELS

    local = {
        persona.name_in(lang): persona_key(persona.name)
        for level in ("easy", "normal", "hard")
        for persona in LEVELS[level].personas
        for lang in ("de", "es")
    }
    assert {"Onkel Bo", "Tío Bo", "Opa Tito", "El Profesor"} <= set(local), local
    keys = page.evaluate(
        """async (names) => {
        const src = document.querySelector('script[type=module]').src;
        const voice = await import(new URL('./voice.js', src));
        const i18n = await import(new URL('./i18n.js', src));
        return Object.fromEntries(names.map((name) => [name,
            [voice.personaKey(name), i18n.has(`voice.persona.${voice.personaKey(name)}.win`)]]));
    }""",
        sorted(local),
    )
    assert {name: key for name, (key, _) in keys.items()} == local, keys
    assert all(has for _, has in keys.values()), keys
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
