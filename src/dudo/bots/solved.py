"""Solved heads-up endgames for any rules: the shipped data, else solved on first use and cached.

The shipped files (:mod:`dudo.bots.endgame`) cover the presets. Any other rule set the
engine accepts gets the same: the first time a bot reaches a heads-up round no file covers,
the round is solved with CFR (:mod:`dudo.bots.cfr`, discounted CFR to an exploitability of
:data:`TARGET`) and the strategy is kept in memory and written to a disk cache, so the next
process finds it there.

The cache
    ``$DUDO_ENDGAME_CACHE`` (default ``~/.cache/dudo/endgames``; ``off``: memory only). One
    file per solved round, ``<key>.json.gz``, the key a SHA-256 of everything that shapes
    the round: :func:`dudo.bots.endgame.round_signature` (the options that change its
    actions or its outcome, and no others, so a table that differs only in its starting
    dice or its first opener shares the file), the dice counts, the solver settings and
    :data:`FORMAT_VERSION`. The file repeats what its key was made from and is used only if
    that matches, so a truncated, corrupt or foreign file is ignored and the round solved
    again (and the file replaced).

    Bounded: after each write the oldest files (by last use: a hit touches its file) are
    deleted until the folder is within ``$DUDO_ENDGAME_CACHE_MB`` (default 64; a 1v1
    strategy is 10-40 KB). Safe to delete, the folder or any file, at any time: a missing
    file is solved again. Safe for concurrent processes: a solve holds an ``fcntl`` lock on
    ``<key>.lock``, so a second process that wants the same round waits and then reads the
    first one's file instead of solving it too; files are written to a temporary name and
    renamed into place, so a reader sees a whole file or none.

What is solved
    Any heads-up round (two players with dice, any counts, palifico or not) of at most
    ``$DUDO_ENDGAME_MAX_NODES`` nodes, counted as the solver's work per iteration: public
    nodes (bid histories) times pairs of private hands. The default, :data:`MAX_NODES`,
    takes every capped 1v1 round (at most 4,096 x 6 x 6 = 147,456) and the palifico rounds
    up to 1v4 where the face is locked (187 x 6 x 126), and leaves out 1v2 (262,144 public
    nodes) and 1v5 palifico (15 s of CPU).

    Rounds surely over that limit are solved for a strategy that sees its hand and the last
    three or four bids (:mod:`dudo.bots.window`: within 0.002-0.01 of equilibrium where the
    full tree can check it), up to ``$DUDO_ENDGAME_MAX_WINDOWS`` windows times pairs of hands
    (default :data:`MAX_WINDOWS`: every round of up to four dice in play, 2-12 s of CPU and
    about 1 MB on disk each; ``0`` turns them off). Larger rounds return ``None``: the bot
    plays its heuristic there. A round without the cap on bids (a ladder with no end) is played by
    its capped twin (:func:`~dudo.bots.endgame.solved_rules`).

Without blocking
    A solve takes seconds (1.5-38 s of CPU, ``docs/benchmarks.md``).
    ``solved_table(..., wait=False)`` never waits for one: if the strategy is not in
    memory it hands the lookup (the disk read included) to a child process (``python -m
    dudo.bots.solved``, in the idle scheduling class, one at a time) and answers ``None``;
    a later call finds the result. The hard bot asks that way when it is made with
    ``wait_for_solves=False`` (the server, the terminal game), and then :func:`prefetch`
    starts the 1v1 solves of a table's rules as soon as it sees them, so they are normally
    ready before anyone is down to one die. Otherwise (the arena, analyses) it waits, so a
    run replays exactly. A solve cut short by :data:`SECONDS` above :data:`ACCEPT` is
    used but not written.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import hashlib
import json
import logging
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dudo.background import background_worker_started
from dudo.bids import quantity_limits
from dudo.bots.endgame import (
    EndgameTooLarge,
    Strategy,
    Table,
    WindowTable,
    build_endgame,
    game_key,
    round_signature,
    shipped_table,
    solved_rules,
)
from dudo.rules import Rules

log = logging.getLogger("dudo.endgames")

FORMAT_VERSION = 1
"""Part of every cache key: bump it when the file layout, the tree or
:func:`~dudo.bots.endgame.round_signature` changes meaning, and old files are never read."""

METHOD = "dcfr"
"""Discounted CFR: 1.2-2.2x faster than CFR+ to the same exploitability on the 1v1 rounds
measured (``docs/benchmarks.md``)."""
TARGET = 1e-4
"""Stop once the average strategy's exploitability (NashConv/2, in round units: losing the
die is -1) is at most this; the shipped files are at 4e-7..1e-4."""
ITERATIONS = 20_000
SECONDS = 300.0
"""Limits of one solve (a 1v1 round with calza, the slowest, needs ~4,000 iterations, 35 s
CPU); a solve stopped by them is kept with the exploitability it reached, which the file
records."""
ACCEPT = 10 * TARGET
"""A solve that :data:`SECONDS` cut short (a machine too busy) above this exploitability is
used but not written to disk, so that a later process solves the round again."""
CHILD_TIMEOUT = 3600.0
"""Wall seconds a background solve may take (it runs in the idle class: on a busy machine
it waits its turn) before it is given up and the heuristic keeps playing."""
MAX_NODES = 150_000
"""Default ``$DUDO_ENDGAME_MAX_NODES`` (public nodes x pairs of hands): the 1v1 rounds (at
most 147,456), not 1v2 (262,144 public nodes x 126 pairs, minutes per hundred iterations)."""
CACHE_MB = 64.0
"""Default ``$DUDO_ENDGAME_CACHE_MB``."""
MAX_WINDOWS = 2_000_000
"""Default ``$DUDO_ENDGAME_MAX_WINDOWS`` (windows x pairs of hands): rounds over
:data:`MAX_NODES` are solved for a short memory (:mod:`dudo.bots.window`) up to this size,
which takes the rounds of up to four dice in play (2v2: 4,096 windows x 441 pairs, about
10 s of CPU) and leaves out five (2v3: about 8,000 x 1,176). ``0``: exact rounds only."""
MEMORIES = (4, 3)
"""The bids a windowed strategy remembers: the longest of these that fits
:func:`max_windows` (1v2 and 2v1 take 4, within 0.002 of equilibrium; 2v2 and 1v3 take 3)."""
WINDOW_ITERATIONS = 150
"""Default ``$DUDO_ENDGAME_WINDOW_ITERATIONS``: discounted CFR iterations of a windowed
solve. Measured on 1v2, 100 reach the memory's floor (0.010 at three bids), and 600 do no
better; fewer solve in proportion quicker and rougher (a slow machine; the tests that check
how solves are made and kept, not how good they are)."""
MEMORY_TABLES = 32
"""Solved strategies kept in memory per process (most recently used), a few MB each."""
STALE_SECONDS = 3600.0
"""A temporary or lock file left this long without its data file is a crashed writer's."""


