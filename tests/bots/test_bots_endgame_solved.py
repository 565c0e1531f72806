"""Endgames for any rules (dudo.bots.solved): a round no shipped file covers is solved on first
use to near equilibrium (measured by exact best response), then found in memory and on disk;
the cache key follows the options that shape the round and no others; the cache can be off,
stays within its bound, survives corrupt files and concurrent writers."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from dudo.bids import Bid
from dudo.bots import solved
from dudo.bots.cfr import Tree
from dudo.bots.endgame import (
    EndgameTooLarge,
    build_endgame,
    endgame_policy,
    shipped_table,
    solved_rules,
)
from dudo.bots.hard import HardBot
from dudo.bots.registry import make_bot
from dudo.dice import SeededDice
from dudo.game import DUDO, Game
from dudo.rules import PRESETS, Rules
from dudo.view import view

SRC = Path(__file__).resolve().parents[2] / "src"

# No preset plays these rounds (checked below). QUICK solves in a fraction of a second.
QUICK = Rules.preset("tavern", wild_ones=False)
ISSUE = Rules.preset("no-wilds", wild_ones=True)  # the rules of issue 24's outside check
OTHER = Rules.preset("ones-lock", ones_bids="plain")  # wild ones, ones plain, no calza


@pytest.fixture(autouse=True)
def cache(endgame_cache: Path) -> Path:
    """A fresh cache folder and an empty memory for every test (windowed solves stay off,
    as the session sets them: test_window.py tests those)."""
    return endgame_cache


def strategy_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json.gz")) if folder.exists() else []


def test_the_rules_used_here_are_not_shipped() -> None:
    for rules in (QUICK, ISSUE, OTHER):
        assert rules.preset_name is None
        assert shipped_table(rules, 1, 1) is None


@pytest.mark.parametrize("rules", [QUICK, ISSUE], ids=["tavern-no-wilds", "no-wilds-wild-ones"])
def test_a_non_preset_round_is_solved_near_equilibrium(rules: Rules) -> None:
    table = solved.solved_table(rules, 1, 1)
    assert isinstance(table, dict)  # exact, not windowed
    tree = Tree(build_endgame(rules, 1, 1))
    measured = tree.evaluate(tree.from_table(table))
    assert measured.exploitability < 1e-3
    assert tree.evaluate(tree.uniform()).exploitability > 0.3
    assert solved.counters["solved"] == 1


def test_second_use_is_a_hit_in_memory_then_on_disk(cache: Path) -> None:
    first = solved.solved_table(QUICK, 1, 1)
    assert solved.counters == {"solved": 1, "from_disk": 0, "too_large": 0}
    assert len(strategy_files(cache)) == 1
    assert solved.solved_table(QUICK, 1, 1) is first  # memory: not even the disk
    assert solved.counters["from_disk"] == 0
    solved.forget()  # a new process, as far as memory goes
    again = solved.solved_table(QUICK, 1, 1)
    assert again == first
    assert solved.counters == {"solved": 1, "from_disk": 1, "too_large": 0}


def test_tables_that_play_the_same_round_share_one_solve(cache: Path) -> None:
    solved.solved_table(QUICK, 1, 1)
    for same in (
        QUICK.with_options(starting_dice=3, first_opener="host"),
        QUICK.with_options(format="points", points_rounds=5),
        QUICK.with_options(calza="any_time", calza_min_players=3),  # no calza heads-up
        QUICK.with_options(palifico=True, palifico_min_players=3),  # a 1v1 round is not one
    ):
        assert solved.cache_key(same, 1, 1) == solved.cache_key(QUICK, 1, 1)
        assert solved.solved_table(same, 1, 1) is not None
    assert solved.counters["solved"] == 1
    assert len(strategy_files(cache)) == 1


def test_the_key_differs_when_the_round_differs() -> None:
    base = solved.cache_key(OTHER, 1, 1)
    for changed in (
        OTHER.with_options(wild_ones=False),
        OTHER.with_options(ones_bids="never"),
        OTHER.with_options(ones_bids="lock"),
        OTHER.with_options(cap_at_dice_in_play=False),
        OTHER.with_options(calza="in_turn"),
        OTHER.with_options(loss_by_difference=True, format="points"),
    ):
        assert solved.cache_key(changed, 1, 1) != base, changed.to_overrides()
    assert solved.cache_key(OTHER, 1, 2) != base
    # Losing by the difference matters once someone holds two dice, not with one each.
    lbd = OTHER.with_options(loss_by_difference=True)
    assert solved.cache_key(lbd, 1, 1) == base
    assert solved.cache_key(lbd, 1, 2) != solved.cache_key(OTHER, 1, 2)
    dudo_lbd = PRESETS["dudo"].with_options(loss_by_difference=True)
    assert shipped_table(dudo_lbd, 1, 1) is shipped_table(PRESETS["dudo"], 1, 1) is not None
    palifico = Rules.preset("dudo", ones_bids="plain")
    assert solved.cache_key(palifico, 1, 1, True) != solved.cache_key(palifico, 1, 1)
    assert solved.cache_key(palifico, 1, 1, True) != solved.cache_key(
        palifico.with_options(palifico_one_die_may_change_face=False), 1, 1, True
    )
    # Stable: a hash of named values, the same in every process and run.
    assert solved.cache_key(OTHER, 1, 1) == base
    assert len(base) == 32 and int(base, 16) >= 0


def test_off_keeps_strategies_in_memory_only(
    cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DUDO_ENDGAME_CACHE", "off")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert solved.cache_dir() is None
    table = solved.solved_table(QUICK, 1, 1)
    assert table is not None
    assert solved.solved_table(QUICK, 1, 1) is table
    assert solved.counters["solved"] == 1
    assert not cache.exists()
    assert not (tmp_path / "home").exists()


def test_a_cache_folder_that_cannot_be_made_means_memory_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A read-only home (a hardened service without its cache directory): the round is
    solved all the same, the bot does not fail."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("DUDO_ENDGAME_CACHE", str(blocker / "endgames"))
    assert solved.solved_table(QUICK, 1, 1) is not None
    assert solved.counters["solved"] == 1


def test_default_folder_is_under_the_users_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DUDO_ENDGAME_CACHE")
    assert solved.cache_dir() == Path("~/.cache/dudo/endgames").expanduser()


def test_bad_settings_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUDO_ENDGAME_CACHE_MB", "lots")
    with pytest.raises(ValueError, match="DUDO_ENDGAME_CACHE_MB must be a number"):
        solved.cache_limit_bytes()
    monkeypatch.setenv("DUDO_ENDGAME_MAX_NODES", "0")
    with pytest.raises(ValueError, match="DUDO_ENDGAME_MAX_NODES must be at least 1"):
        solved.max_nodes()


@pytest.mark.parametrize("text", ["inf", "infinity", "-inf", "1e400", "nan", "-1"])
@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("DUDO_ENDGAME_CACHE_MB", solved.cache_limit_bytes),
        ("DUDO_ENDGAME_MAX_NODES", solved.max_nodes),
        ("DUDO_ENDGAME_MAX_WINDOWS", solved.max_windows),
    ],
)
def test_infinite_nan_and_negative_settings_are_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, name: str, read: Callable[[], int], text: str
) -> None:
    # inf was let through, then int(inf * 2**20) failed as an OverflowError
    monkeypatch.setenv(name, text)
    with pytest.raises(ValueError, match=f"^{name} must be ") as refused:
        read()
    assert repr(text) in str(refused.value)
    if text in ("inf", "infinity", "1e400"):
        assert str(refused.value) == f"{name} must be a finite number, not {text!r}"


def test_an_infinite_cache_bound_is_a_warning_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # As for any bad value: the round's solve is logged as not done, the bot plays on.
    monkeypatch.setenv("DUDO_ENDGAME_CACHE_MB", "inf")
    with caplog.at_level("WARNING"):
        solved.solved_table(QUICK, 1, 1)
    assert "DUDO_ENDGAME_CACHE_MB must be a finite number, not 'inf'" in caplog.text


def test_eviction_deletes_the_least_recently_used_beyond_the_bound(tmp_path: Path) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    now = time.time()
    for age, name in enumerate(["new", "mid", "old", "oldest"]):
        path = folder / f"{name}.json.gz"
        path.write_bytes(b"x" * 1000)
        os.utime(path, (now - 100 * age, now - 100 * age))
    keep = folder / "oldest.json.gz"  # the file just written stays whatever its time
    removed = solved.evict(folder, 2500, keep=keep)
    assert sorted(p.name for p in removed) == ["mid.json.gz", "old.json.gz"]
    assert sorted(p.name for p in folder.iterdir()) == ["new.json.gz", "oldest.json.gz"]
    # Leftovers of a crashed writer go once stale; a fresh temporary file stays.
    stale = folder / ".tmp-abc.json.gz"
    stale.write_bytes(b"half")
    os.utime(stale, (now - 2 * solved.STALE_SECONDS,) * 2)
    fresh = folder / ".tmp-def.json.gz"
    fresh.write_bytes(b"half")
    orphan = folder / "gone.lock"
    orphan.touch()
    os.utime(orphan, (now - 2 * solved.STALE_SECONDS,) * 2)
    solved.evict(folder, 10**9)
    assert not stale.exists() and not orphan.exists() and fresh.exists()


def test_the_size_bound_holds_after_each_solve(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    solved.solved_table(QUICK, 1, 1)
    first = strategy_files(cache)
    assert len(first) == 1
    # A bound smaller than one file: each write keeps only itself.
    monkeypatch.setenv("DUDO_ENDGAME_CACHE_MB", str(first[0].stat().st_size / 2**20 / 2))
    other = QUICK.with_options(ones_bids="lock")  # another key, as quick to solve
    assert solved.solved_table(other, 1, 1) is not None
    files = strategy_files(cache)
    assert [p.name for p in files] == [f"{solved.cache_key(other, 1, 1)}.json.gz"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: b"not gzip at all",
        lambda data: gzip.compress(b'{"key": '),  # gzip of broken JSON
        lambda data: gzip.compress(json.dumps({"key": "another", "strategy": {}}).encode()),
        lambda data: b"",
    ],
    ids=["truncated", "garbage", "broken-json", "foreign", "empty"],
)
def test_a_damaged_cache_file_is_ignored_and_solved_again(cache: Path, damage: object) -> None:
    good = solved.solved_table(QUICK, 1, 1)
    (path,) = strategy_files(cache)
    assert callable(damage)
    path.write_bytes(damage(path.read_bytes()))
    solved.forget()
    again = solved.solved_table(QUICK, 1, 1)
    assert again == good
    assert solved.counters["solved"] == 2
    solved.forget()
    assert solved.solved_table(QUICK, 1, 1) == good  # the file was replaced by a whole one
    assert solved.counters["from_disk"] == 1


def test_a_solve_cut_short_is_used_but_not_cached(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine too busy to finish (the solve's limits hit, here one iteration): the bot
    gets what was reached, and no file, so a later process solves the round properly."""
    monkeypatch.setattr(solved, "ITERATIONS", 1)
    assert solved.solved_table(QUICK, 1, 1) is not None
    assert strategy_files(cache) == []


