"""Benchmark: what drawing one state of the game costs the page.

What it measures
    Every message the server sends changes the table, and the page draws it again: the
    markup of the whole table, morphed into the page (``morph.js``), then the bots' bubbles
    placed and cut names titled. This bench plays one game of four (seat 0 ours, three easy
    bots) against a real ``dudo serve`` in Debian's Chromium through Playwright, keeping
    every message the page received (``--record FILE``, or a file given with ``--replay``).
    Then, for each screen size, a fresh page of that room plays the same messages back
    through a mocked WebSocket (Playwright's ``route_web_socket``, no server behind it), one
    message at a time, waiting until each state is drawn. So every run, and every tree of
    the code compared, draws exactly the same states.

    Per state it reports the time of the table's ``render()`` (performance.now(): building
    the markup, morphing it in, placing the bubbles, which forces a layout), and from the
    DevTools ``Performance`` metrics over the whole playback: the main thread's script,
    style and layout time per state. Best of
    ``--repeat`` playbacks.

Why
    A phone draws the table for every bid of every player; the browser tests draw tens of
    thousands of states (most of CI's time). docs/benchmarks.md has the figures.

    python bench/page_draw.py --record /tmp/game.json
    python bench/page_draw.py --replay /tmp/game.json --sizes 390x844 1280x720

    To compare trees: record once, then replay the same file with ``--src`` at each tree's
    ``src`` (the server, and so the page's scripts, run from there).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, WebSocketRoute, sync_playwright

from page_cpu import ARGS, CHROMIUM, ROOT, serve

# Kept in the page: each message the table received, as text.
RECORD = """() => {
    const table = window.dudo.view;
    const receive = table.receive.bind(table);
    window.received = [];
    table.receive = (message) => { window.received.push(JSON.stringify(message));
                                   return receive(message); };
}"""
# A simple player: Liar! on a third of the bids it faces, else the picker's bid (so rounds
# run to several bids and the game's log grows as in a real game); the next round.
PLAY = """() => {
    const ids = Math.random() < 1 / 3 ? ['#call-dudo', '#bid-go'] : ['#bid-go', '#call-dudo'];
    for (const id of [...ids, '#next-round']) {
        const button = document.querySelector(id);
        if (button && !button.disabled) { button.click(); return id; }
    }
    return null;
}"""
# render() timed, from the next state on.
TIME_RENDERS = """() => {
    const table = window.dudo.view;
    const render = table.render.bind(table);
    window.renders = [];
    table.render = () => { const start = performance.now(); render();
                           window.renders.push(performance.now() - start); };
}"""
METRICS = ("ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "TaskDuration")


def seated_page(browser: Browser, base: str, ticket: dict[str, str], size: str) -> Page:
    width, height = (int(part) for part in size.split("x"))
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.goto(base + "/")
    page.evaluate(
        "(t) => localStorage.setItem(`dudo.seat.${t.code}`, JSON.stringify("
        "{token: t.token, seat: t.seat, name: t.name}))",
        ticket,
    )
    return page


def record_game(browser: Browser, base: str) -> dict[str, object]:
    """One game of four played to its end; the room's ticket and every message received."""
    body = {"name": "Ana", "seats": 4, "bots": [None, "easy", "easy", "easy"], "timer": 0}
    answer = httpx.post(f"{base}/api/rooms", json=body)
    answer.raise_for_status()
    ticket = answer.json()
    page = seated_page(browser, base, ticket, "1280x720")
    page.goto(f"{base}/r/{ticket['code']}")
    page.wait_for_selector("#start", timeout=30000)
    page.evaluate(RECORD)
    page.click("#start")
    deadline = time.monotonic() + 300
    while page.evaluate("document.body.dataset.phase") != "over":
        if time.monotonic() > deadline:
            raise SystemExit("the recorded game did not end within 5 minutes")
        version = page.evaluate("document.body.dataset.version")
        if page.evaluate(PLAY):
            page.wait_for_function(
                "(v) => document.body.dataset.version !== v", arg=version, timeout=30000
            )
        else:
            page.wait_for_timeout(50)
    page.wait_for_timeout(500)  # the last words of the bots
    received: list[str] = page.evaluate("window.received")
    page.context.close()
    return {"ticket": ticket, "messages": received}