# -- settings ------------------------------------------------------------------------------


def cache_dir() -> Path | None:
    """The disk cache's folder (``$DUDO_ENDGAME_CACHE``), or ``None`` when it is ``off``."""
    value = os.environ.get("DUDO_ENDGAME_CACHE", "").strip()
    if value.lower() == "off":
        return None
    if value:
        return Path(value).expanduser()
    return Path("~/.cache/dudo/endgames").expanduser()


def _number(name: str, default: float, minimum: float) -> float:
    """The setting ``name`` as a number of at least ``minimum``, else ``default`` when unset;
    a ValueError that names it otherwise. NaN and infinity (``inf``, or ``1e400``) are
    refused: ``DUDO_ENDGAME_CACHE_MB=inf`` was taken, then failed as an OverflowError."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {text!r}") from None
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, not {text!r}")
    if math.isinf(value):
        raise ValueError(f"{name} must be a finite number, not {text!r}")
    if not value >= minimum:
        raise ValueError(f"{name} must be at least {minimum:g}, not {text!r}")
    return value


def cache_limit_bytes() -> int:
    """The disk cache's bound (``$DUDO_ENDGAME_CACHE_MB``, in MB of 2**20 bytes)."""
    return int(_number("DUDO_ENDGAME_CACHE_MB", CACHE_MB, 0) * 2**20)


def max_nodes() -> int:
    """The largest round solved on the fly (``$DUDO_ENDGAME_MAX_NODES``), in public nodes
    times pairs of private hands."""
    return int(_number("DUDO_ENDGAME_MAX_NODES", MAX_NODES, 1))


