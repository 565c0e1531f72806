"""The host's share panel follows the invite key: removing a player gives the room a new
key and the panel the new link at once; the removed player's old link no longer takes a
seat in the locked room, the new one does."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, expect
from test_web import chromium, create_room, new_page

from serverkit import server_process, sqlite_url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("invite"))) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def test_the_share_panel_shows_the_new_link_after_a_removal(server: str, browser: Browser) -> None:
    ana, ben = new_page(browser), new_page(browser)
    code = create_room(ana, server, "Ana", 3, {2: "easy"})
    first = ana.input_value("#share-link")
    assert f"/r/{code}?invite=" in first
    ana.check("#lock-room")
    expect(ana.locator("#lock-room")).to_be_checked()
    assert ana.input_value("#share-link") == first  # the first lock keeps the shared link
    ben.goto(first)
    ben.wait_for_selector("#name", timeout=30000)  # a first load: slow when busy
    ben.fill("#name", "Ben")
    ben.click("#take-seat")
    expect(ana.locator(".seat-list")).to_contain_text("Ben")
    ana.click("#remove-1")
    expect(ana.locator(".seat-list")).not_to_contain_text("Ben")
    expect(ana.locator("#share-link")).not_to_have_value(first)
    second = ana.input_value("#share-link")
    assert f"/r/{code}?invite=" in second
    # Ben, sent away, tries the old link again: the locked room does not take him.
    ben.goto(first)
    ben.wait_for_selector("#name", timeout=30000)  # a first load: slow when busy
    ben.fill("#name", "Ben")
    ben.click("#take-seat")
    # (On a busy machine the page may first say its old seat is gone: removed.)
    expect(ben.locator(".toast", has_text="locked this room")).to_be_visible()
    expect(ana.locator(".seat-list")).not_to_contain_text("Ben")
    # The new link does.
    ben.goto(second)
    ben.wait_for_selector("#name", timeout=30000)  # a first load: slow when busy
    ben.fill("#name", "Ben")
    ben.click("#take-seat")
    expect(ana.locator(".seat-list")).to_contain_text("Ben")
    for page in (ana, ben):
        assert not page.js_errors  # type: ignore[attr-defined]
        page.context.close()
