"""The README's screenshots of the table, taken from real games (not a test: run it by hand
after a change to the look, from the repository's root):

    PYTHONPATH=src:tests:tests/browser python tests/browser/docs_screenshots.py [folder]

It writes docs/home.png and docs/home-phone.png (the home page at 1366×768 and on a 360×640
phone), docs/table.png (your turn at 1366×768, five seats), docs/table-1920.png (a reveal at
six seats on 1920×1080, once every cup is up) and docs/table-phone.png (your turn on a
360×640 phone), or the same names in ``folder``; plus, in test-artifacts/, frames of the
reveal while the cups lift and the whole home page at 1920×1080 (to look at, not for the
README).
"""

from __future__ import annotations

import sys
from pathlib import Path

from test_web import ARTIFACTS, chromium
from test_web_table import our_turn, seated

from serverkit import server_process, sqlite_url

# Bots quick, and a reveal that stays on the table long enough to be seen whole.
ENV = {"DUDO_BOT_DELAY": "0.15", "DUDO_REVEAL_PAUSE": "6", "DUDO_SEED_WINDOW": "0.1"}


def main(folder: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    data = ARTIFACTS / "docs-screenshots-db"
    data.mkdir(exist_ok=True)
    with server_process(sqlite_url(data), env=ENV) as (server, _), chromium() as browser:
        for name, width, height in (("home.png", 1366, 768), ("home-phone.png", 360, 640)):
            context = browser.new_context(
                viewport={"width": width, "height": height}, locale="en-US"
            )
            page = context.new_page()
            page.goto(server + "/")
            page.wait_for_selector("#rooms-list p, #rooms-list ul")
            page.fill("#name", "Ana")
            page.screenshot(path=str(folder / name))
            context.close()
        context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
        page = context.new_page()
        page.goto(server + "/")
        page.wait_for_selector("#quick")
        page.screenshot(path=str(ARTIFACTS / "docs-home-1920.png"), full_page=True)
        context.close()

        page, _ = seated(
            browser,
            server,
            [None, "easy", "hard", "easy", "normal"],
            timer=60,
            width=1366,
            height=768,
        )
        page.click("#start")
        our_turn(page, timeout=90000)
        page.wait_for_timeout(900)
        page.screenshot(path=str(folder / "table.png"))
        page.context.close()

        page, _ = seated(browser, server, [None] + ["easy"] * 5, timer=300, width=1920, height=1080)
        page.click("#start")
        our_turn(page, timeout=90000)
        page.click("#call-dudo")
        page.wait_for_selector("#reveal .verdict")
        waited = 0
        for at in (300, 900, 1500):  # each screenshot takes a few hundred ms of its own
            page.wait_for_timeout(at - waited)
            waited = at
            page.screenshot(path=str(ARTIFACTS / f"docs-reveal-{at}ms-1920.png"))
        # Once every cup is up (their animations over) and the verdict has faded in, before
        # the next round's countdown runs out.
        page.wait_for_function(
            "() => document.getAnimations().filter((a) => a.animationName === 'cup-tip')"
            ".every((a) => a.playState === 'finished')"
        )
        page.wait_for_timeout(600)
        page.screenshot(path=str(folder / "table-1920.png"))
        page.context.close()

        page, _ = seated(
            browser,
            server,
            [None] + ["easy"] * 5,
            timer=300,
            rules={"preset": "perudo", "calza": "any_time"},
            width=360,
            height=640,
        )
        page.click("#start")
        our_turn(page, timeout=90000)
        page.wait_for_timeout(900)
        page.screenshot(path=str(folder / "table-phone.png"))
        page.context.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "docs")
