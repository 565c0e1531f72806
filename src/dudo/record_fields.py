"""What a game record's fields must be, said in words before anything is checked.

:func:`dudo.fairness.verify_record` asks these first, so that input that is no game record
at all (``{}``, a scenario file, ``"players": "2"``) and fairness material with a field
missing or of the wrong kind (``"commitment": 5``, ``"seat_seeds": null``) are named by
the field and what it should be, not by the Python error that reading them would raise.
Each function returns the problem as a phrase, or ``None`` when the fields are in order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from dudo.printable import counted
from dudo.rules import MAX_PLAYERS, MIN_PLAYERS

_SEED = re.compile(r"[0-9a-fA-F]{1,128}")

RECORD_FIELDS = {
    "rules": (dict, "an object (the game's rules)"),
    "players": (int, f"a whole number {MIN_PLAYERS} to {MAX_PLAYERS} (the table's seats)"),
    "rounds": (list, "a list (each round's dice and actions)"),
    "fairness": (list, "a list (each round's seeds and commitment)"),
}


def kind(value: object) -> str:
    """What a JSON value is, in words: ``null``, ``a string``, ``a list``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def record_problem(record: Mapping[str, Any]) -> str | None:
    """Why ``record`` is no game record: a field it lacks (a scenario file has no
    ``fairness``), or one of the wrong kind; ``None`` when it has the fields of one."""
    missing = [name for name in RECORD_FIELDS if name not in record]
    if missing:
        names = ", ".join(map(repr, missing[:-1])) + " or " * (len(missing) > 1)
        names += repr(missing[-1])
        hint = "; a scenario file is run with dudo scenario" if missing == ["fairness"] else ""
        return f"it has no {names}{hint}"
    for name, (wanted, what) in RECORD_FIELDS.items():
        value = record[name]
        if not isinstance(value, wanted) or isinstance(value, bool):
            return f"{name!r} must be {what}, not {kind(value)}"
    if not MIN_PLAYERS <= record["players"] <= MAX_PLAYERS:
        what = RECORD_FIELDS["players"][1]
        return f"'players' must be {what}, not {record['players']}"
    if "start" in record and not isinstance(record["start"], dict):
        return f"'start' must be an object (how the game started), not {kind(record['start'])}"
    return None


def material_problem(fair: Mapping[str, Any], dice: Sequence[object]) -> str | None:
    """Why one round's (or roll-off attempt's) fairness material cannot be checked: its
    ``server_seed``, ``commitment`` or ``seat_seeds`` missing or of the wrong kind, or a
    seat seed for other than each of the round's ``dice``; ``None`` when they are there."""
    for name in ("server_seed", "commitment", "seat_seeds"):
        if name not in fair:
            return f"the fairness material has no {name!r}"
    for name, what in (
        ("server_seed", "the server seed published at the reveal"),
        ("commitment", "the SHA-256 published before the roll"),
    ):
        if not isinstance(fair[name], str):
            return f"{name!r} must be hex digits ({what}), not {kind(fair[name])}"
    seeds = fair["seat_seeds"]
    if not isinstance(seeds, list) or not all(
        isinstance(seed, str) and _SEED.fullmatch(seed) for seed in seeds
    ):
        shown = kind(seeds) if not isinstance(seeds, list) else "a list with other things"
        return f"'seat_seeds' must list each seat's seed in hex digits, not {shown}"
    if len(seeds) != len(dice):
        return f"'seat_seeds' has {counted(len(seeds), 'seed')} for {len(dice)} seats"
    return None
