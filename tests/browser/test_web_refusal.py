"""A refused bid said in the page's language, in a real browser (Debian's Chromium through
Playwright, as tests/browser/test_web.py, against a real server process).

The page offers only legal bids, so the refusal is made on the wire: Playwright routes the
room's WebSocket, and the player's opening bid, chosen and sent with the ordinary picker,
leaves the page changed into one the rules refuse (more dice than are in play, a poker
hand that needs more dice than there are, an opening on aces). The server refuses it with
an engine reason code and its `detail` (dudo.refusals). The page must say that cause
(refusal.js: `why.<key>` with its params in words), not only the general `err.<code>`, in
a toast and in the live region, in English, in German (the browser's language) and in
Spanish (the player's pick); the table must stand as it was: our turn still, no bid, and
the next bid goes through. And the toast stays long enough to read its sentence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, WebSocketRoute, expect
from test_web import TIMINGS, chromium, wait_until
from test_web_table import open_page, state, wait_for_lobby

from serverkit import server_process, sqlite_url

LOCALES = Path(__file__).resolve().parents[2] / "src" / "dudo" / "web" / "locales"

# Each table: its rules, how the wire changes our opening bid, the key the server then
# gives. Perudo caps a bid at the dice in play (2 seats of 5 dice: 10) and lets no round
# open on aces; Common Hand bids poker hands, and five of a kind needs 5 dice where 2 seats
# of 2 dice have 4.
PERUDO = {"preset": "perudo", "first_opener": "host", "starting_dice": 5}
TABLES: dict[str, tuple[dict[str, Any], Callable[[dict[str, Any]], None], str]] = {
    "cap": (PERUDO, lambda bid: bid.update(quantity=99), "over_cap.cap"),
    "hand": (
        {"preset": "common-hand", "first_opener": "host", "starting_dice": 2},
        lambda bid: bid.update(bid={"hand": "five", "faces": [6]}),
        "over_cap.hand",
    ),
    "aces": (PERUDO, lambda bid: bid.update(face=1), "ones_not_allowed.opening"),
}

# The sentences the page must show: why.<key> of each language with its params filled in
# (the number of dice, the hand in words), written out here, not built like the page does.
SAID = {
    ("en", "cap"): "Only 10 dice are in play, and a bid may not name more than that.",
    ("en", "hand"): "Showing five 6s takes 5 dice, and only 4 are in play.",
    ("de", "cap"): "Nur 10 Würfel sind im Spiel, und ein Gebot darf nicht mehr nennen.",
    ("de", "hand"): "Für fünf 6er braucht es 5 Würfel, und nur 4 sind im Spiel.",
    ("es", "cap"): "Solo hay 10 dados en juego, y una apuesta no puede nombrar más.",
    ("es", "hand"): "Para un repóquer de seises hacen falta 5 dados, y solo hay 4 en juego.",
    ("en", "aces"): (
        "Aces may not open a round under these rules; after the opening bid you may raise to aces."
    ),
    ("de", "aces"): (
        "Nach diesen Regeln darf eine Runde nicht mit Einsen eröffnet werden; "
        "nach dem Eröffnungsgebot darfst du auf Einsen erhöhen."
    ),
    ("es", "aces"): (
        "Con estas reglas no se puede abrir una ronda con ases; "
        "después de la apuesta inicial puedes subir a ases."
    ),
}

# How the page comes to its language: the browser's (navigator.languages, from the
# context's locale), or the player's pick remembered in localStorage (i18n.js).
# How many of the page's live regions would say these words: elements holding them inside
# an aria-live region or role="alert", not hidden from assistive technology.
SAID_IN_LIVE_REGIONS = """(words) => [...document.querySelectorAll('[aria-live] *, [role=alert] *')]
    .filter((el) => el.children.length === 0 && el.textContent.includes(words)
        && !el.closest('[aria-hidden="true"]'))
    .length"""

LANGUAGES = {
    "en": {"locale": "en-US", "picked": None},
    "de": {"locale": "de-DE", "picked": None},
    "es": {"locale": "en-US", "picked": "es"},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("refusal")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


class Wire:
    """The room's socket, routed through the test. What the page sends passes on as it is,
    except the next bid after `spoil(change)`: that one leaves changed by `change`. Every
    bid sent and every message received is kept."""

    def __init__(self) -> None:
        self.change: Callable[[dict[str, Any]], None] | None = None
        self.bids: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []

    def spoil(self, change: Callable[[dict[str, Any]], None]) -> None:
        self.change = change

    def route(self, socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def outgoing(message: str | bytes) -> None:
            if isinstance(message, str):
                data = json.loads(message)
                if data.get("type") == "bid":
                    if self.change:
                        self.change(data)
                        self.change = None
                        message = json.dumps(data)
                    self.bids.append(data)
            server.send(message)

        def incoming(message: str | bytes) -> None:
            if isinstance(message, str):
                self.received.append(json.loads(message))
            socket.send(message)

        socket.on_message(outgoing)
        server.on_message(incoming)

    def answer(self, bid: dict[str, Any]) -> dict[str, Any] | None:
        """The server's ack or error to `bid`, None while there is none."""
        return next(
            (m for m in self.received if m.get("id") == bid["id"] and m["type"] != "state"),
            None,
        )


