"""Privacy of the whole server, seen from the sockets (issue 4).

Non-interference: a game is played with a socket for every seat and one for a spectator,
every payload recorded as raw text. Clock, entropy and the actions are fixed, so a run is
exactly repeatable. Then, for an observer (a seat, or the spectator) and a round, the game
is played again with the same actions but every *other* seat's dice in that round replaced
by different ones. Until the round's reveal, the observer must receive byte-for-byte the
same payloads in both runs: nothing it is sent depends on dice it may not see. Every seat
and the spectator are observers in turn, for every round of several games.

The scan: in the same games, no payload before a round's reveal carries another seat's
dice, the round's server seed or another seat's seed, and no payload ever carries another
seat's token.

Players act by a fixed policy computed from public information only (the standing bid,
the dice counts, their legal actions), so their actions stay the same when the hidden dice
change; the second run replays the first run's actions.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from starlette.testclient import TestClient

from dudo.store.base import LogEntry, MemoryStore
from dudo.view import ViewTexts
from serverkit import CountingEntropy, FakeClock, make_app
from socketkit import Sock, connect, seat_table, settled

# (label, seats, rules, games): short games, every rule that changes what is said at the table
# (calza in and out of turn, palifico rounds, ones bids) turns up somewhere.
GAMES = [
    ("three-perudo", 3, {"preset": "perudo", "starting_dice": 2}, 2),
    ("two-dudo", 2, {"preset": "dudo", "starting_dice": 3}, 2),
    ("four-tavern", 4, {"preset": "tavern", "starting_dice": 1}, 1),
    ("four-perudo", 4, {"preset": "perudo", "starting_dice": 2, "first_opener": "host"}, 1),
    ("three-no-wilds", 3, {"preset": "no-wilds", "starting_dice": 2}, 1),
    ("five-ones-lock", 5, {"preset": "ones-lock", "starting_dice": 1}, 1),
    (
        "three-points",
        3,
        {"preset": "dudo", "format": "points", "points_rounds": 3, "starting_dice": 2},
        1,
    ),
    ("six-dudo", 6, {"preset": "dudo", "starting_dice": 1}, 1),
    ("two-perudo", 2, {"preset": "perudo", "starting_dice": 4}, 1),
    ("three-tavern", 3, {"preset": "tavern", "starting_dice": 3}, 2),
    ("five-dudo", 5, {"preset": "dudo", "starting_dice": 2, "loss_by_difference": True}, 1),
    (
        "four-points",
        4,
        {"preset": "no-wilds", "format": "points", "points_rounds": 4, "starting_dice": 1},
        1,
    ),
]

Cups = tuple[tuple[int, ...], ...]


def honest_dice(
    server_seed: str, round_number: int | str, seat: int, count: int
) -> tuple[int, ...]:
    rng = random.Random(f"A|{server_seed}|{round_number}|{seat}")
    return tuple(rng.randint(1, 6) for _ in range(count))


def other_dice(
    cup: tuple[int, ...], server_seed: str, round_number: int, seat: int
) -> tuple[int, ...]:
    """Fresh dice, each one different from the die it replaces."""
    rng = random.Random(f"B|{server_seed}|{round_number}|{seat}")
    return tuple((die - 1 + rng.randint(1, 5)) % 6 + 1 for die in cup)


@dataclass
class Dealer:
    """The ``deal`` hook: honest (seeded) dice, except that in the room's ``swap``-th roll
    (counted from 1 over every game of the room) every seat but ``keep`` (None: every seat)
    gets other dice. Remembers every deal."""

    keep: int | None = None
    swap: int | None = None
    deals: list[tuple[str, int, Cups]] = field(default_factory=list)

    def __call__(
        self,
        server_seed: str,
        seat_seeds: list[str],
        round_number: int | str,
        dice_counts: tuple[int, ...],
    ) -> Cups:
        if isinstance(round_number, str):
            # A roll-off attempt ("rolloff-k", the dudo preset): its dice are public at
            # once, so there is nothing hidden to swap; rounds alone are counted.
            return tuple(
                honest_dice(server_seed, round_number, seat, count)
                for seat, count in enumerate(dice_counts)
            )
        cups = tuple(
            honest_dice(server_seed, round_number, seat, count)
            for seat, count in enumerate(dice_counts)
        )
        if len(self.deals) + 1 == self.swap:
            cups = tuple(
                cup if seat == self.keep else other_dice(cup, server_seed, round_number, seat)
                for seat, cup in enumerate(cups)
            )
        self.deals.append((server_seed, round_number, cups))
        return cups


def public_policy(
    label: str, state: dict[str, Any], step: int, seats: list[dict[str, Any]]
) -> tuple[int, dict[str, Any]]:
    """Who acts next and how, from public information and each seat's legal actions only
    (never from any dice), so the choice is the same whatever the hidden dice are."""
    game = state["game"]
    rng = random.Random(f"{label}|{game['round']}|{len(game['bids'])}|{step}")
    action_id = f"a{step}"
    # Now and then a seat out of turn calls calza, where the rules let it.
    if rng.random() < 0.12:
        for seat, seen in enumerate(seats):
            if seat != game["turn"] and "calza" in seen["game"]["legal"]["calls"]:
                return seat, {"type": "call", "id": action_id, "call": "calza"}
    turn = game["turn"]
    legal = seats[turn]["game"]["legal"]
    standing = game["standing"]
    in_play = sum(game["dice_counts"])
    if standing is not None:
        doubt = min(0.9, 0.05 + 0.8 * standing[0] / in_play)
        roll = rng.random()
        if "calza" in legal["calls"] and roll < 0.1:
            return turn, {"type": "call", "id": action_id, "call": "calza"}
        if "dudo" in legal["calls"] and (roll < doubt or not legal["bids"]):
            return turn, {"type": "call", "id": action_id, "call": "dudo"}
    quantity, face = rng.choice(legal["bids"][:5])
    return turn, {"type": "bid", "id": action_id, "quantity": quantity, "face": face}


@dataclass
class Run:
    """One room's play: every socket's payloads (seats 0..n-1, then the spectator), the
    actions in order with whose turn it was, the tokens, the room's log and every deal."""

    texts: list[list[str]]
    actions: list[tuple[int, dict[str, Any]]]
    turns: list[int | None]
    tokens: dict[int, str]
    log: list[LogEntry]
    deals: list[tuple[str, int, Cups]]
    games_finished: int
    refused: bool = False

    @property
    def reveals(self) -> int:
        return sum(1 for _, message in self.actions if message["type"] == "call")


