"""Rules: the presets of RULES.md, JSON round trips, validation and command-line overrides."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given

from dudo.rules import PRESETS, Rules, RulesError, parse_override
from randomplay import valid_rules

SHARED_DEFAULTS: dict[str, Any] = {
    "starting_dice": 5,
    "cap_at_dice_in_play": True,
    "loss_by_difference": False,
    "format": "elimination",
    "points_rounds": 10,
    "calza_min_players": 2,
    "palifico_min_players": 2,
    "bids": "quantity",
}
# Options a preset's row does not mention are at the dataclass defaults.
UNMENTIONED: dict[str, Any] = {
    "calza": "off",
    "palifico": False,
    "palifico_once_per_player": False,
    "palifico_open_on_ones": False,
    "palifico_one_die_may_change_face": False,
}

# RULES.md's preset table, option by option.
PRESET_TABLE: dict[str, dict[str, Any]] = {
    "perudo": {
        "wild_ones": True,
        "ones_bids": "halve",
        "calza": "any_time",
        "calza_min_players": 3,
        "palifico": True,
        "palifico_once_per_player": True,
        "palifico_min_players": 3,
        "palifico_open_on_ones": True,
        "first_opener": "random",
    },
    "dudo": {
        "wild_ones": True,
        "ones_bids": "halve",
        "calza": "in_turn",
        "calza_min_players": 2,
        "palifico": True,
        "palifico_once_per_player": False,
        "palifico_min_players": 2,
        "palifico_open_on_ones": True,
        "palifico_one_die_may_change_face": True,
        "first_opener": "rolloff",
    },
    "tavern": {
        "wild_ones": True,
        "ones_bids": "never",
        "calza": "off",
        "palifico": False,
        "first_opener": "rotate",
    },
    "ones-lock": {
        "wild_ones": True,
        "ones_bids": "lock",
        "calza": "off",
        "palifico": False,
        "first_opener": "host",
    },
    "no-wilds": {
        "wild_ones": False,
        "ones_bids": "plain",
        "calza": "off",
        "palifico": False,
        "first_opener": "random",
    },
    "common-hand": {
        "bids": "poker",
        "wild_ones": False,
        "ones_bids": "plain",
        "calza": "off",
        "palifico": False,
        "first_opener": "random",
    },
}


def test_the_presets_are_rules_md_s_six_in_its_order() -> None:
    assert list(PRESETS) == ["perudo", "dudo", "tavern", "ones-lock", "no-wilds", "common-hand"]


@pytest.mark.parametrize("name", list(PRESET_TABLE))
def test_preset_matches_the_table(name: str) -> None:
    expected = {**SHARED_DEFAULTS, **UNMENTIONED, **PRESET_TABLE[name]}
    rules = Rules.preset(name)
    assert rules.to_json() == expected
    assert rules == PRESETS[name]
    assert rules.preset_name == name
    assert rules.to_overrides() == {"preset": name}


def test_default_preset_is_perudo_and_overrides_apply_on_top() -> None:
    assert Rules.from_json({}) == PRESETS["perudo"]
    rules = Rules.from_json({"preset": "tavern", "starting_dice": 3})
    assert rules.starting_dice == 3
    assert rules.ones_bids == "never"
    assert rules.preset_name is None
    assert Rules.preset("tavern", starting_dice=3) == rules


def test_points_race_on_a_palifico_preset_turns_palifico_off() -> None:
    rules = Rules.from_json({"preset": "perudo", "format": "points"})
    assert rules.format == "points"
    assert rules.palifico is False


@given(valid_rules())
def test_to_json_round_trips(rules: Rules) -> None:
    data = rules.to_json()
    assert Rules.from_json(data) == rules
    assert Rules.from_json(json.loads(json.dumps(data))) == rules


@given(valid_rules())
def test_to_overrides_round_trips_and_is_no_longer_than_needed(rules: Rules) -> None:
    overrides = rules.to_overrides()
    assert Rules.from_json(overrides) == rules
    assert Rules.from_json(json.loads(json.dumps(overrides))) == rules
    assert overrides["preset"] in PRESETS
    base = PRESETS[overrides["preset"]]
    for option, value in overrides.items():
        if option != "preset":
            assert getattr(base, option) != value, option
    # no preset needs fewer overrides
    fewest = min(
        sum(1 for option, value in rules.to_json().items() if getattr(preset, option) != value)
        for preset in PRESETS.values()
    )
    assert len(overrides) - 1 == fewest


@given(valid_rules())
def test_presets_plus_overrides_equal_with_options(rules: Rules) -> None:
    overrides = rules.to_overrides()
    base = PRESETS[overrides.pop("preset")]
    assert base.with_options(**overrides) == rules


# (rules JSON, words the error must contain: the option and the value)
INVALID: dict[str, tuple[object, tuple[str, ...]]] = {
    "unknown option": ({"jokers": True}, ("'jokers'",)),
    "unknown option on a preset": ({"preset": "tavern", "Wild_ones": True}, ("'Wild_ones'",)),
    "unknown preset": ({"preset": "casino"}, ("preset", "'casino'")),
    "preset not a string": ({"preset": 3}, ("preset", "3")),
    "not an object": (["perudo"], ("rules", "['perudo']")),
    "int as string": ({"starting_dice": "5"}, ("'starting_dice'", "'5'")),
    "int as float": ({"starting_dice": 5.0}, ("'starting_dice'", "5.0")),
    "int too small": ({"starting_dice": 0}, ("'starting_dice'", "0")),
    "int too large": ({"starting_dice": 11}, ("'starting_dice'", "11")),
    "bool as int": ({"starting_dice": True}, ("'starting_dice'", "True")),
    "bool as int (false)": ({"points_rounds": False}, ("'points_rounds'", "False")),
    "calza_min_players 1": ({"calza_min_players": 1}, ("'calza_min_players'", "1")),
    "palifico_min_players 11": ({"palifico_min_players": 11}, ("'palifico_min_players'", "11")),
    "points_rounds 0": ({"points_rounds": 0}, ("'points_rounds'", "0")),
    "points_rounds 101": ({"points_rounds": 101}, ("'points_rounds'", "101")),
    "bool as string": ({"wild_ones": "yes"}, ("'wild_ones'", "'yes'")),
    "bool as int 1": ({"wild_ones": 1}, ("'wild_ones'", "1")),
    "bool as null": ({"palifico": None}, ("'palifico'", "None")),
    "choice unknown": ({"ones_bids": "double"}, ("'ones_bids'", "'double'")),
    "choice as bool": ({"calza": True}, ("'calza'", "True")),
    "first_opener unknown": ({"first_opener": "dealer"}, ("'first_opener'", "'dealer'")),
    "bids unknown": ({"bids": "dominoes"}, ("'bids'", "'dominoes'")),
    "poker with wild ones": (
        {"preset": "common-hand", "wild_ones": True},
        ("'wild_ones'", "false", "poker"),
    ),
    "poker on perudo (wild ones first)": (
        {"preset": "perudo", "bids": "poker"},
        ("'wild_ones'", "poker"),
    ),
    "poker with halve": (
        {"preset": "common-hand", "ones_bids": "never"},
        ("'ones_bids'", "'plain'", "'never'"),
    ),
    "poker with calza": (
        {"preset": "common-hand", "calza": "in_turn"},
        ("'calza'", "'off'", "'in_turn'"),
    ),
    "poker with calza any time": (
        {"preset": "common-hand", "calza": "any_time"},
        ("'calza'", "'any_time'"),
    ),
    "poker with palifico": (
        {"preset": "common-hand", "palifico": True},
        ("'palifico'", "false", "poker"),
    ),
    "poker with loss by difference": (
        {"preset": "common-hand", "loss_by_difference": True},
        ("'loss_by_difference'", "false", "poker"),
    ),
    "poker on no-wilds with lock": (
        {"preset": "no-wilds", "bids": "poker", "ones_bids": "lock"},
        ("'ones_bids'", "'lock'"),
    ),
    "format unknown": ({"format": "sprint"}, ("'format'", "'sprint'")),
    "halve without wild ones": (
        {"preset": "perudo", "wild_ones": False},
        ("'ones_bids'", "'halve'", "wild", "also set ones_bids=plain"),
    ),
    "halve on a no-wilds table": (
        {"preset": "no-wilds", "ones_bids": "halve"},
        ("'ones_bids'", "'halve'"),
    ),
    "points with palifico explicitly": (
        {"preset": "perudo", "format": "points", "palifico": True},
        ("'palifico'", "points"),
    ),
    "points with palifico on a table without": (
        {"preset": "tavern", "format": "points", "palifico": True},
        ("'palifico'", "points"),
    ),
}


@pytest.mark.parametrize(("data", "words"), list(INVALID.values()), ids=list(INVALID))
def test_invalid_rules_name_the_option_and_the_value(data: object, words: tuple[str, ...]) -> None:
    with pytest.raises(RulesError) as caught:
        Rules.from_json(data)
    assert isinstance(caught.value, ValueError)
    for word in words:
        assert word in str(caught.value)


def test_constructor_and_with_options_validate_too() -> None:
    with pytest.raises(RulesError, match="'starting_dice'"):
        Rules(starting_dice=True)
    with pytest.raises(RulesError, match="'ones_bids'"):
        Rules(wild_ones=False, ones_bids="halve")
    with pytest.raises(RulesError, match="'jokers'"):
        PRESETS["tavern"].with_options(jokers=True)
    with pytest.raises(RulesError, match="'wild_ones'"):
        PRESETS["tavern"].with_options(wild_ones="no")
    assert PRESETS["tavern"].with_options(starting_dice=3).starting_dice == 3
    assert PRESETS["tavern"].starting_dice == 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("calza=any_time", ("calza", "any_time")),
        ("calza=off", ("calza", "off")),
        ("wild_ones=no", ("wild_ones", False)),
        ("wild_ones=yes", ("wild_ones", True)),
        ("wild-ones = true", ("wild_ones", True)),
        ("cap_at_dice_in_play=off", ("cap_at_dice_in_play", False)),
        ("starting_dice=3", ("starting_dice", 3)),
        ("starting-dice=3", ("starting_dice", 3)),
        ("ones_bids=lock", ("ones_bids", "lock")),
    ],
)
def test_parse_override(text: str, expected: tuple[str, object]) -> None:
    assert parse_override(text) == expected
    option, value = parse_override(text)
    assert getattr(Rules.preset("tavern", **{option: value}), option) == value


@pytest.mark.parametrize("text", ["calza", "=3", "", "   =yes"])
def test_parse_override_needs_option_equals_value(text: str) -> None:
    with pytest.raises(RulesError):
        parse_override(text)


@pytest.mark.parametrize("text", ["preset=dudo", " preset = tavern", "PRESET=dudo"])
def test_parse_override_refuses_the_preset(text: str) -> None:
    # the preset is the base that option=value changes, not one of its options; taking it
    # here made 'dudo rules perudo --set preset=dudo' print the dudo rules
    with pytest.raises(RulesError, match="the preset is not an option"):
        parse_override(text)


def test_rules_errors_quote_long_values_briefly() -> None:
    with pytest.raises(RulesError) as error:
        Rules.preset("perudo", starting_dice=10**4000)
    assert "'starting_dice'" in str(error.value) and len(str(error.value)) < 120


@pytest.mark.parametrize(
    ("text", "option"),
    [
        ("starting_dice=three", "starting_dice"),
        ("starting_dice=1_0", "starting_dice"),  # int() reads these; a person means no number
        ("starting_dice=\u0663", "starting_dice"),  # ARABIC-INDIC DIGIT THREE
        ("starting_dice=\uff13", "starting_dice"),  # FULLWIDTH DIGIT THREE
        ("starting_dice=+3", "starting_dice"),
        ("wild_ones=maybe", "wild_ones"),
        ("calza=sometimes", "calza"),
        ("jokers=1", "jokers"),
    ],
)
def test_bad_override_values_are_refused_by_the_rules(text: str, option: str) -> None:
    name, value = parse_override(text)
    with pytest.raises(RulesError, match=repr(option)):
        Rules.preset("perudo", **{name: value})