def max_windows() -> int:
    """The largest round solved for a short memory (``$DUDO_ENDGAME_MAX_WINDOWS``), in
    windows times pairs of private hands; 0 turns windowed solves off."""
    return int(_number("DUDO_ENDGAME_MAX_WINDOWS", MAX_WINDOWS, 0))


def window_iterations() -> int:
    """Iterations of a windowed solve (``$DUDO_ENDGAME_WINDOW_ITERATIONS``); part of the
    solved file's key, so a file solved with other iterations is not taken for one."""
    return int(_number("DUDO_ENDGAME_WINDOW_ITERATIONS", WINDOW_ITERATIONS, 1))


def _pairs(opener_dice: int, responder_dice: int) -> int:
    return math.comb(opener_dice + 5, 5) * math.comb(responder_dice + 5, 5)  # sorted hands


def window_memory(
    rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
) -> int | None:
    """How many bids a windowed strategy of this round remembers (the longest of
    :data:`MEMORIES` whose graph fits :func:`max_windows`), or ``None`` if none fits.

    Told without building the graph: with ``n`` bids on the ladder, a memory of ``m`` has
    at most one window per set of fewer than ``m`` bids and two (either player to act) per
    set of ``m`` (1v2 at 4 bids: 7,108 counted, 6,428 built)."""
    budget = max_windows() // _pairs(opener_dice, responder_dice)
    for memory in MEMORIES:
        if estimated_windows(rules, opener_dice, responder_dice, memory) <= budget:
            return memory
    return None


def estimated_windows(rules: Rules, opener_dice: int, responder_dice: int, memory: int) -> int:
    """At least as many windows as a round's graph has (:func:`window_memory`): under
    ``ones-lock`` the same bids may stand with ones wild or not (measured: 1.2-1.4 times
    as many windows)."""
    faces, ones = quantity_limits(opener_dice + responder_dice, rules.cap_at_dice_in_play)
    bids = 5 * faces + ones
    count = sum(math.comb(bids, k) for k in range(memory)) + 2 * math.comb(bids, memory)
    return count * 3 // 2 if rules.wild_ones and rules.ones_bids == "lock" else count


def public_limit(opener_dice: int, responder_dice: int) -> int:
    """The most public nodes a round with these dice may have under :func:`max_nodes`."""
    return max_nodes() // _pairs(opener_dice, responder_dice)


# -- keys ----------------------------------------------------------------------------------


def key_material(
    rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
) -> dict[str, Any]:
    """Everything a solved round depends on, as JSON: its file repeats this. A round too
    large for an exact solve is keyed by its windowed solver's settings instead."""
    memory = None
    if surely_too_large(rules, opener_dice, responder_dice, palifico):
        memory = window_memory(rules, opener_dice, responder_dice, palifico)
    solver: list[Any] = [METHOD, TARGET, ITERATIONS, SECONDS]
    if memory is not None:
        solver = ["window", memory, window_iterations()]
    return {
        "version": FORMAT_VERSION,
        "round": list(round_signature(rules, palifico, (opener_dice, responder_dice))),
        "game": game_key(opener_dice, responder_dice, palifico),
        "solver": solver,
    }