def play(
    label: str,
    seats: int,
    rules: dict[str, Any],
    dealer: Dealer,
    games: int = 1,
    script: list[tuple[int, dict[str, Any]]] | None = None,
    stop_after_reveal: int | None = None,
) -> Run:
    """Play ``games`` games (rematches after the first) in one room on a fresh app. With
    ``script``, replay those actions instead (stopping at the first one refused); with
    ``stop_after_reveal``, stop once that many rounds were called."""
    store = MemoryStore()
    app = make_app(store=store, clock=FakeClock(), entropy=CountingEntropy(label), deal=dealer)
    actions: list[tuple[int, dict[str, Any]]] = []
    turns: list[int | None] = []
    refused = False
    finished = 0
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        table = seat_table(client, seats, rules=rules)
        socks = [
            stack.enter_context(connect(client, table.code, table.tokens[seat], f"seat {seat}"))
            for seat in range(seats)
        ]
        socks.append(stack.enter_context(connect(client, table.code, None, "spectator")))

        def act(sock: Sock, message: dict[str, Any]) -> bool:
            sock.send(message)
            reply = sock.until(lambda m: m["type"] in ("ack", "error"))
            if reply["type"] == "error":
                return False
            for each in socks:
                while not settled(each.state, reply["version"]):
                    each.recv()
            return True

        assert act(socks[0], {"type": "start", "id": "start"})
        while True:
            state = socks[0].state
            assert state is not None
            step = len(actions)
            if state["room"]["status"] == "over" and step and actions[-1][1]["type"] == "call":
                finished += 1
            if script is not None:
                if step == len(script):
                    break
                seat, message = script[step]
            elif state["room"]["status"] == "over":
                if finished == games:
                    break
                # Anyone at the table may ask for the rematch, not only the host.
                seat, message = finished % seats, {"type": "rematch", "id": f"a{step}"}
            else:
                seat, message = public_policy(
                    label, state, step, [sock.state or {} for sock in socks[:seats]]
                )
            turn = state["game"]["turn"] if state["game"] else None
            if not act(socks[seat], message):
                assert script is not None, f"the policy chose a refused action {message}"
                refused = True
                break
            actions.append((seat, message))
            turns.append(turn)
            if sum(m["type"] == "call" for _, m in actions) == stop_after_reveal:
                break
        texts = [sock.texts for sock in socks]
    return Run(
        texts,
        actions,
        turns,
        table.tokens,
        list(store.logs[table.code]),
        dealer.deals,
        finished,
        refused,
    )


