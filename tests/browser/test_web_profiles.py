"""Profiles in a real browser (Debian's Chromium through Playwright, as tests/browser/test_web.py):
two players make and join a room, start, and leave (the server's stand-ins finish the game:
grace 0); the profile page shows the game in its numbers and plots; the table shows the
series between games; the profile moves to a second browser with a one-time code (which
then refuses a third); the player forgets it all. axe checks the pages."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect
from test_web import axe_check, check_fits, chromium, create_room
from test_web import new_page as plain_page
from test_web_csp import RECORD_VIOLATIONS

from serverkit import server_process, sqlite_url

TIMINGS = {
    "DUDO_BOT_DELAY": "0",
    "DUDO_REVEAL_PAUSE": "0",
    "DUDO_SEED_WINDOW": "0",
    "DUDO_GRACE": "0",
    "DUDO_QUICK_FILL": "0.5",
    # A browser suite shares a busy machine: a slow SQLite write is no outage here (as in
    # test_web.TIMINGS; an outage's backoff made a game outlast the wait below in CI).
    "DUDO_WRITE_PATIENCE": "10",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("profiles")), env=TIMINGS) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def new_page(browser: Browser, width: int = 1280, height: int = 800, locale: str = "en-US") -> Page:
    """A page in a context of its own (a device of its own), which records every breach
    of the content security policy (none are allowed: the page draws its plots and QR
    code without inline scripts or styles)."""
    page = plain_page(browser, width, height, locale)
    page.context.add_init_script(RECORD_VIOLATIONS)
    return page


def wait_over(server: str, code: str, game: int) -> None:
    """Until the room's ``game``-th game is over and entered for the profiles (a moment
    after the game-over state: its series then counts it)."""
    end = time.monotonic() + 120
    while True:
        room = httpx.get(f"{server}/api/rooms/{code}").json()
        if room["status"] == "over" and room["game"] >= game:
            break
        assert time.monotonic() < end, f"game {game} of {code} did not end"
        time.sleep(0.1)
    # Asked only once the game is over: a room without a series counts as a guess.
    while httpx.get(f"{server}/api/rooms/{code}/series").json()["games"] < game:
        assert time.monotonic() < end, f"game {game} of {code} was not entered"
        time.sleep(0.05)


def wait_started(server: str, code: str, game: int) -> None:
    """Until the server has begun the room's ``game``-th game. A click's message leaves
    the page on its socket; going to another page at once could close that socket before
    the message is sent, and then nobody ever starts the game."""
    end = time.monotonic() + 30
    while True:
        room = httpx.get(f"{server}/api/rooms/{code}").json()
        if room["status"] != "lobby" and room["game"] >= game:
            return
        assert time.monotonic() < end, f"game {game} of {code} did not start: {room}"
        time.sleep(0.05)


def stat(page: Page, name: str) -> str:
    return page.inner_text(f'[data-stat="{name}"]').strip()


def test_profiles_stats_series_transfer_and_forget(server: str, browser: Browser) -> None:
    ana, ben = new_page(browser), new_page(browser)
    code = create_room(ana, server, "Ana", 3, {2: "easy"})
    ben.goto(f"{server}/r/{code}")
    ben.fill("#name", "Ben")
    ben.click("#take-seat")
    expect(ana.locator("#start")).to_be_enabled()
    ana.click("#start")
    wait_started(server, code, 1)
    # Both leave for their profile pages: the stand-ins play the game out.
    ben.goto(f"{server}/me")
    ana.goto(f"{server}/me")
    wait_over(server, code, 1)

    ana.reload()
    expect(ana.locator('[data-stat="games"]')).to_have_text("1")
    assert ana.inner_text("#profile-name") == "Ana"
    expect(ana.locator("#plot-wins polyline, #plot-wins circle").first).to_be_attached()
    expect(ana.locator('tr[data-preset="perudo"]')).to_be_visible()
    # A wide screen shows every counter per preset (one preset played: the totals).
    perudo = ana.locator('tr[data-preset="perudo"] td')
    expect(perudo).to_have_count(10)
    for cell in perudo.all():
        expect(cell).to_be_visible()
        column = cell.get_attribute("data-col") or ""
        expect(cell).to_have_text(stat(ana, column))
    ana.set_viewport_size({"width": 900, "height": 800})  # the narrowest with them all
    expect(perudo.last).to_be_visible()
    check_fits(ana, "profile-900")
    ana.set_viewport_size({"width": 1280, "height": 800})
    expect(ana.locator("#recent-games a")).to_have_count(1)
    assert (ana.get_attribute("#recent-games a", "href") or "").startswith("/g/")
    assert "after 1 rated game" in ana.inner_text("#rating-line")  # two profiles: rated
    axe_check(ana, "profile")
    check_fits(ana, "profile-1280")

    # The leaderboard is opt-in: nobody until Ana ticks the box.
    expect(ana.locator("#board")).to_have_count(0)
    ana.check("#board-opt-in")
    expect(ana.locator("#board tbody tr")).to_have_count(1)
    expect(ana.locator("#board")).to_contain_text("Ana")

    # Back at the table between games: the series so far.
    ana.goto(f"{server}/r/{code}")
    expect(ana.locator("#series-table tbody tr")).to_have_count(3)
    expect(ana.locator("#series-title")).to_contain_text("1 game")
    # Scanned without motion: the game log's lines fade in, and axe would catch one
    # mid-fade (the series panel itself does not move).
    ana.emulate_media(reduced_motion="reduce")
    axe_check(ana, "series")
    ana.emulate_media(reduced_motion="no-preference")
    check_fits(ana, "series-1280")
    ana.click("#rematch")
    wait_started(server, code, 2)
    ana.goto(f"{server}/me")
    wait_over(server, code, 2)
    ana.goto(f"{server}/r/{code}")
    expect(ana.locator("#series-title")).to_contain_text("2 games")
    wins = sum(
        int(text)
        for text in ana.locator("#series-table tbody tr td:nth-child(3)").all_inner_texts()
    )
    assert wins == 2

    # Another device: a one-time code, in a link whose fragment the server never sees.
    ana.goto(f"{server}/me")
    ana.click("#make-transfer")
    link = ana.get_attribute("#transfer-link", "href") or ""
    shown_code = ana.inner_text("#transfer-code").strip()
    assert "#claim=" in link and shown_code in link
    expect(ana.locator(".transfer-qr svg")).to_be_visible()
    phone = new_page(browser, 390, 844)
    phone.goto(link)
    expect(phone.locator("#claim-code")).to_have_value(shown_code)
    assert "#claim" not in phone.url  # taken out of the address bar
    axe_check(phone, "claim")
    phone.click("#claim-form button[type=submit]")
    expect(phone.locator("#profile-name")).to_have_text("Ana")
    expect(phone.locator('[data-stat="games"]')).to_have_text("2")
    # A phone keeps the four main counters per preset (the rest are in the grid above).
    expect(phone.locator('tr[data-preset="perudo"] td:visible')).to_have_count(4)
    check_fits(phone, "profile-390")
    # The same code again, on a third browser (a German one): refused, in its words.
    third = new_page(browser, 360, 740, locale="de-DE")
    third.goto(link)
    expect(third.locator("h1")).to_have_text("Dein Profil auf dieses Gerät holen")
    check_fits(third, "claim-de-360")
    third.click("#claim-form button[type=submit]")
    expect(third.locator(".toast")).to_contain_text("schon benutzt")

    # Export, then forget: the profile is gone from the server for both devices.
    with ana.expect_download() as download:
        ana.click("#export")
    assert download.value.suggested_filename.startswith("dudo-profile-")
    ana.click("#forget")
    ana.click("#forget-yes")
    expect(ana.locator("h1")).to_have_text("Forgotten")
    phone.reload()
    expect(phone.locator("h1")).to_contain_text("does not know your profile")
    for page in (ana, ben, phone, third):
        assert not page.js_errors, page.js_errors  # type: ignore[attr-defined]
        assert page.evaluate("window.__violations") == []


@pytest.mark.timeout(120)
def test_a_profile_refused_for_too_many_from_one_address_is_said(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> None:
    """Behind one shared address (a school, an office) the server makes at most 10 new
    profiles in ten minutes. The 11th player still plays, and is told that this game will
    not count for a profile; their /me page says why and offers to try again."""
    database = sqlite_url(tmp_path_factory.mktemp("crowded"))
    with server_process(database, env=TIMINGS) as (base, _):
        for n in range(10):
            made = httpx.post(f"{base}/api/profile", json={"secret": f"{n:064x}"}, timeout=10)
            assert made.status_code == 201, made.text
        refused = httpx.post(f"{base}/api/profile", json={"secret": "f" * 64}, timeout=10)
        assert refused.status_code == 429 and refused.json()["error"] == "too_many_profiles"
        page = new_page(browser)
        code = create_room(page, base, "Ana", 2, {1: "easy"})
        note = page.locator(".toast.info")
        expect(note).to_contain_text("This game will not count in your profile")
        expect(note).to_contain_text("Too many new profiles from here")
        assert httpx.get(f"{base}/api/rooms/{code}").json()["status"] == "lobby"
        page.goto(f"{base}/me")
        expect(page.locator("h1")).to_have_text("Your profile could not be made just now")
        expect(page.locator("#profile-refused")).to_have_text(
            "Too many new profiles from here: try again later."
        )
        page.click("#retry-profile")  # still refused: the same words, no other page
        expect(page.locator("#retry-profile")).to_be_visible()
        # The note was for one page: the room's page opened again shows none.
        page.goto(f"{base}/r/{code}")
        page.wait_for_selector(".share-code", timeout=30000)
        expect(page.locator(".toast.info")).to_have_count(0)
        page.context.close()