def cache_key(rules: Rules, opener_dice: int, responder_dice: int, palifico: bool = False) -> str:
    """The round's cache key: a stable hash of :func:`key_material` (the file name's stem)."""
    material = key_material(rules, opener_dice, responder_dice, palifico)
    text = json.dumps(material, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# -- solving -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Solved:
    """One solve: the strategy as data, its exploitability (by our exact best response on
    the rounded table; ``None`` for a windowed solve, whose round has no tree to measure it
    on), the iterations run and the CPU seconds taken (tree and solve)."""

    table: Strategy
    exploitability: float | None
    iterations: int
    cpu_seconds: float


counters = {"solved": 0, "from_disk": 0, "too_large": 0}
"""What this process did: rounds solved, strategies read from the disk cache, rounds found
over the node limit (for tests and benchmarks)."""


def solve(
    rules: Rules,
    opener_dice: int,
    responder_dice: int,
    palifico: bool = False,
    nodes: int | None = None,
) -> Solved:
    """Solve the round now (no cache). ``nodes``: the limit on public nodes (default
    :func:`public_limit`); a round surely over it is solved for a short memory if it fits
    :func:`max_windows`; else :class:`~dudo.bots.endgame.EndgameTooLarge` is raised."""
    from dudo.bots.cfr import Tree  # numpy-heavy: only a process that solves pays for it

    started = time.process_time()
    if nodes is None and surely_too_large(rules, opener_dice, responder_dice, palifico):
        return _solve_windowed(rules, opener_dice, responder_dice, palifico)
    endgame = build_endgame(
        rules,
        opener_dice,
        responder_dice,
        palifico,
        max_nodes=nodes or public_limit(opener_dice, responder_dice),
    )
    tree = Tree(endgame)
    result = tree.solve(ITERATIONS, target=TARGET, check_every=50, seconds=SECONDS, method=METHOD)
    table = tree.to_table(result.strategy)
    exploitability = tree.evaluate(tree.from_table(table)).exploitability
    counters["solved"] += 1
    return Solved(table, exploitability, result.iterations, time.process_time() - started)


def _solve_windowed(rules: Rules, opener_dice: int, responder_dice: int, palifico: bool) -> Solved:
    from dudo.bots.window import WindowedRound

    started = time.process_time()
    memory = window_memory(rules, opener_dice, responder_dice, palifico)
    if memory is None:
        raise EndgameTooLarge(
            f"the {game_key(opener_dice, responder_dice, palifico)} round is over the "
            "node and window limits"
        )
    round_ = WindowedRound(
        rules,
        opener_dice,
        responder_dice,
        palifico,
        memory=memory,
        max_windows=max_windows() // _pairs(opener_dice, responder_dice),
    )
    strategy, iterations = round_.solve(window_iterations(), seconds=SECONDS)
    counters["solved"] += 1
    return Solved(round_.to_table(strategy), None, iterations, time.process_time() - started)


def strategy_json(table: Strategy) -> dict[str, Any]:
    """A strategy as the cache file and the solving child write it: ``{"strategy": ...}``,
    with ``"windowed": true`` for a :class:`~dudo.bots.endgame.WindowTable`."""
    if isinstance(table, WindowTable):
        return {"strategy": table.to_json(), "windowed": True}
    return {"strategy": table}


def strategy_from_json(data: dict[str, Any]) -> Strategy | None:
    """What :func:`strategy_json` wrote (``None`` if it holds none)."""
    if data.get("windowed"):
        return WindowTable.from_json(data["strategy"])
    table: Table | None = data["strategy"]
    return table


# -- the disk cache ------------------------------------------------------------------------


def _read(path: Path, material: dict[str, Any]) -> Strategy | None:
    """The strategy in ``path`` if it is a whole file made for ``material``, else ``None``."""
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except FileNotFoundError:
        return None
    except (OSError, EOFError, ValueError) as error:  # truncated, corrupt, not JSON
        log.warning("ignoring unreadable endgame cache file %s: %s", path, error)
        return None
    if not isinstance(data, dict) or data.get("key") != material:
        log.warning("ignoring endgame cache file %s: made for another round", path)
        return None
    table = data.get("strategy")
    if data.get("windowed"):
        try:
            windowed = WindowTable.from_json(table)
        except ValueError as error:
            log.warning("ignoring endgame cache file %s: %s", path, error)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)
        counters["from_disk"] += 1
        return windowed
    if not isinstance(table, dict) or not all(
        isinstance(entry, dict)
        and entry
        and all(isinstance(p, int | float) for p in entry.values())
        for entry in table.values()
    ):
        log.warning("ignoring endgame cache file %s: no strategy in it", path)
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # last use: eviction keeps what is played
    counters["from_disk"] += 1
    return table