def reveal_index(texts: list[str], number: int) -> int:
    """Index of the first payload that carries the ``number``-th reveal event."""
    seen = 0
    for index, text in enumerate(texts):
        data = json.loads(text)
        if any(event.get("event") == "reveal" for event in data.get("events", [])):
            seen += 1
            if seen == number:
                return index
    raise AssertionError(f"no reveal number {number} in {len(texts)} payloads")


@pytest.fixture(scope="module")
def honest_runs() -> dict[str, Run]:
    runs = {}
    for label, seats, rules, games in GAMES:
        run = play(label, seats, rules, Dealer(), games=games)
        assert run.games_finished == games, f"{label}: the games did not finish"
        runs[label] = run
    return runs


def observers(seats: int) -> list[int | None]:
    return [*range(seats), None]


def compare(
    label: str, seats: int, rules: dict[str, Any], honest: Run, observer: int | None, reveal: int
) -> tuple[list[str], list[str]]:
    """The observer's payloads before the ``reveal``-th reveal of the room, in the honest
    run and in a run where the roll before it dealt other dice to every other seat."""
    swapped = play(
        label,
        seats,
        rules,
        Dealer(keep=observer, swap=reveal),
        script=honest.actions,
        stop_after_reveal=reveal,
    )
    index = -1 if observer is None else observer
    before = honest.texts[index]
    after = swapped.texts[index]
    # Had an action been refused, the legal actions the players were sent would already
    # have differed; say so plainly.
    assert not swapped.refused, f"{label}: an action was refused after the dice changed"
    cut_honest = reveal_index(before, reveal)
    cut_swapped = reveal_index(after, reveal)
    # The swap really happened: somebody's dice differ in that roll...
    assert honest.deals[reveal - 1] != swapped.deals[reveal - 1]
    assert honest.deals[: reveal - 1] == swapped.deals[: reveal - 1]
    # ...and the reveal, which lists every cup, shows it.
    assert before[cut_honest] != after[cut_swapped]
    return before[:cut_honest], after[:cut_swapped]


@pytest.mark.parametrize("label, seats, rules, games", GAMES, ids=[game[0] for game in GAMES])
def test_what_a_seat_receives_does_not_depend_on_dice_it_cannot_see(
    honest_runs: dict[str, Run], label: str, seats: int, rules: dict[str, Any], games: int
) -> None:
    honest = honest_runs[label]
    assert honest.reveals >= 2
    for observer in observers(seats):
        for reveal in range(1, honest.reveals + 1):
            before, after = compare(label, seats, rules, honest, observer, reveal)
            assert len(before) == len(after), (observer, reveal)
            for position, (one, other) in enumerate(zip(before, after, strict=True)):
                assert one == other, (
                    f"{label}: {'spectator' if observer is None else f'seat {observer}'} "
                    f"got a different payload #{position} before reveal {reveal} when "
                    f"other seats' dice changed:\n{one}\n{other}"
                )