def room_page(
    browser: Browser, server: str, rules: dict[str, Any], language: str, clock: bool = False
) -> Page:
    """A room of two seats, ours (the host) and an easy bot, opened in a page in
    `language` whose socket goes through a Wire (page.wire); with `clock`, on Playwright's
    clock (running as the real one until the test stops it)."""
    body = {"name": "Ana", "seats": 2, "bots": [None, "easy"], "timer": 0, "rules": rules}
    answer = httpx.post(f"{server}/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    ticket = answer.json()
    how = LANGUAGES[language]
    page = open_page(browser, 1280, 720, str(how["locale"]))
    wire = Wire()
    page.wire = wire  # type: ignore[attr-defined]
    page.route_web_socket(re.compile(r"/ws/[A-Z]{4}\b"), wire.route)
    if clock:
        page.clock.install()
    page.goto(server + "/")
    page.evaluate(
        """([t, picked]) => {
        localStorage.setItem(`dudo.seat.${t.code}`,
            JSON.stringify({token: t.token, seat: t.seat, name: t.name}));
        if (picked) localStorage.setItem('dudo.lang', picked);
    }""",
        [ticket, how["picked"]],
    )
    page.goto(f"{server}/r/{ticket['code']}")
    wait_for_lobby(page)
    expect(page.locator("html")).to_have_attribute("lang", language)
    return page


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_refused_bid_says_why_in_the_pages_language_and_changes_nothing(
    server: str, browser: Browser, language: str, table: str
) -> None:
    rules, change, key = TABLES[table]
    strings = json.loads((LOCALES / f"{language}.json").read_text())
    code = key.split(".")[0]
    said, general = SAID[language, table], strings[f"err.{code}"]
    page = room_page(browser, server, rules, language)
    wire: Wire = page.wire  # type: ignore[attr-defined]
    page.click("#start")
    # We open the first round (first_opener: host): the table waits for us.
    expect(page.locator("#bid-go")).to_be_visible(timeout=30000)
    before = state(page)
    assert before["game"]["turn"] == before["you"]["seat"] == 0
    assert before["game"]["bids"] == [] and before["game"]["standing"] is None
    # The player bids with the picker as always; the bid leaves spoiled.
    wire.spoil(change)
    page.click("#bid-go")
    refused = wait_for_bid(page, wire, None)
    error = wait_for_answer(page, wire, refused)
    assert error["type"] == "error" and error["code"] == code, error
    assert error["detail"]["key"] == key, error
    # The cause, in the page's language, with its params filled in; not the general words.
    expect(page.locator(".toast")).to_have_text(said)
    expect(page.locator("#live p", has_text=said)).to_have_count(1)
    expect(page.locator("#live p", has_text=general)).to_have_count(0)
    # Said once: the toast's own live region (assertive) does not say it again.
    assert page.evaluate(SAID_IN_LIVE_REGIONS, said) == 1
    assert "{" not in said and said != general
    # Nothing changed: the same state, our turn, no bid; the picker is still there.
    after = state(page)
    assert after["version"] == before["version"]
    assert after["game"] == before["game"]
    expect(page.locator("#bid-go")).to_be_enabled()
    expect(page.locator("#standing")).to_have_count(0)
    # The next bid, as the picker makes it, goes through.
    page.click("#bid-go")
    made = wait_for_bid(page, wire, refused)
    answer = wait_for_answer(page, wire, made)
    assert answer["type"] == "ack" and answer["version"] > before["version"], answer
    wait_until(page, f"window.dudo.view.state.version >= {answer['version']}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def wait_for_bid(page: Page, wire: Wire, after: dict[str, Any] | None) -> dict[str, Any]:
    """The next bid the page sends after `after` (None: its first)."""
    for _ in range(160):
        if wire.bids and wire.bids[-1] is not after:
            return wire.bids[-1]
        page.wait_for_timeout(50)
    raise AssertionError(f"no bid sent after {after}")


def wait_for_answer(page: Page, wire: Wire, bid: dict[str, Any]) -> dict[str, Any]:
    """The server's answer to `bid` (page.wait_for_timeout lets Playwright pass messages)."""
    for _ in range(160):
        answer = wire.answer(bid)
        if answer:
            return answer
        page.wait_for_timeout(50)
    raise AssertionError(f"no answer to {bid}: {wire.received[-5:]}")


def test_a_refusal_stays_on_screen_long_enough_to_read(server: str, browser: Browser) -> None:
    """A cause runs to 20-odd words: read at 200 words a minute, the 18 of the opening on
    aces take 5.4 s, after the eye has found the toast. It must not go after 5 s, as every
    toast did (a few words, such as "Copied", still go then). Measured on the page's own
    clock (Playwright's, moved by hand), so nothing here depends on the machine's pace."""
    page = room_page(browser, server, PERUDO, "en", clock=True)
    wire: Wire = page.wire  # type: ignore[attr-defined]
    page.click("#start")
    expect(page.locator("#bid-go")).to_be_visible(timeout=30000)
    wire.spoil(TABLES["aces"][1])
    page.click("#bid-go")
    toast = page.locator(".toast", has_text=SAID["en", "aces"])
    expect(toast).to_be_visible()
    # The page's time stands still from here: it moves only as run_for moves it (a
    # number given to pause_at is in seconds).
    page.clock.pause_at((page.evaluate("Date.now()") + 1) / 1000)
    page.clock.run_for(7000)
    expect(toast).to_be_visible()
    page.clock.run_for(30000)
    expect(toast).to_have_count(0)
    # A short one goes as before, after 5 s.
    page.evaluate(
        "import(document.querySelector('script[type=module]').src.replace(/[^/]*$/, 'page.js'))"
        ".then((page) => page.toast('Copied', 'info'))"
    )
    short = page.locator(".toast", has_text="Copied")
    expect(short).to_be_visible()
    page.clock.run_for(5100)
    expect(short).to_have_count(0)
    page.clock.resume()
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