def test_deleting_the_cache_folder_just_means_solving_again(cache: Path) -> None:
    solved.solved_table(QUICK, 1, 1)
    for path in cache.iterdir():
        path.unlink()
    cache.rmdir()
    solved.forget()
    assert solved.solved_table(QUICK, 1, 1) is not None
    assert solved.counters["solved"] == 2 and len(strategy_files(cache)) == 1


CHILD = """
import json, sys
from dudo.bots import solved
from dudo.rules import Rules
rules = Rules.from_json(json.loads(sys.argv[1]))
table = solved.obtain(rules, 1, 1)
print(json.dumps({"counters": solved.counters, "entries": len(table)}))
"""


def test_concurrent_processes_solve_a_round_once(cache: Path) -> None:
    """Three processes ask for the same unsolved round at once: the per-key lock makes one
    solve it and the others wait and read its file."""
    rules = json.dumps(OTHER.to_json())
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, rules], stdout=subprocess.PIPE, env=env, text=True
        )
        for _ in range(3)
    ]
    answers = [json.loads(child.communicate(timeout=600)[0]) for child in children]
    assert all(child.returncode == 0 for child in children)
    assert sorted(answer["counters"]["solved"] for answer in answers) == [0, 0, 1]
    assert sorted(answer["counters"]["from_disk"] for answer in answers) == [0, 1, 1]
    assert len({answer["entries"] for answer in answers}) == 1
    assert len(strategy_files(cache)) == 1
    assert not list(cache.glob(".tmp-*"))