def test_the_games_cover_the_interesting_cases(honest_runs: dict[str, Run]) -> None:
    """Dudo and calza, calza out of turn, palifico rounds, rematches, players knocked out
    who keep watching: the comparisons above went through all of them."""
    runs = list(honest_runs.values())
    calls = [
        (turn, seat, message["call"])
        for run in runs
        for turn, (seat, message) in zip(run.turns, run.actions, strict=True)
        if message["type"] == "call"
    ]
    assert {"dudo", "calza"} <= {call for _, _, call in calls}
    assert any(seat != turn for turn, seat, call in calls if call == "calza")
    games = [
        data["game"]
        for run in runs
        for texts in run.texts[:-1]
        for text in texts
        if (data := json.loads(text))["type"] == "state" and data["game"] is not None
    ]
    assert any(game["palifico"] for game in games)
    assert sum(1 for run in runs for _, m in run.actions if m["type"] == "rematch") >= 2
    assert any(game["phase"] == "bidding" and game["dice"] == [] for game in games)


def test_the_comparison_catches_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """The non-interference check fails for a server that leaks a neighbour's dice."""

    class LeakyTexts(ViewTexts):
        """Each seat's view text (what the room sends), with a neighbour's dice added."""

        def __init__(self, game: Any) -> None:
            super().__init__(game)
            self.game = game

        def text(self, seat: int | None) -> str:
            seen = json.loads(super().text(seat))
            if seat is None or not seen["dice"]:
                return super().text(seat)
            seen["dice"] += list(self.game.cups[(seat + 1) % self.game.players])
            return json.dumps(seen)

    monkeypatch.setattr("dudo.server.table.audience.ViewTexts", LeakyTexts)
    label, seats, rules, _ = GAMES[0]
    honest = play(label, seats, rules, Dealer(), stop_after_reveal=1)
    before, after = compare(label, seats, rules, honest, 0, 1)
    assert before != after


# -- the scan -------------------------------------------------------------------------


def round_secrets(log: list[LogEntry]) -> list[tuple[list[str], list[str], int | float]]:
    """Per round: its server seed(s), its seats' seeds, and the version from which they
    are public (the version the revealing call produced; inf if never revealed)."""
    found: list[tuple[list[str], list[str], int | float]] = []
    server: list[str] = []
    seat_seeds: list[str] = []
    for entry in log:
        if entry.kind in ("started", "rematch"):
            server, seat_seeds = [entry.data["server_seed"]], []
        elif entry.kind == "rolled" and "next" in entry.data:
            # A roll-off attempt: its dice and seeds are public at once (dudo.fairness),
            # and the next attempt's (or round 1's) commitment comes with them.
            found.append((server, list(entry.data["seat_seeds"]), entry.seq + 1))
            server, seat_seeds = [entry.data["next"]["server_seed"]], []
        elif entry.kind == "rolled":
            seat_seeds = list(entry.data["seat_seeds"])
        elif entry.kind == "action" and "call" in entry.data["action"]:
            found.append((server, seat_seeds, entry.seq + 1))
            following = entry.data.get("next")
            server, seat_seeds = ([following["server_seed"]] if following else []), []
    if server:
        found.append((server, seat_seeds, math.inf))
    return found


def round_commitments(log: list[LogEntry]) -> Iterator[tuple[str, str]]:
    """Every (commitment, server seed) the log published."""
    for entry in log:
        fair = (
            entry.data
            if entry.kind in ("started", "rematch")
            else entry.data.get("next")
            if entry.kind in ("action", "rolled")
            else None
        )
        if fair:
            yield fair["commitment"], fair["server_seed"]


def walk(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) pair inside a JSON value, containers included."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, (*path, index))


def allowed_cups_path(data: dict[str, Any], path: tuple[Any, ...]) -> bool:
    """Cups may appear only in a reveal event or in the game's last reveal."""
    if path == ("game", "last_reveal", "cups"):
        return True
    if len(path) == 3 and path[0] == "events" and path[2] == "cups":
        return bool(data["events"][path[1]].get("event") == "reveal")
    return False


