"""The rules of a table: every common house rule as an option, and the well-known presets.

``Rules`` is a frozen value. Build it from a preset with overrides, or from the JSON object
that scenario files, the server and the browser use::

    >>> Rules.preset("perudo").ones_bids
    'halve'
    >>> Rules.from_json({"preset": "tavern", "starting_dice": 3}).starting_dice
    3

Every constructor validates; a bad option raises :class:`RulesError` naming the option and
the value. ``../shared/RULES.md`` (copied in ``docs/rules-spec.md``) is the specification.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from reprlib import repr as _shown  # a value quoted in an error message, cut short
from typing import Any, Literal

OnesBids = Literal["never", "halve", "lock", "plain"]
Calza = Literal["off", "in_turn", "any_time"]
FirstOpener = Literal["random", "rotate", "host", "rolloff"]
Bids = Literal["quantity", "poker"]
Format = Literal["elimination", "points"]

ONES_BIDS: tuple[OnesBids, ...] = ("never", "halve", "lock", "plain")
CALZA: tuple[Calza, ...] = ("off", "in_turn", "any_time")
FIRST_OPENER: tuple[FirstOpener, ...] = ("random", "rotate", "host", "rolloff")
BIDS: tuple[Bids, ...] = ("quantity", "poker")
FORMATS: tuple[Format, ...] = ("elimination", "points")

MIN_PLAYERS = 2
MAX_PLAYERS = 10
DEFAULT_PRESET = "perudo"


class RulesError(ValueError):
    """A rules object that cannot be built: the message names the option and the value."""


@dataclass(frozen=True, slots=True)
class Rules:
    """All options of RULES.md. Field defaults are the ones every preset shares."""

    starting_dice: int = 5
    wild_ones: bool = True
    ones_bids: OnesBids = "halve"
    cap_at_dice_in_play: bool = True
    calza: Calza = "off"
    calza_min_players: int = 2
    palifico: bool = False
    palifico_once_per_player: bool = False
    palifico_min_players: int = 2
    palifico_open_on_ones: bool = False
    palifico_one_die_may_change_face: bool = False
    loss_by_difference: bool = False
    first_opener: FirstOpener = "random"
    bids: Bids = "quantity"
    format: Format = "elimination"
    points_rounds: int = 10

    def __post_init__(self) -> None:
        _validate(self)

    # -- construction ---------------------------------------------------------------

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """The preset ``name`` with ``overrides`` on top (option names as keywords)."""
        return cls.from_json({"preset": name, **overrides})

    @classmethod
    def from_json(cls, data: object) -> Rules:
        """Build rules from ``{"preset": name, option: value, ...}``.

        ``preset`` defaults to ``perudo``. Unknown options, wrong types and values out of
        range raise :class:`RulesError`. Switching a preset with palifico to the points
        race turns palifico off (a points race has no palifico rounds); asking for both
        explicitly is an error.
        """
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a JSON object, not {_shown(data)}")
        options = dict(data)
        name = options.pop("preset", DEFAULT_PRESET)
        if not isinstance(name, str) or name not in PRESETS:
            raise RulesError(f"unknown preset {_shown(name)} (known: {', '.join(PRESETS)})")
        known = {field.name for field in fields(cls)}
        for option in options:
            if option not in known:
                raise RulesError(f"unknown option {_shown(option)}")
        for option, value in options.items():
            _check_type(option, value)
        base = PRESETS[name]
        if options.get("format") == "points" and "palifico" not in options:
            options["palifico"] = False
        try:
            return replace(base, **options)
        except TypeError as error:  # pragma: no cover - guarded by the checks above
            raise RulesError(str(error)) from None

    def with_options(self, **overrides: Any) -> Rules:
        """A copy with some options changed, validated and resolved like :meth:`from_json`
        (switching to a points race turns palifico off unless it is asked for)."""
        for option, value in overrides.items():
            if option not in {field.name for field in fields(self)}:
                raise RulesError(f"unknown option {_shown(option)}")
            _check_type(option, value)
        if overrides.get("format") == "points" and "palifico" not in overrides:
            overrides["palifico"] = False
        return replace(self, **overrides)

    def to_json(self) -> dict[str, Any]:
        """Every option by name; ``Rules.from_json(rules.to_json()) == rules``."""
        return {name: getattr(self, name) for name in _OPTION_NAMES}

    def to_overrides(self) -> dict[str, Any]:
        """The shortest JSON form: the closest preset and the options that differ from it."""
        best_name, best_diff = DEFAULT_PRESET, None
        for name, preset in PRESETS.items():
            diff = {
                field.name: getattr(self, field.name)
                for field in fields(self)
                if getattr(self, field.name) != getattr(preset, field.name)
            }
            if best_diff is None or len(diff) < len(best_diff):
                best_name, best_diff = name, diff
        return {"preset": best_name, **(best_diff or {})}

    # -- derived facts --------------------------------------------------------------

    @property
    def preset_name(self) -> str | None:
        """The name of the preset these rules equal exactly, if any."""
        for name, preset in PRESETS.items():
            if preset == self:
                return name
        return None


_OPTION_NAMES = tuple(field.name for field in fields(Rules))

_INT_RANGES = {
    "starting_dice": (1, 10),
    "calza_min_players": (MIN_PLAYERS, MAX_PLAYERS),
    "palifico_min_players": (MIN_PLAYERS, MAX_PLAYERS),
    "points_rounds": (1, 100),
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "ones_bids": ONES_BIDS,
    "calza": CALZA,
    "first_opener": FIRST_OPENER,
    "bids": BIDS,
    "format": FORMATS,
}


def _check_type(option: str, value: object) -> None:
    if option in _INT_RANGES:
        low, high = _INT_RANGES[option]
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(
                f"option {option!r} must be a whole number {low}..{high}, not {_shown(value)}"
            )
        if not low <= value <= high:
            raise RulesError(f"option {option!r} must be {low}..{high}, not {_shown(value)}")
    elif option in _CHOICES:
        if value not in _CHOICES[option]:
            choices = ", ".join(_CHOICES[option])
            raise RulesError(f"option {option!r} must be one of {choices}, not {_shown(value)}")
    elif not isinstance(value, bool):
        raise RulesError(f"option {option!r} must be true or false, not {_shown(value)}")


def _validate(rules: Rules) -> None:
    for field in fields(rules):
        _check_type(field.name, getattr(rules, field.name))
    if rules.ones_bids == "halve" and not rules.wild_ones:
        raise RulesError(
            "option 'ones_bids' cannot be 'halve' without wild ones "
            "(halving only makes sense when ones count for every face): with "
            "wild_ones=false also set ones_bids=plain (or ones_bids=never)"
        )
    if rules.format == "points" and rules.palifico:
        raise RulesError(
            "option 'palifico' must be false in a points race (nobody drops to one die there)"
        )
    if rules.bids == "poker":
        for option, wanted in _POKER_NEEDS:
            if getattr(rules, option) != wanted:
                raise RulesError(
                    f"option {option!r} must be {_spelled(wanted)} with 'bids' 'poker' "
                    f"(Common Hand), not {_spelled(getattr(rules, option))}"
                )


_POKER_NEEDS: tuple[tuple[str, object], ...] = (
    ("wild_ones", False),
    ("ones_bids", "plain"),
    ("calza", "off"),
    ("palifico", False),
    ("loss_by_difference", False),
)
"""What Common Hand requires (RULES.md): a hand has no quantity to halve, lose by, or call
exactly, and ones are an ordinary face."""


def _spelled(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


PRESETS: dict[str, Rules] = {
    "perudo": Rules(
        wild_ones=True,
        ones_bids="halve",
        calza="any_time",
        calza_min_players=3,
        palifico=True,
        palifico_once_per_player=True,
        palifico_min_players=3,
        palifico_open_on_ones=True,
        first_opener="random",
    ),
    "dudo": Rules(
        wild_ones=True,
        ones_bids="halve",
        calza="in_turn",
        calza_min_players=2,
        palifico=True,
        palifico_once_per_player=False,
        palifico_min_players=2,
        palifico_open_on_ones=True,
        palifico_one_die_may_change_face=True,
        first_opener="rolloff",
    ),
    "tavern": Rules(
        wild_ones=True,
        ones_bids="never",
        calza="off",
        palifico=False,
        first_opener="rotate",
    ),
    "ones-lock": Rules(
        wild_ones=True,
        ones_bids="lock",
        calza="off",
        palifico=False,
        first_opener="host",
    ),
    "no-wilds": Rules(
        wild_ones=False,
        ones_bids="plain",
        calza="off",
        palifico=False,
        first_opener="random",
    ),
    "common-hand": Rules(
        bids="poker",
        wild_ones=False,
        ones_bids="plain",
        calza="off",
        palifico=False,
        first_opener="random",
    ),
}
"""The named rule sets of RULES.md, in the order the documentation lists them."""


def parse_override(text: str) -> tuple[str, Any]:
    """Read ``option=value`` as typed on a command line (``calza=any_time``, ``wild_ones=no``).

    Values are read as JSON where possible (numbers, ``true``), with ``yes``/``no``/``on``/
    ``off`` accepted for the true-or-false options. ``preset`` is refused: it is not an
    option but the base the options change, so ``dudo rules perudo --set preset=dudo``
    would otherwise quietly print the dudo rules instead of perudo's.
    """
    option, sep, raw = text.partition("=")
    option = option.strip().replace("-", "_")
    if not sep or not option:
        raise RulesError(f"expected option=value, not {text!r}")
    if option.lower() == "preset":
        raise RulesError(
            f"{text.strip()!r}: the preset is not an option; name the preset "
            "itself (the PRESET of 'dudo rules PRESET', or --rules PRESET)"
        )
    raw = raw.strip()
    value: Any = raw
    lowered = raw.lower()
    if option in _INT_RANGES:
        # ASCII digits only: int() also reads "1_0", "+3" and other scripts' digits ("٣")
        digits = raw.removeprefix("-")
        if digits.isascii() and digits.isdigit() and len(digits) <= 20:
            value = int(raw)
    elif option not in _CHOICES:
        booleans = {
            "true": True,
            "yes": True,
            "on": True,
            "1": True,
            "false": False,
            "no": False,
            "off": False,
            "0": False,
        }
        value = booleans.get(lowered, raw)
    return option, value