def test_rounds_over_the_node_limit_are_not_solved(monkeypatch: pytest.MonkeyPatch) -> None:
    assert solved.solved_table(QUICK, 1, 2) is None  # three dice in play: 262,144 nodes
    assert solved.solved_table(QUICK, 5, 5) is None
    # Without the cap the tree has no end (uncapped rounds play their capped twin: below),
    # and with loss by the difference the twin does not play them exactly.
    uncapped = QUICK.with_options(cap_at_dice_in_play=False, loss_by_difference=True)
    assert solved.surely_too_large(uncapped, 1, 1, False)
    assert solved.solved_table(uncapped, 1, 1) is None
    assert solved.counters["solved"] == 0
    # The default takes every capped 1v1 round (4,096 public nodes at most), not 1v2.
    assert solved.public_limit(1, 1) >= 4096 > solved.public_limit(1, 2)
    # A palifico round with the face locked is small in bids but not in hands: 1v5 is out.
    locked = Rules.preset("perudo", palifico_min_players=2, palifico_open_on_ones=False)
    assert solved.solved_table(locked, 1, 5, True) is None
    assert solved.counters == {"solved": 0, "from_disk": 0, "too_large": 1}
    # Under a lower limit even 1v1 is out of reach; building stops at the limit.
    monkeypatch.setenv("DUDO_ENDGAME_MAX_NODES", "500")
    palifico = Rules.preset("dudo", ones_bids="plain")
    with pytest.raises(EndgameTooLarge):
        build_endgame(palifico, 1, 1, True, max_nodes=500)
    assert solved.solved_table(palifico, 1, 1, True) is None
    assert solved.counters == {"solved": 0, "from_disk": 0, "too_large": 2}