def scan(run: Run, seats: int) -> int:
    """Check every payload of a run; returns how many were checked."""
    secrets = round_secrets(run.log)
    seed_of = {commitment_of: seed for commitment_of, seed in round_commitments(run.log)}
    cups_by_seed = {seed: cups for seed, _, cups in run.deals}
    cups_by_commitment = {
        promise: cups_by_seed[seed] for promise, seed in seed_of.items() if seed in cups_by_seed
    }
    revealed_versions = sorted(version for _, _, version in secrets)
    checked = 0
    for index, texts in enumerate(run.texts):
        seat = index if index < seats else None
        other_tokens = [token for owner, token in run.tokens.items() if owner != seat]
        version = 0
        for text in texts:
            data = json.loads(text)
            assert isinstance(data, dict) and isinstance(data.get("type"), str), text
            version = data.get("version", version)
            for token in other_tokens:
                assert token not in text, f"seat {seat} was sent another seat's token"
            for server, seat_seeds, public_from in secrets:
                if version >= public_from:
                    continue
                for secret in server:
                    assert secret not in text, f"seat {seat}: server seed before the reveal"
                for owner, secret in enumerate(seat_seeds):
                    if owner != seat:
                        assert secret not in text, f"seat {seat}: seat {owner}'s seed leaked"
            for path, value in walk(data):
                if path and path[-1] == "cups":
                    assert allowed_cups_path(data, path), f"cups at {path}: {text}"
                    # Only cups of rounds already called (this payload's own reveal at most).
                    assert tuple(map(tuple, value)) in {
                        cups
                        for seed, _, cups in run.deals
                        if any(
                            seed in server and public_from <= version
                            for server, _, public_from in secrets
                        )
                    }, text
                if path and path[-1] == "dice":
                    assert path == ("game", "dice"), f"dice at {path}: {text}"
            game = data.get("game") if data["type"] == "state" else None
            if game is not None:
                if seat is not None and game["phase"] == "bidding":
                    cups = cups_by_commitment[data["fair"]["commitment"]]
                    assert game["dice"] == list(cups[seat]), text
                else:
                    assert game["dice"] == [], text
            checked += 1
        assert revealed_versions and version >= revealed_versions[0]
    return checked


@pytest.mark.parametrize("label, seats, rules, games", GAMES, ids=[game[0] for game in GAMES])
def test_no_payload_carries_hidden_dice_seeds_or_tokens(
    honest_runs: dict[str, Run], label: str, seats: int, rules: dict[str, Any], games: int
) -> None:
    run = honest_runs[label]
    assert scan(run, seats) > 20
    # The scan looks for the right strings: after each reveal the seeds are public, and the
    # payloads then do carry them.
    everything = "".join(run.texts[0])
    for server, seat_seeds, public_from in round_secrets(run.log):
        if public_from != math.inf:
            assert all(secret in everything for secret in server + seat_seeds)


def test_the_scan_catches_a_leaked_seed(honest_runs: dict[str, Run]) -> None:
    label, seats, _, _ = GAMES[0]
    run = honest_runs[label]
    server, _, _ = round_secrets(run.log)[0]
    leaked = dataclasses.replace(run, texts=[list(texts) for texts in run.texts])
    leaked.texts[1].insert(2, json.dumps({"type": "pong", "v": 1, "note": server[0]}))
    with pytest.raises(AssertionError, match="server seed"):
        scan(leaked, seats)


def test_room_summary_over_http_has_no_dice_seeds_or_tokens() -> None:
    store = MemoryStore()
    dealer = Dealer()
    app = make_app(store=store, clock=FakeClock(), entropy=CountingEntropy("summary"), deal=dealer)
    with TestClient(app) as client:
        table = seat_table(client, 3, rules={"preset": "perudo"}, public=True)
        with connect(client, table.code, table.tokens[0]) as host:
            host.send({"type": "start", "id": "go"})
            host.until(
                lambda m: (
                    m["type"] == "state"
                    and m["game"] is not None
                    and m["game"]["phase"] == "bidding"
                )
            )
            secrets = [
                s
                for server, seeds, _ in round_secrets(store.logs[table.code])
                for s in server + seeds
            ]
            for text in (
                client.get(f"/api/rooms/{table.code}").text,
                client.get("/api/rooms").text,
            ):
                assert '"dice"' not in text and '"cups"' not in text
                for secret in [*secrets, *table.tokens.values()]:
                    assert secret not in text
