"""The look, measured in a real browser (Debian's Chromium through Playwright, against a real
server process): with motion on, a lifting cup never covers a seat's name or its status line
("Bot (easy)") at any moment of the staged reveal, at two and at six seats, on a phone and on
big screens.

Unlike test_web_choice.py's check (each cup's animation stopped at set points), this one
lets the reveal run as a player sees it and measures on every frame the browser draws
(requestAnimationFrame), from the first cup to the last one gone: the cup's box from its
computed, animated transform, and the seat's name and status from their boxes. Any overlap
of a visible cup (opacity above zero) with either, however small, fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser
from test_web import TIMINGS, chromium, keep_shot, wait_until

from serverkit import server_process, sqlite_url

# The reveal stays on the table longer than its six cups take to lift (about 3.2 s).
LOOK_TIMINGS = {**TIMINGS, "DUDO_REVEAL_PAUSE": "6"}

# Installed before the page's own code: from the first frame that shows revealed dice
# until every cup's animation has finished, one sample per frame of every seat's cup, name
# and status. The cup is the dice row's ::before: its box from its used size and place,
# through its transform at this moment (about its transform-origin), in page coordinates.
SAMPLE_CUPS = """
window.__cupSamples = [];
window.__cupDone = false;
(() => {
  const box = (el) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return r.width && r.height ? [r.left, r.top, r.right, r.bottom] : null;
  };
  const cupBox = (row) => {
    const cup = getComputedStyle(row, '::before');
    const place = row.getBoundingClientRect();
    const [left, top] = [parseFloat(cup.left), parseFloat(cup.top)];
    const [width, height] = [parseFloat(cup.width), parseFloat(cup.height)];
    const [ox, oy] = cup.transformOrigin.split(' ').map(parseFloat);
    const m = new DOMMatrix(cup.transform === 'none' ? undefined : cup.transform);
    const corners = [[0, 0], [width, 0], [0, height], [width, height]].map(([x, y]) => {
      const p = m.transformPoint(new DOMPoint(x - ox, y - oy));
      return [place.left + row.clientLeft + left + ox + p.x,
              place.top + row.clientTop + top + oy + p.y];
    });
    const xs = corners.map((c) => c[0]);
    const ys = corners.map((c) => c[1]);
    return {box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
            opacity: cup.content === 'none' ? 0 : parseFloat(cup.opacity)};
  };
  const frame = () => {
    if (window.__cupDone) return;
    const rows = [...document.querySelectorAll('.seat-dice.revealed')];
    const cups = document.getAnimations().filter((a) => a.animationName === 'cup-tip');
    if (rows.length && cups.length) {
      window.__cupSamples.push(rows.map((row) => {
        const seat = row.closest('.seat');
        const cup = cupBox(row);
        return {seat: seat.dataset.seat, cup: cup.box, opacity: cup.opacity,
                name: box(seat.querySelector('.seat-name')),
                status: box(seat.querySelector('.seat-status'))};
      }));
      if (cups.every((a) => a.playState === 'finished')) window.__cupDone = true;
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("look")), env=LOOK_TIMINGS) as (
        base,
        _,
    ):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def overlap_area(a: list[float], b: list[float]) -> float:
    """The area two boxes (left, top, right, bottom) share: zero when they only touch."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, width) * max(0.0, height)


@pytest.mark.parametrize("players", [2, 6])
@pytest.mark.parametrize("size", [(360, 640), (1366, 768), (1920, 1080)])
def test_a_lifting_cup_never_covers_a_name_while_it_moves(
    server: str, browser: Browser, players: int, size: tuple[int, int]
) -> None:
    from test_web_table import our_turn, seated

    page, _ = seated(
        browser,
        server,
        [None] + ["easy"] * (players - 1),
        width=size[0],
        height=size[1],
        timer=300,
        motion="no-preference",
        init=SAMPLE_CUPS,
    )
    page.click("#start")
    our_turn(page, standing=True)
    page.click("#call-dudo")
    wait_until(page, "() => window.__cupDone", timeout=15000)
    samples: list[list[dict[str, Any]]] = page.evaluate("window.__cupSamples")
    covered = []
    measured = 0
    for at, frame in enumerate(samples):
        for seat in frame:
            if seat["opacity"] <= 0:
                continue
            measured += 1
            for part in ("name", "status"):
                if seat[part] and overlap_area(seat["cup"], seat[part]) > 0:
                    covered.append((at, part, seat))
    # The cups were there to be measured: every seat's, over many frames of the lift.
    seats_seen = {seat["seat"] for frame in samples for seat in frame if seat["opacity"] > 0}
    assert len(seats_seen) == players, (seats_seen, len(samples))
    assert measured >= 10 * players, (measured, len(samples))
    assert not covered, (size, players, len(samples), covered[:3])
    keep_shot(page, f"look-cups-{players}-{size[0]}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


# While bidding: every seat's cup and the boxes it must leave free, in page coordinates.
CUPS_WHILE_BIDDING = """() => [...document.querySelectorAll('.seat')].map((seat) => {
  const box = (el) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return r.width && r.height ? [r.left, r.top, r.right, r.bottom] : null;
  };
  return {seat: seat.dataset.seat, me: seat.classList.contains('me'),
          cup: box(seat.querySelector('.cup')),
          plate: box(seat), name: box(seat.querySelector('.seat-name')),
          status: box(seat.querySelector('.seat-status')),
          dice: [...seat.querySelectorAll('.seat-dice .die')].map(box),
          faces: seat.querySelectorAll('.seat-dice .die:not(.hidden)').length};
})"""


@pytest.mark.parametrize("players", [2, 6])
@pytest.mark.parametrize("size", [(360, 640), (1366, 768), (1920, 1080)])
def test_cups_stand_at_the_other_seats_while_bidding(
    server: str, browser: Browser, players: int, size: tuple[int, int]
) -> None:
    """Each other player's cup stands in their seat's dice row while bidding: inside the
    seat's plate, beside (never over) their dice backs, and never over the name or the
    status line; your own seat has no cup (your dice are shown below the felt)."""
    from test_web_table import our_turn, seated

    page, _ = seated(
        browser,
        server,
        [None] + ["easy"] * (players - 1),
        width=size[0],
        height=size[1],
        timer=300,
        motion="no-preference",
        # We open the first round: our turn comes at once (with six seats the bots could
        # end round after round before it reached us).
        rules={"preset": "perudo", "first_opener": "host"},
    )
    page.click("#start")
    our_turn(page, standing=False)
    seats: list[dict[str, Any]] = page.evaluate(CUPS_WHILE_BIDDING)
    assert len(seats) == players
    for seat in seats:
        assert seat["faces"] == 0, seat  # no die's face at any seat before the reveal
        if seat["me"]:
            assert seat["cup"] is None, seat
            continue
        cup, plate = seat["cup"], seat["plate"]
        assert cup, (size, seat)
        assert (
            plate[0] <= cup[0] and plate[1] <= cup[1] and cup[2] <= plate[2] and cup[3] <= plate[3]
        ), (size, seat)
        for part in ("name", "status"):
            assert not (seat[part] and overlap_area(cup, seat[part]) > 0), (size, part, seat)
        assert seat["dice"] and all(die and overlap_area(cup, die) == 0 for die in seat["dice"]), (
            size,
            seat,
        )
        assert all(plate[0] <= die[0] and die[2] <= plate[2] for die in seat["dice"]), (
            size,
            "dice outside",
            seat,
        )
    keep_shot(page, f"look-bidding-{players}-{size[0]}")
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
