"""A finished game's page (/g/ID) in a real browser (Debian's Chromium through Playwright,
as tests/browser/test_web.py): reached from the game-over screen and from "My games", stepped
through with the keyboard against the engine's counts, the analysis shown, the dice checked
with Web Crypto (and a record with one die changed, dropped or added, or its counts edited
with its cups, failing visibly), on a phone and a big screen without sideways scrolling,
and axe with every one of its rules finding nothing.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, Route, expect
from test_web import check_fits, chromium, keep_shot, new_page
from test_web_csp import RECORD_VIOLATIONS

from dudo.bids import Bid
from dudo.bots import make_bot
from dudo.bots.table import bot_step
from dudo.client import Client
from dudo.fairness import derive_dice, verify_record
from dudo.game import CALZA, Game, Phase
from dudo.rules import PRESETS, Rules
from dudo.terminal_records import CommittedDice, game_record
from serverkit import server_process, sqlite_url, stored_record


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Bots act at once and rounds roll at once: the game is over in a second or two.
    with server_process(sqlite_url(tmp_path_factory.mktemp("replay"))) as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


T = TypeVar("T")


def run_apart(game: Coroutine[Any, Any, T], timeout: float = 120) -> T:
    """Run a client's coroutine in a thread of its own: Playwright's sync API keeps an event
    loop in this one. A daemon thread: a game that does not end within ``timeout`` fails
    the test then (an executor's ``with`` block would wait for its thread regardless)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(game)
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=run, name="client-game", daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"the client's game did not end within {timeout:g} s"
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


@pytest.fixture(scope="module")
def finished(server: str) -> dict[str, Any]:
    """A whole game (one seat played by a program, two bots), its seat and its record."""

    async def play() -> dict[str, Any]:
        async with Client(server) as client:
            seat = await client.create_room(
                "Ana",
                rules={"preset": "perudo", "starting_dice": 3},
                seats=3,
                bots=[None, "hard", "normal"],
            )
            async with client.table(seat) as table:
                await table.start()
                await table.play(make_bot("normal", seed=3))
                game_id = table.state["fair"]["game_id"]
            return {"seat": seat, "id": game_id, "record": await stored_record(client, game_id)}

    game = run_apart(play())
    game["analysis"] = httpx.get(f"{server}/api/games/{game['id']}/analysis", timeout=30).json()
    return game


def open_game(page: Page, server: str, game_id: str, fair: str = "verified") -> None:
    page.goto(f"{server}/g/{game_id}")
    # The analysis is made when first asked for, by a worker process: on a machine busy with
    # other tests that takes more than expect's 5 s.
    expect(page.locator("#analysis-state")).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(page.locator("#fair")).to_have_attribute("data-state", fair, timeout=30_000)


def axe_every_rule(page: Page, name: str) -> None:
    """axe with every rule it has turned on (best practices and experimental ones too),
    and every violation counted whatever its impact."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    page.evaluate(axe.axe_script)
    rules = page.evaluate("axe.getRules().map((rule) => rule.ruleId)")
    assert len(rules) > 80, rules
    results = axe.run(
        page,
        options={
            "rules": {rule: {"enabled": True} for rule in rules},
            "resultTypes": ["violations"],
        },
    )
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in results.response["violations"]
    ]
    assert not bad, (name, bad)


def expected_steps(record: dict[str, Any], analysis: dict[str, Any]) -> list[dict[str, Any]]:
    """What each position of the replay must show: the round, the step, the standing (or
    called) bid and the engine's count for it."""
    steps: list[dict[str, Any]] = []
    for r, (played, info) in enumerate(zip(record["rounds"], analysis["rounds"], strict=True)):
        steps.append({"round": r + 1, "step": 0, "bid": None, "count": None})
        last_bid = None
        for k, action in enumerate(played["actions"]):
            decision = info["steps"][k]
            if "bid" in action:
                last_bid = action["bid"]
                count = decision["after"]["count"]
            else:
                count = info["reveal"]["count"]
            bid = f"{last_bid[0]}x{last_bid[1]}" if last_bid else None
            steps.append({"round": r + 1, "step": k + 1, "bid": bid, "count": count})
    return steps


SHOWN = """() => {
    const stage = document.querySelector('#stage');
    const count = stage.querySelector('[data-count]');
    return {round: Number(stage.dataset.round), step: Number(stage.dataset.step),
            bid: stage.querySelector('.replay-bid')?.dataset.bid ?? null,
            count: count ? Number(count.dataset.count) : null,
            slider: Number(document.querySelector('#slider').value)};
}"""


def shown(page: Page) -> dict[str, Any]:
    value: dict[str, Any] = page.evaluate(SHOWN)
    return value


def test_game_over_links_to_the_game_page_and_my_games(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    page = new_page(browser, 360, 640)
    seat = finished["seat"]
    page.goto(server + "/")
    # The seat's token where the browser keeps it, as if this browser had taken the seat.
    page.evaluate(
        "([code, seat]) => localStorage.setItem(`dudo.seat.${code}`, JSON.stringify(seat))",
        [seat.code, {"token": seat.token, "seat": seat.seat, "name": seat.name}],
    )
    page.goto(f"{server}/r/{seat.code}")
    link = page.locator(".centre.over #game-page")
    expect(link).to_have_attribute("href", f"/g/{finished['id']}")
    keep_shot(page, "game-over-link-360", full_page=True)
    link.click()
    page.wait_for_url(f"**/g/{finished['id']}*")
    expect(page.locator("#fair")).to_have_attribute("data-state", "verified")
    expect(page.locator("h1")).to_contain_text("Ana")
    # The home page links to the games this browser remembers; the game is there.
    page.goto(server + "/")
    page.click("#my-games")
    page.wait_for_url("**/my-games")
    game = page.locator(f'.my-games li[data-game="{finished["id"]}"]')
    expect(game).to_contain_text(f"Table {seat.code}")
    check_fits(page, "my-games-360")
    axe_every_rule(page, "my games")
    game.locator("a").click()
    page.wait_for_url(f"**/g/{finished['id']}*")
    expect(page.locator(".cup .badge.you")).to_have_count(1)  # our seat, as remembered
    page.go_back()
    page.locator(f'[data-forget="{finished["id"]}"]').click()
    expect(page.locator(f'.my-games li[data-game="{finished["id"]}"]')).to_have_count(0)
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def test_stepping_through_with_the_keyboard_shows_the_engines_counts(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    page = new_page(browser, 1280, 800)
    open_game(page, server, finished["id"])
    steps = expected_steps(finished["record"], finished["analysis"])
    assert shown(page) == {**steps[0], "slider": 0}
    for index, wanted in enumerate(steps[1:], start=1):
        page.keyboard.press("ArrowRight")
        assert shown(page) == {**wanted, "slider": index}, index
    page.keyboard.press("ArrowRight")  # the end: stays there
    assert shown(page)["slider"] == len(steps) - 1
    expect(page.locator("#step-sentence")).to_contain_text("wins the game")
    page.keyboard.press("Home")
    assert shown(page)["slider"] == 0
    page.keyboard.press("PageDown")
    assert (shown(page)["round"], shown(page)["step"]) == (2, 0)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("PageUp")  # back to this round's deal, then the round before
    assert (shown(page)["round"], shown(page)["step"]) == (2, 0)
    page.keyboard.press("PageUp")
    assert (shown(page)["round"], shown(page)["step"]) == (1, 0)
    page.keyboard.press("End")
    assert shown(page)["slider"] == len(steps) - 1
    # The buttons and the slider do the same; the address names the step, for sharing.
    page.click("#first")
    page.click("#next")
    assert shown(page) == {**steps[1], "slider": 1}
    page.locator("#slider").fill("3")
    assert shown(page) == {**steps[3], "slider": 3}
    assert page.evaluate("location.hash") == f"#r{steps[3]['round']}s{steps[3]['step']}"
    page.reload()
    expect(page.locator("#stage")).to_have_attribute("data-step", str(steps[3]["step"]))
    page.context.close()


def test_the_analysis_is_shown(server: str, browser: Browser, finished: dict[str, Any]) -> None:
    page = new_page(browser, 1280, 800)
    open_game(page, server, finished["id"])
    analysis, record = finished["analysis"], finished["record"]
    # Perudo with 3 dice: the dice count is named, not called "house rules".
    assert analysis["rules_overrides"] == {"preset": "perudo", "starting_dice": 3}
    expect(page.locator("#rules-name")).to_have_text("Perudo · 3 dice each")
    names = record["names"]
    cards = page.locator(".player-card")
    expect(cards).to_have_count(record["players"])
    for player in analysis["summary"]:
        card = page.locator(f'.player-card[data-seat="{player["seat"]}"]')
        expect(card).to_contain_text(names[player["seat"]])
        expect(card.locator('[data-stat="calls-right"]')).to_have_text(
            str(player["calls"]["right"])
        )
        expect(card.locator('[data-stat="calls-wrong"]')).to_have_text(
            str(player["calls"]["wrong"])
        )
        expect(card.locator('[data-stat="mistakes"]')).to_have_text(str(player["mistakes"]))
    # The first move, weighed from its seat: the chance, and what hard would have done.
    first = analysis["rounds"][0]["steps"][0]
    page.keyboard.press("ArrowRight")
    insight = page.locator("#stage .insight")
    expect(insight).to_contain_text(f"{round(first['bid_holds'] * 100)}%")
    expect(insight).to_contain_text("Hard would have")
    # Every mistake and bluff is marked in the list of every move.
    mistakes = sum(1 for entry in analysis["rounds"] for step in entry["steps"] if step["mistake"])
    bluffs = sum(1 for entry in analysis["rounds"] for step in entry["steps"] if step["bluff"])
    expect(page.locator("#log .mark.mistake")).to_have_count(mistakes)
    expect(page.locator("#log .mark.bluff")).to_have_count(bluffs)
    moves = sum(len(entry["actions"]) for entry in record["rounds"])
    expect(page.locator("#log .step")).to_have_count(moves)
    # A move in the list jumps there.
    page.locator("#log-r1s2 .step-link").click()
    expect(page.locator("#stage")).to_have_attribute("data-step", "2")
    # The downloads: the record as it is, and the scenario.
    assert page.get_attribute(f'a[href="/api/games/{finished["id"]}"]', "download")
    with page.expect_download() as download:
        page.click(f'a[href="/api/games/{finished["id"]}/scenario"]')
    saved = json.loads(Path(download.value.path()).read_text())
    assert saved["rounds"] == record["rounds"] and "fairness" not in saved
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


def tamper_die(record: dict[str, Any]) -> int:
    round_ = record["rounds"][1]
    cup = next(cup for cup in round_["dice"] if cup)
    cup[0] = cup[0] % 6 + 1
    return 2


def tamper_bot_seat(record: dict[str, Any]) -> int:
    bot = record["bots"][0]
    record["fairness"][0]["server_seats"].remove(bot)
    return 1


def tamper_hide_bot(record: dict[str, Any]) -> int:
    """The audit's rigged record: a bot left out of the record and of round 1's seats."""
    bot = record["bots"][0]
    record["bots"] = []
    fair = record["fairness"][0]
    fair["server_seats"].remove(bot)
    fair["bot_seats"].remove(bot)
    return 1


def tamper_seat_seed(record: dict[str, Any]) -> int:
    fair = record["fairness"][2]
    seat = fair["server_seats"][0]
    fair["seat_seeds"][seat] = "0" * 32
    return 3


def deal_again(record: dict[str, Any], number: int, counts: list[int]) -> None:
    """Round ``number``'s cups dealt again from its own seeds with other counts: every die
    then follows from the published seeds, whatever each seat should have held."""
    fair = record["fairness"][number - 1]
    cups = derive_dice(fair["server_seed"], fair["seat_seeds"], number, counts)
    record["rounds"][number - 1]["dice"] = [list(cup) for cup in cups]


def counts_of(record: dict[str, Any], number: int) -> list[int]:
    return [len(cup) for cup in record["rounds"][number - 1]["dice"]]


def tamper_drop_die(record: dict[str, Any]) -> int:
    """The last die of the last cup of round 2 dropped: every die left still follows from
    the seeds (the stream is dealt seat by seat), but that seat had one more."""
    cups = record["rounds"][1]["dice"]
    last = max(seat for seat, cup in enumerate(cups) if cup)
    cups[last].pop()
    assert counts_of(record, 2) != record["reveals"][0]["dice_counts"]
    return 2


def tamper_add_die(record: dict[str, Any]) -> int:
    """A die more in a cup of round 2, the round dealt again from its seeds to match."""
    counts = counts_of(record, 2)
    counts[counts.index(max(counts))] += 1
    deal_again(record, 2, counts)
    return 2


def tamper_reveal_bidder(record: dict[str, Any]) -> int:
    """Round 2's outcome said to be of a call on another seat's bid than its moves say
    (the bidder: the caller would also move the dice of an exact calza to round 3)."""
    reveal = record["reveals"][1]
    reveal["bidder"] = next(
        seat for seat in range(3) if seat not in (reveal["caller"], reveal["bidder"])
    )
    return 2


def tamper_counts_with_cup(record: dict[str, Any]) -> int:
    """A die fewer for a seat in the last round, with the count the record states for it
    (the previous round's outcome) edited to match and the round dealt again: the cups
    hold what the record says, but that is not what the previous round left."""
    last = len(record["rounds"])
    counts = counts_of(record, last)
    seat = counts.index(max(counts))
    counts[seat] -= 1
    record["reveals"][last - 2]["dice_counts"][seat] -= 1
    deal_again(record, last, counts)
    return last


@pytest.mark.parametrize(
    "tamper,problem",
    [
        (tamper_die, "the seeds give"),
        (tamper_bot_seat, "is a bot"),
        (tamper_hide_bot, "bot seats do not match the commitment"),
        (tamper_seat_seed, "does not follow from the committed server seed"),
        (tamper_drop_die, "in the record, but the record gives it"),
        (tamper_add_die, "in the record, but the record gives it"),
        (tamper_counts_with_cup, "for this round, but it had"),
        (tamper_reveal_bidder, "but its moves end with"),
    ],
)
def test_the_dice_are_checked_in_the_browser_and_a_changed_record_fails(
    server: str, browser: Browser, finished: dict[str, Any], tamper: Any, problem: str
) -> None:
    page = new_page(browser, 1280, 800)
    rounds = len(finished["record"]["rounds"])
    assert rounds >= 3
    open_game(page, server, finished["id"])
    expect(page.locator('#fair-rounds li[data-ok="true"]')).to_have_count(rounds)
    expect(page.locator("#fair-verdict")).to_contain_text("Verified")
    # The same page, with the record changed on its way from the server.
    changed = json.loads(json.dumps(finished["record"]))
    bad_round = tamper(changed)

    def serve_changed(route: Route) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(changed))

    page.route(re.compile(rf"/api/games/{finished['id']}$"), serve_changed)
    open_game(page, server, finished["id"], fair="failed")
    expect(page.locator("#fair-verdict")).to_contain_text("NOT VERIFIED")
    expect(page.locator("#fair-verdict")).to_contain_text(problem)
    failed = page.locator(f'#fair-rounds li[data-round="{bad_round}"]')
    expect(failed).to_have_attribute("data-ok", "false")
    expect(failed).to_contain_text("NOT verified")
    expect(page.locator('#fair-rounds li[data-ok="true"]')).to_have_count(rounds - 1)
    for _ in range(bad_round - 1):
        page.keyboard.press("PageDown")
    expect(page.locator("#stage .badge.bad")).to_contain_text("NOT verified")
    expect(page.locator("#stage .fair-problem")).to_contain_text(problem)
    expect(page.locator("#fair-summary")).to_contain_text("NOT VERIFIED")
    keep_shot(page, f"replay-tampered-{tamper.__name__}")
    page.context.close()


def test_a_record_without_outcomes_is_counted_in_round_1_and_says_so(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    """A record stating no outcomes (as records made before them, or one they were taken
    out of) verifies, saying only round 1's cups were counted; a die dropped from round 1
    is still caught there (its counts are the record's start), in the page's language."""
    record = json.loads(json.dumps(finished["record"]))
    del record["reveals"]
    served = {"record": record}

    def serve(route: Route) -> None:
        body = json.dumps(served["record"])
        route.fulfill(status=200, content_type="application/json", body=body)

    page = new_page(browser, 1280, 800)
    page.route(re.compile(rf"/api/games/{finished['id']}$"), serve)
    open_game(page, server, finished["id"])
    expect(page.locator("#fair-verdict")).to_contain_text("Verified")
    expect(page.locator("#fair-verdict")).to_contain_text("only the cups of round 1 were counted")
    page.context.close()
    dropped = json.loads(json.dumps(record))
    cups = dropped["rounds"][0]["dice"]
    cups[max(seat for seat, cup in enumerate(cups) if cup)].pop()
    served["record"] = dropped
    for locale, words in [("en-US", "NOT VERIFIED"), ("de-DE", "NICHT BESTÄTIGT")]:
        page = new_page(browser, 1280, 800, locale=locale)
        page.route(re.compile(rf"/api/games/{finished['id']}$"), serve)
        open_game(page, server, finished["id"], fair="failed")
        expect(page.locator("#fair-verdict")).to_contain_text(words)
        held = "in the record, but" if locale == "en-US" else "in der Aufzeichnung"
        expect(page.locator('#fair-rounds li[data-round="1"]')).to_contain_text(held)
        expect(page.locator('#fair-rounds li[data-ok="true"]')).to_have_count(
            len(record["rounds"]) - 1
        )
        assert not page.js_errors  # type: ignore[attr-defined]
        page.context.close()


# Every preset, and the options that change what a call costs: loss by the difference, a
# points race (no dice change hands), calza (a die won back, or one lost).
VARIANTS: list[dict[str, Any]] = [{"preset": name, "starting_dice": 3} for name in PRESETS] + [
    {"preset": "perudo", "starting_dice": 3, "loss_by_difference": True},
    {"preset": "perudo", "starting_dice": 3, "format": "points", "points_rounds": 6},
    {"preset": "perudo", "starting_dice": 2, "calza": "any_time", "calza_min_players": 2},
]


def variant_record(options: dict[str, Any], seed: int) -> dict[str, Any]:
    """A finished game of four bots under ``options``, recorded as ``dudo play`` does; a
    seat short of dice calls calza when the bid is exact (and now and then when not), so
    dice are won back and lost that way too."""
    players = 4
    dice = CommittedDice(players, seed=seed, bot_seats=list(range(players)))
    game = Game(Rules.from_json(options), players, dice=dice)
    bots = [make_bot("easy", seed=seed * players + seat) for seat in range(players)]
    lots = random.Random(seed)
    while game.winners == ():
        bid = game.standing
        if game.phase is Phase.BIDDING and isinstance(bid, Bid):
            exact = game.count(bid.face) == bid.quantity
            short = [
                seat for seat in game.alive if game.dice_counts[seat] < game.rules.starting_dice
            ]
            callers = [
                seat
                for seat in (short if exact else game.alive if lots.random() < 0.03 else [])
                if game.reason(seat, CALZA) is None
            ]
            if callers:
                game.apply(callers[0], CALZA)
                continue
        bot_step(game, bots)
    record = game_record(game, dice, f"v{seed}", [f"P{seat}" for seat in range(players)], [])
    verify_record(record)  # the engine's word: this record is right
    return json.loads(json.dumps(record))


def test_every_variants_records_count_up_in_the_browser(server: str, browser: Browser) -> None:
    """The browser follows the dice counts through the outcomes of every preset's and
    variant's games without a false alarm (a die lost by the difference, a points race, a
    die won back or lost by calza), and still catches a die taken from each one's last
    round."""
    records = [variant_record(options, seed) for seed in (1, 2) for options in VARIANTS]
    outcomes = {
        (reveal["call"], reveal["loser"] is None, reveal["change"])
        for record in records
        for reveal in record["reveals"]
        if record["rules"]["format"] == "elimination"
    }
    assert {("calza", True, 1), ("calza", False, 1), ("dudo", False, 2)} <= outcomes, outcomes
    dropped = []
    for record in records:
        changed = json.loads(json.dumps(record))
        cups = changed["rounds"][-1]["dice"]
        cups[max(seat for seat, cup in enumerate(cups) if cup)].pop()
        dropped.append(changed)
    page = new_page(browser, 1280, 800)
    page.goto(f"{server}/rules")
    results = page.evaluate(
        """async (records) => {
            const {verifyRecord} = await import('/static/js/verify.js');
            const found = [];
            for (const record of records) {
                const result = await verifyRecord(record);
                found.push({ok: result.ok, problem: result.problem,
                    bad: result.rounds.filter((round) => !round.ok).map((round) => round.round)});
            }
            return found;
        }""",
        records + dropped,
    )
    honest, forged = results[: len(records)], results[len(records) :]
    assert all(result["ok"] for result in honest), [
        (record["rules"], result) for record, result in zip(records, honest, strict=True)
    ]
    for record, result in zip(records, forged, strict=True):
        assert not result["ok"] and result["bad"] == [len(record["rounds"])], result
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize("width,height", [(360, 640), (1920, 1080)])
def test_the_page_fits_and_axe_finds_nothing(
    server: str, browser: Browser, finished: dict[str, Any], width: int, height: int
) -> None:
    page = new_page(browser, width, height)
    page.context.add_init_script(RECORD_VIOLATIONS)
    open_game(page, server, finished["id"])
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    check_fits(page, f"replay-{width}")
    axe_every_rule(page, f"replay {width}")
    page.keyboard.press("End")  # the reveal that ends the game
    check_fits(page, f"replay-end-{width}")
    axe_every_rule(page, f"replay end {width}")
    # Printable: the controls go, every round's moves stay.
    page.emulate_media(media="print")
    expect(page.locator(".controls")).to_be_hidden()
    expect(page.locator("#log .round-log").first).to_be_visible()
    keep_shot(page, f"replay-print-{width}", full_page=True)
    assert page.evaluate("window.__violations") == []  # all of it runs under the policy
    assert not page.js_errors  # type: ignore[attr-defined]
    page.context.close()