def _write(path: Path, payload: dict[str, Any]) -> None:
    """Write to a temporary file in the same folder and rename it into place."""
    data = gzip.compress(
        json.dumps(payload, sort_keys=True, separators=(",", ":")).encode(), compresslevel=6
    )
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json.gz")
    try:
        os.fchmod(handle, 0o644)  # mkstemp makes it 0600; the strategy is no secret
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive ``fcntl`` lock on ``path`` (made if missing)."""
    with open(path, "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def evict(folder: Path, limit: int, keep: Path | None = None) -> list[Path]:
    """Delete the least recently used strategy files until ``folder`` holds at most
    ``limit`` bytes of them (``keep``, the file just written, stays); also crashed
    writers' leftovers. Tolerates other processes deleting the same files. Returns what
    it deleted."""
    now = time.time()
    files: list[tuple[float, int, Path]] = []
    removed: list[Path] = []
    for entry in folder.iterdir():
        try:
            stat = entry.stat()
        except FileNotFoundError:
            continue
        name = entry.name
        if name.startswith(".tmp-") and now - stat.st_mtime > STALE_SECONDS:
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()
                removed.append(entry)
        elif name.endswith(".lock") and now - stat.st_mtime > STALE_SECONDS:
            if not entry.with_name(name.removesuffix(".lock") + ".json.gz").exists():
                with open(entry, "ab") as handle:
                    try:  # a lock someone holds is a solve in progress: leave it
                        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except OSError:
                        continue
                    with contextlib.suppress(FileNotFoundError):
                        entry.unlink()
                        removed.append(entry)
        elif name.endswith(".json.gz") and not name.startswith("."):
            files.append((stat.st_mtime, stat.st_size, entry))
    files.sort()
    total = sum(size for _, size, _ in files)
    for _, size, entry in files:
        if total <= limit:
            break
        if keep is not None and entry == keep:
            continue
        with contextlib.suppress(FileNotFoundError):
            entry.unlink()
            removed.append(entry)
        total -= size
    return removed


def obtain(
    rules: Rules, opener_dice: int, responder_dice: int, palifico: bool = False
) -> Strategy | None:
    """The strategy from the disk cache, else solved now and written there (waiting for
    another process that is solving the same round); ``None`` if the round is over the
    node limit. No shipped data, no memory cache: see :func:`solved_table`."""
    folder = cache_dir()
    if folder is None:
        return _solve_or_none(rules, opener_dice, responder_dice, palifico)
    material = key_material(rules, opener_dice, responder_dice, palifico)
    key = cache_key(rules, opener_dice, responder_dice, palifico)
    path = folder / f"{key}.json.gz"
    table = _read(path, material)
    if table is not None:
        return table
    if unsolvable(rules, opener_dice, responder_dice, palifico):
        return None  # said before taking a lock or making a folder
    with contextlib.ExitStack() as stack:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            stack.enter_context(_locked(folder / f"{key}.lock"))
        except OSError as error:  # a read-only home, a full disk: solve without the cache
            log.warning("endgame cache %s not usable, solving without it: %s", folder, error)
            return _solve_or_none(rules, opener_dice, responder_dice, palifico)
        table = _read(path, material)  # solved by another process while we waited
        if table is not None:
            return table
        solved = solve(rules, opener_dice, responder_dice, palifico)
        if solved.exploitability is not None and solved.exploitability > ACCEPT:
            log.warning(
                "endgame %s stopped at exploitability %.2g: used, not cached",
                key,
                solved.exploitability,
            )
            return solved.table
        try:
            _write(
                path,
                {
                    "key": material,
                    "rules": rules.to_json(),
                    **strategy_json(solved.table),
                    "exploitability": solved.exploitability,
                    "iterations": solved.iterations,
                    "cpu_seconds": round(solved.cpu_seconds, 3),
                },
            )
        except OSError as error:
            log.warning("endgame cache file %s not written: %s", path, error)
            return solved.table
    with contextlib.suppress(OSError):
        evict(folder, cache_limit_bytes(), keep=path)
    return solved.table


def _solve_or_none(
    rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
) -> Strategy | None:
    try:
        return solve(rules, opener_dice, responder_dice, palifico).table
    except EndgameTooLarge:
        counters["too_large"] += 1
        return None


def surely_too_large(rules: Rules, opener_dice: int, responder_dice: int, palifico: bool) -> bool:
    """Whether the round's tree is over the node limit, told without building it.

    Outside palifico, the bids of faces 2..6 are in the same order under every ones rule
    (by quantity, then face), so every increasing run of them is a bid history of its own:
    the tree has at least ``2 ** (5 * limit)`` nodes, ``limit`` the most dice a bid may name
    (1v1 capped: 1,024; three dice in play: 32,768). Palifico rounds, where raises may keep
    to one face, are not bounded this way (``False``: build to know)."""
    if palifico:
        return False
    limit, _ = quantity_limits(opener_dice + responder_dice, rules.cap_at_dice_in_play)
    return bool(2 ** (5 * limit) > public_limit(opener_dice, responder_dice))


def unsolvable(rules: Rules, opener_dice: int, responder_dice: int, palifico: bool) -> bool:
    """Whether the round is over both limits: too large to solve exactly
    (:func:`too_large`) and, if surely so, for a short memory too (:func:`window_memory`)."""
    if surely_too_large(rules, opener_dice, responder_dice, palifico):
        if window_memory(rules, opener_dice, responder_dice, palifico) is not None:
            return False
        counters["too_large"] += 1
        return True
    return too_large(rules, opener_dice, responder_dice, palifico)


def too_large(rules: Rules, opener_dice: int, responder_dice: int, palifico: bool) -> bool:
    """Whether the round's public tree is over the node limit (``$DUDO_ENDGAME_MAX_NODES``):
    by :func:`surely_too_large`, else by building it, which stops at the limit."""
    over = surely_too_large(rules, opener_dice, responder_dice, palifico)
    if not over:
        try:
            build_endgame(
                rules,
                opener_dice,
                responder_dice,
                palifico,
                max_nodes=public_limit(opener_dice, responder_dice),
            )
        except EndgameTooLarge:
            over = True
    if over:
        counters["too_large"] += 1
    return over


# -- memory, and the way bots ask ----------------------------------------------------------

_MISSING = object()
_memory: OrderedDict[str, Strategy] = OrderedDict()
_unsolvable: set[str] = set()  # over the node limit (or a background solve that failed)
_pending: dict[str, threading.Thread] = {}
_lock = threading.Lock()
_one_child = threading.Semaphore(1)  # one solving child at a time: a queue, not a crowd


def _remember(key: str, table: Strategy | None) -> None:
    with _lock:
        if table is None:
            _unsolvable.add(key)
            return
        _memory[key] = table
        _memory.move_to_end(key)
        while len(_memory) > MEMORY_TABLES:
            _memory.popitem(last=False)


def _recall(key: str) -> object:
    with _lock:
        if key in _unsolvable:
            return None
        if key not in _memory:
            return _MISSING
        _memory.move_to_end(key)
        return _memory[key]


def forget() -> None:
    """Empty this process's memory of solved rounds (the disk cache stays)."""
    with _lock:
        _memory.clear()
        _unsolvable.clear()