def test_common_hand_is_never_solved() -> None:
    assert solved.solved_table(PRESETS["common-hand"], 1, 1) is None
    assert solved.counters["solved"] == 0


def test_the_shipped_data_comes_first() -> None:
    assert solved.solved_table(PRESETS["tavern"], 1, 1) is shipped_table(PRESETS["tavern"], 1, 1)
    assert solved.counters["solved"] == 0


def _heads_up(rules: Rules, seed: int = 3) -> Game:
    game = Game(rules, 2, dice=SeededDice(seed), dice_counts=[1, 1], opener=0)
    game.roll()
    return game


def test_a_round_without_the_cap_plays_its_capped_twin() -> None:
    """A bid above the dice in play is certainly false, so the capped round's equilibrium,
    every such bid called, is the uncapped round's: one solve serves both."""
    uncapped = ISSUE.with_options(cap_at_dice_in_play=False)
    assert solved_rules(uncapped) == ISSUE
    assert solved_rules(ISSUE) is ISSUE
    table = solved.solved_table(uncapped, 1, 1)
    assert table is not None and table is solved.solved_table(ISSUE, 1, 1)
    assert solved.counters["solved"] == 1
    for seed in range(6):  # the same position under both rules, the same policy
        positions = []
        for rules in (ISSUE, uncapped):
            game = _heads_up(rules, seed)
            game.apply(0, Bid(2, 3))
            positions.append(endgame_policy(view(game, 1), solved.solved_table))
        assert positions[0] is not None
        assert positions[1] == pytest.approx(positions[0])
    # Above every die in play: dudo, whatever the cup holds.
    game = _heads_up(uncapped)
    game.apply(0, Bid(3, 6))
    assert endgame_policy(view(game, 1), solved.solved_table) == {DUDO: 1.0}
    bot = HardBot(seed=1)
    assert bot.act(view(game, 1)) is DUDO


def test_hard_plays_the_solved_strategy_in_any_rules() -> None:
    game = _heads_up(QUICK)
    seen = view(game, 0)
    bot = HardBot(seed=1)
    weighed = bot.weigh(seen)
    policy = endgame_policy(seen, solved.solved_table)
    assert policy is not None
    assert dict(zip(weighed.options, weighed.weights, strict=True)) == pytest.approx(policy)
    assert bot.decisions == 0  # not weighed on its belief


def test_hard_that_may_not_wait_plays_its_heuristic_until_the_solve_is_done(
    cache: Path,
) -> None:
    """As the server makes it, hard plays its heuristic until the background solve is
    done, and it starts that solve the first time it sees the rules."""
    bot = make_bot("hard", seed=1, budget_ms=20, wait_for_solves=False)
    assert isinstance(bot, HardBot) and not bot.wait_for_solves
    game = _heads_up(QUICK)
    bot.weigh(view(game, 0))
    assert bot.decisions == 1  # the heuristic played
    assert solved.counters["solved"] == 0  # nothing solved in this process
    solved.wait_background(600)
    assert len(strategy_files(cache)) == 1  # the child process wrote it
    weighed = bot.weigh(view(game, 0))
    assert bot.decisions == 1  # now the solved strategy
    policy = endgame_policy(view(game, 0), solved.solved_table)
    assert dict(zip(weighed.options, weighed.weights, strict=True)) == pytest.approx(policy)
    assert solved.counters["solved"] == 0


def test_prefetch_starts_the_palifico_round_too(cache: Path) -> None:
    rules = Rules.preset("dudo", ones_bids="plain", calza="off")
    assert solved.heads_up_games(rules) == [(1, 1, False), (1, 1, True)]
    assert solved.heads_up_games(QUICK) == [(1, 1, False)]
    solved.prefetch(rules)
    solved.wait_background(600)
    assert len(strategy_files(cache)) == 2
    assert solved.solved_table(rules, 1, 1, True, wait=False) is not None