def play_back(browser: Browser, base: str, game: dict[str, object], size: str) -> dict[str, float]:
    """The recorded messages drawn one by one in a fresh page; figures per state."""
    ticket = game["ticket"]
    messages = game["messages"]
    assert isinstance(ticket, dict) and isinstance(messages, list)
    page = seated_page(browser, base, ticket, size)
    sockets: list[WebSocketRoute] = []
    page.route_web_socket("**/ws/**", lambda socket: sockets.append(socket))
    page.goto(f"{base}/r/{ticket['code']}")
    page.wait_for_function("() => window.dudo && window.dudo.view")
    while not sockets:
        page.wait_for_timeout(20)
    page.evaluate(TIME_RENDERS)
    devtools = page.context.new_cdp_session(page)
    devtools.send("Performance.enable")

    def metrics() -> dict[str, float]:
        found = devtools.send("Performance.getMetrics")["metrics"]
        return {m["name"]: m["value"] for m in found if m["name"] in METRICS}

    before = metrics()
    states = 0
    for text in messages:
        sockets[0].send(text)
        message = json.loads(text)
        if message.get("type") == "state":
            states += 1
            page.wait_for_function(
                "(v) => document.body.dataset.version === v", arg=str(message["version"])
            )
    after = metrics()
    renders: list[float] = page.evaluate("window.renders")
    page.context.close()
    figures = {name: (after[name] - before[name]) / states for name in METRICS}
    figures["Script+Style+Layout"] = sum(figures[name] for name in METRICS[:3])
    return {
        "states": states,
        "render_mean": statistics.fmean(renders),
        "render_p95": statistics.quantiles(renders, n=20)[-1],
        **{name: value * 1000 for name, value in figures.items()},
    }


def load_recording(path: Path) -> dict[str, object]:
    """A game that --record wrote, or a clear error."""
    try:
        game = json.loads(path.read_text())
        valid = isinstance(game["ticket"]["code"], str) and isinstance(game["messages"], list)
    except (OSError, ValueError, KeyError, TypeError):
        valid = False
    if not valid or not game["messages"]:
        raise SystemExit(f"--replay: {path} is not a game that --record wrote")
    return dict(game)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["390x844", "1280x720"])
    parser.add_argument("--record", type=Path, help="play a game and keep its messages here")
    parser.add_argument("--replay", type=Path, help="play back the messages of this file")
    parser.add_argument("--repeat", type=int, default=3, help="playbacks per size (best kept)")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the tree to serve")
    options = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium")
    if options.replay and not options.replay.is_file():
        raise SystemExit(f"--replay: no such file: {options.replay}")
    for size in options.sizes:
        width, _, height = size.partition("x")
        if not (width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
            raise SystemExit(f"--sizes: {size!r} is not WIDTHxHEIGHT, e.g. 390x844")
    if options.record and not options.record.parent.is_dir():
        raise SystemExit(f"--record: no such folder: {options.record.parent}")
    if options.repeat < 1:
        raise SystemExit("--repeat: at least 1")
    if not (options.src / "dudo" / "web" / "js" / "morph.js").is_file():
        raise SystemExit(f"--src: no dudo package with a web client in {options.src}")
    recorded = load_recording(options.replay) if options.replay else {}
    with serve(options.src) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        if options.replay:
            game = recorded
        else:
            game = record_game(browser, base)
            if options.record:
                options.record.write_text(json.dumps(game))
        print(f"the page's scripts from {options.src}")
        print("ms per state drawn: render() mean and p95; main thread's script, style and layout")
        print(
            f"{'size':>10} {'states':>6} {'mean':>6} {'p95':>6} {'script':>7} {'style':>6}"
            f" {'layout':>7} {'s+s+l':>6}"
        )
        for size in options.sizes:
            runs = [play_back(browser, base, game, size) for _ in range(options.repeat)]
            best = min(runs, key=lambda run: run["Script+Style+Layout"])
            print(
                f"{size:>10} {best['states']:>6.0f} {best['render_mean']:>6.2f}"
                f" {best['render_p95']:>6.2f} {best['ScriptDuration']:>7.2f}"
                f" {best['RecalcStyleDuration']:>6.2f} {best['LayoutDuration']:>7.2f}"
                f" {best['Script+Style+Layout']:>6.2f}",
                flush=True,
            )
        browser.close()


if __name__ == "__main__":
    main()