def solved_table(
    rules: Rules,
    opener_dice: int,
    responder_dice: int,
    palifico: bool = False,
    *,
    wait: bool = True,
) -> Strategy | None:
    """The equilibrium strategy of this heads-up round under ``rules``, or ``None``.

    The shipped data if it covers the round, else memory, else the disk cache, else a solve
    now (``wait``) or in a background process (``wait=False``: answers ``None`` until a
    later call finds it done). ``None`` also for rounds over the node limit and for Common
    Hand (quantity bids only). A :data:`~dudo.bots.endgame.TableLookup`.
    """
    if rules.bids != "quantity":
        return None
    rules = solved_rules(rules)  # a round without the cap: its capped twin's strategy
    shipped = shipped_table(rules, opener_dice, responder_dice, palifico)
    if shipped is not None:
        return shipped
    if surely_too_large(rules, opener_dice, responder_dice, palifico) and (
        window_memory(rules, opener_dice, responder_dice, palifico) is None
    ):
        return None
    key = cache_key(rules, opener_dice, responder_dice, palifico)
    known = _recall(key)
    if known is not _MISSING:
        return known  # type: ignore[return-value]
    if wait:
        try:
            table = obtain(rules, opener_dice, responder_dice, palifico)
        except (OSError, ValueError) as error:  # a cache folder we may not write, a tree
            # the engine will not start: the bot plays its heuristic, it does not fail
            log.warning("endgame %s not solved: %s", key, error)
            table = None
        _remember(key, table)
        return table
    _in_background(key, rules, opener_dice, responder_dice, palifico)
    return None


def _in_background(
    key: str, rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
) -> None:
    """Start :func:`obtain` in a child process unless it is already under way for ``key``.

    A child process and not a thread: a solve is seconds of Python that would hold the
    GIL against the server's event loop. A fresh interpreter (``python -m
    dudo.bots.solved``) and not a ``multiprocessing`` pool, whose "spawn" re-imports the
    parent's main script (a script without the ``__main__`` guard would break) and whose
    worker would stay in memory. A thread here only waits for the child's answer."""
    with _lock:
        if key in _pending:
            return
        thread = threading.Thread(
            target=_run_child,
            args=(key, rules, opener_dice, responder_dice, palifico),
            name=f"endgame-solve-{key[:8]}",
            daemon=True,
        )
        _pending[key] = thread
    thread.start()


def _run_child(
    key: str, rules: Rules, opener_dice: int, responder_dice: int, palifico: bool
) -> None:
    table: Strategy | None = None
    _one_child.acquire()
    try:
        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            part for part in (package_root, env.get("PYTHONPATH", "")) if part
        )
        command = [
            sys.executable,
            "-m",
            "dudo.bots.solved",
            json.dumps(rules.to_json()),
            str(opener_dice),
            str(responder_dice),
            "palifico" if palifico else "plain",
        ]
        done = subprocess.run(
            command, capture_output=True, check=True, env=env, timeout=CHILD_TIMEOUT
        )
        answer = json.loads(done.stdout)
        table = strategy_from_json(answer) if isinstance(answer, dict) else None
    except (OSError, ValueError, KeyError, subprocess.SubprocessError) as error:
        # the heuristic plays these rounds in this process; the next one may try again
        detail = getattr(error, "stderr", b"") or b""
        log.warning(
            "background endgame solve failed: %s %s",
            error,
            detail.decode(errors="replace").strip().splitlines()[-1:] if detail else "",
        )
    finally:
        _one_child.release()
        _remember(key, table)
        with _lock:
            _pending.pop(key, None)


def _main(arguments: list[str]) -> None:
    """The child process: ``RULES_JSON OPENER_DICE RESPONDER_DICE palifico|plain``; prints
    ``{"strategy": table or null}``."""
    background_worker_started()
    rules_json, opener_dice, responder_dice, kind = arguments
    rules = Rules.from_json(json.loads(rules_json))
    table = obtain(rules, int(opener_dice), int(responder_dice), kind == "palifico")
    answer = {"strategy": None} if table is None else strategy_json(table)
    sys.stdout.write(json.dumps(answer, separators=(",", ":")))


def heads_up_games(rules: Rules) -> list[tuple[int, int, bool]]:
    """The heads-up rounds of a table under ``rules`` worth solving ahead: ``(1, 1, False)``,
    the palifico one where palifico rounds happen heads-up, and the larger rounds that fit
    the windowed solver (:func:`window_memory`; 2v1 up to 2v2 and 1v3 by default)."""
    games = [(1, 1, False)]
    if rules.palifico and rules.palifico_min_players <= 2:
        games.append((1, 1, True))
    rules = solved_rules(rules)
    most = rules.starting_dice
    for total in range(3, 2 * most + 1):
        for opener_dice in range(max(1, total - most), min(most, total - 1) + 1):
            responder_dice = total - opener_dice
            if surely_too_large(rules, opener_dice, responder_dice, False) and (
                window_memory(rules, opener_dice, responder_dice, False) is not None
            ):
                games.append((opener_dice, responder_dice, False))
    return games


def is_ready(rules: Rules, opener_dice: int, responder_dice: int, palifico: bool = False) -> bool:
    """Whether this round's strategy can be had without solving: shipped, in this
    process's memory, or in the disk cache (or the round is not solved at all)."""
    if rules.bids != "quantity":
        return True
    rules = solved_rules(rules)
    if shipped_table(rules, opener_dice, responder_dice, palifico) is not None:
        return True
    key = cache_key(rules, opener_dice, responder_dice, palifico)
    if _recall(key) is not _MISSING:
        return True
    folder = cache_dir()
    if folder is not None and (folder / f"{key}.json.gz").exists():
        return True
    return unsolvable(rules, opener_dice, responder_dice, palifico)


def prefetch(rules: Rules) -> None:
    """Make sure the heads-up rounds of ``rules`` (:func:`heads_up_games`) are, or are being,
    solved, without waiting: the smallest first, one child process at a time."""
    rules = solved_rules(rules)
    for opener_dice, responder_dice, palifico in heads_up_games(rules):
        solved_table(rules, opener_dice, responder_dice, palifico, wait=False)


def wait_background(timeout: float | None = None) -> None:
    """Wait until the background solves started so far are done and remembered (tests,
    benchmarks); :class:`TimeoutError` after ``timeout`` seconds."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        with _lock:
            threads = list(_pending.values())
        if not threads:
            return
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise TimeoutError(f"{len(threads)} endgame solves still running")
        threads[0].join(remaining)


if __name__ == "__main__":
    _main(sys.argv[1:])
