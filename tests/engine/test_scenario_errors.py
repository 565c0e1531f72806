"""Invalid scenario files: exit status 2, one line on standard error, nothing on standard out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dudo.game import Game
from dudo.printable import json_quoted
from dudo.rules import PRESETS, Rules
from dudo.scenario import (
    MAX_NESTING,
    ScenarioError,
    format_output,
    load_scenario,
    replay,
    run_scenario,
)

GOOD_ROUND = {
    "dice": [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]],
    "actions": [{"seat": 0, "bid": [2, 3]}, {"seat": 1, "call": "dudo"}],
}


ROLLOFF = {"preset": "tavern", "first_opener": "rolloff"}


def scenario(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {"rules": {"preset": "tavern"}, "players": 2, "rounds": [GOOD_ROUND]}
    data.update(changes)
    return data


INVALID = {
    "unknown preset": (scenario(rules={"preset": "casino"}), "unknown preset 'casino'"),
    "unknown option": (
        scenario(rules={"preset": "tavern", "jokers": True}),
        "unknown option 'jokers'",
    ),
    "bad option value": (scenario(rules={"starting_dice": 11}), "'starting_dice'"),
    "option of wrong type": (scenario(rules={"wild_ones": "yes"}), "'wild_ones'"),
    "halve without wild ones": (
        scenario(rules={"preset": "perudo", "wild_ones": False}),
        "'ones_bids'",
    ),
    "points with palifico": (
        scenario(rules={"preset": "perudo", "format": "points", "palifico": True}),
        "'palifico'",
    ),
    "too few players": (scenario(players=1), "players"),
    "too many players": (scenario(players=11), "players"),
    "dice do not match the counts": (
        scenario(rounds=[{"dice": [[1, 2, 3], [2, 3, 4, 5, 6]], "actions": []}]),
        "seat 0 has 5 dice, but 3 were given",
    ),
    "die out of range": (
        scenario(rounds=[{"dice": [[1, 2, 3, 4, 7], [2, 3, 4, 5, 6]], "actions": []}]),
        "7 is not a die face",
    ),
    "dice for the wrong number of seats": (
        scenario(rounds=[{"dice": [[1, 2, 3, 4, 5]], "actions": []}]),
        "dice for 1 seat, but the table has 2",
    ),
    "actions after the call": (
        scenario(
            rounds=[{**GOOD_ROUND, "actions": [*GOOD_ROUND["actions"], {"seat": 0, "bid": [3, 3]}]}]
        ),
        "already ended with a call",
    ),
    "a round without a call before another round": (
        scenario(rounds=[{**GOOD_ROUND, "actions": GOOD_ROUND["actions"][:1]}, GOOD_ROUND]),
        "no accepted call",
    ),
    "rounds after the game ended": (
        scenario(
            players=2,
            start={"dice_counts": [1, 1]},
            rounds=[
                {
                    "dice": [[2], [3]],
                    "actions": [{"seat": 0, "bid": [1, 2]}, {"seat": 1, "call": "dudo"}],
                },
                {"dice": [[2], []], "actions": []},
            ],
        ),
        "already over",
    ),
    "a call that is not dudo or calza": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 0, "call": "liar"}]}]),
        'not "liar"',
    ),
    "a call that is a list": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 0, "call": ["dudo"]}]}]),
        "a call is 'dudo' or 'calza', not [\"dudo\"]",
    ),
    "a bid that is not two numbers": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 0, "bid": ["4", 5]}]}]),
        "a bid is [quantity, face]",
    ),
    "a seat that does not exist": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 2, "bid": [4, 5]}]}]),
        "seat 2 is not a seat",
    ),
    "bid and call together": (
        scenario(rounds=[{**GOOD_ROUND, "actions": [{"seat": 0, "bid": [4, 5], "call": "dudo"}]}]),
        "exactly one of",
    ),
    "start counts above the starting dice": (
        scenario(start={"dice_counts": [6, 5]}),
        "outside 0..5",
    ),
    "opener who is out": (
        scenario(start={"dice_counts": [0, 5, 5], "opener": 0}, players=3),
        "opener 0 has no dice",
    ),
    "unknown start key": (scenario(start={"round": 3}), "unknown key 'round'"),
    "unknown top-level key": (scenario(seed=4), "unknown key 'seed'"),
    "missing rounds": ({"rules": {}, "players": 2}, "no 'rounds'"),
    # the roll-off (start.rolloff)
    "roll-off without first_opener rolloff": (
        scenario(start={"rolloff": [[[6, 6], [1, 1]]]}),
        "needs the rules' first_opener",
    ),
    "roll-off and an opener": (
        scenario(rules=ROLLOFF, start={"rolloff": [[[6, 6], [1, 1]]], "opener": 1}),
        "both 'opener' and 'rolloff'",
    ),
    "roll-off that leaves a tie": (
        scenario(rules=ROLLOFF, start={"rolloff": [[[3, 4], [2, 5]], [[6, 1], [2, 5]]]}),
        "leave seats [0, 1] tied",
    ),
    "roll-off die 7": (
        scenario(rules=ROLLOFF, start={"rolloff": [[[6, 7], [1, 1]]]}),
        "attempt 1: seat 0: [6, 7] is not two dice 1..6",
    ),
    "roll-off die 0": (
        scenario(rules=ROLLOFF, start={"rolloff": [[[3, 3], [0, 1]]]}),
        "seat 1: [0, 1] is not two dice",
    ),
    "roll-off die that is a string": (
        scenario(rules=ROLLOFF, start={"rolloff": [[[3, "3"], [2, 1]]]}),
        "is not two dice",
    ),
    "roll-off of three dice": (
        scenario(rules=ROLLOFF, start={"rolloff": [[[3, 3, 3], [2, 1]]]}),
        "is not two dice",
    ),
    "roll-off attempt with too few pairs": (
        scenario(rules=ROLLOFF, start={"rolloff": [[[6, 6]]]}),
        "2 pairs of dice are needed",
    ),
    "roll-off retry by everyone, not only the tied": (
        scenario(
            rules=ROLLOFF,
            players=3,
            rounds=[{"dice": [[1, 2, 3, 4, 5]] * 3, "actions": []}],
            start={"rolloff": [[[6, 6], [6, 6], [1, 1]], [[1, 2], [3, 4], [5, 6]]]},
        ),
        "attempt 2: seats [0, 1] roll, so 2 pairs",
    ),
    "roll-off attempt after the tie is broken": (
        scenario(rules=ROLLOFF, start={"rolloff": [[[6, 6], [1, 1]], [[2, 2], [3, 3]]]}),
        "attempt 2: the roll-off is over: seat 0 opens",
    ),
    "roll-off with a seat that is out": (
        scenario(
            rules=ROLLOFF,
            players=3,
            start={"dice_counts": [5, 0, 5], "rolloff": [[[6, 6], [1, 1], [2, 2]]]},
            rounds=[{"dice": [[1, 2, 3, 4, 5], [], [1, 2, 3, 4, 5]], "actions": []}],
        ),
        "seats [0, 2] roll, so 2 pairs",
    ),
    "roll-off that is not a list": (
        scenario(rules=ROLLOFF, start={"rolloff": {"0": [6, 6]}}),
        "start.rolloff must be a non-empty list",
    ),
    "roll-off with no attempts": (
        scenario(rules=ROLLOFF, start={"rolloff": []}),
        "start.rolloff must be a non-empty list",
    ),
    "roll-off attempt that is not a list": (
        scenario(rules=ROLLOFF, start={"rolloff": [7]}),
        "pairs of dice are needed",
    ),
    # Common Hand's rules
    "poker with wild ones": (
        scenario(rules={"preset": "common-hand", "wild_ones": True}),
        "'wild_ones' must be false with 'bids' 'poker'",
    ),
    "poker with ones never": (
        scenario(rules={"preset": "common-hand", "ones_bids": "never"}),
        "'ones_bids' must be 'plain'",
    ),
    "poker with calza": (
        scenario(rules={"preset": "common-hand", "calza": "in_turn"}),
        "'calza' must be 'off'",
    ),
    "poker with palifico": (
        scenario(rules={"preset": "common-hand", "palifico": True}),
        "'palifico' must be false",
    ),
    "poker with loss by difference": (
        scenario(rules={"preset": "common-hand", "loss_by_difference": True}),
        "'loss_by_difference' must be false",
    ),
    "bids unknown": (scenario(rules={"bids": "cards"}), "'bids' must be one of quantity, poker"),
    "a bid that is a string": (
        scenario(
            rules={"preset": "common-hand"},
            rounds=[{**GOOD_ROUND, "actions": [{"seat": 0, "bid": "pair of 3s"}]}],
        ),
        "or a hand object",
    ),
}


@pytest.mark.parametrize("name", INVALID)
def test_invalid_scenario_is_rejected_with_a_clear_message(name: str) -> None:
    data, fragment = INVALID[name]
    with pytest.raises(ScenarioError) as error:
        run_scenario(data)
    assert fragment in str(error.value)
    assert "\n" not in str(error.value)


def action(**fields: object) -> dict[str, object]:
    """The good scenario with one action in its round: ``fields``."""
    return scenario(rounds=[{**GOOD_ROUND, "actions": [fields]}])


# A value the file gave is quoted as the file spells it (JSON), not as Python prints it.
QUOTED = {
    "players as a string": (scenario(players="2"), 'a whole number 2..10, not "2"'),
    "a bid of strings": (action(seat=0, bid=["2", "3"]), 'hand object, not ["2", "3"]'),
    "a bid of null": (action(seat=0, bid=None), "hand object, not null"),
    "a bid of a float": (action(seat=0, bid=[2.0, 3]), "hand object, not [2.0, 3]"),
    "a seat that is false": (action(seat=False, bid=[2, 3]), "seat false is not a seat"),
    "a call of null": (action(seat=0, call=None), "a call is 'dudo' or 'calza', not null"),
    "a mover that is not known": (action(seat=0, bid=[2, 3], by="bot"), 'not "bot"'),
    "a die that is a string": (
        scenario(rounds=[{**GOOD_ROUND, "dice": [["1", 2, 3, 4, 5], [2, 3, 4, 5, 6]]}]),
        'seat 0: "1" is not a die face 1..6',
    ),
    "palifico_used with true": (
        scenario(start={"palifico_used": [True]}),
        "palifico_used: true is not a seat",
    ),
    "roll-off dice that are strings": (
        scenario(rules=ROLLOFF, start={"rolloff": [[["6", 6], [2, 1]]]}),
        'seat 0: ["6", 6] is not two dice 1..6',
    ),
}


@pytest.mark.parametrize("name", QUOTED)
def test_a_value_is_quoted_as_json(name: str) -> None:
    data, fragment = QUOTED[name]
    with pytest.raises(ScenarioError) as error:
        run_scenario(data)
    assert fragment in str(error.value)


@pytest.mark.parametrize(
    ("count", "quoted"), [(5.0, "5.0"), (True, "true"), ("5", '"5"'), (None, "null")]
)
def test_a_dice_count_that_is_no_whole_number_is_named_so(count: object, quoted: str) -> None:
    # not "outside 0..5": 5.0 would be inside, and a bool is an int only to Python
    with pytest.raises(ScenarioError) as error:
        run_scenario(scenario(start={"dice_counts": [count, 5]}))
    assert str(error.value) == f"start: seat 0: dice count {quoted} is not a whole number"


def dice(*cups: list[int]) -> list[dict[str, object]]:
    """One round of these cups, with no actions."""
    return [{"dice": list(cups), "actions": []}]


# Counts of one take the singular.
ONE = {
    "dice_counts of one entry": (
        scenario(start={"dice_counts": [5]}),
        "start: dice_counts has 1 entry for 2 players",
    ),
    "points of one entry": (
        scenario(rules={"format": "points"}, start={"points": [0]}),
        "start: points has 1 entry for 2 players",
    ),
    "one die given": (
        scenario(rounds=dice([1], [2, 3, 4, 5, 6])),
        "round 1: dice: seat 0 has 5 dice, but 1 was given: [1]",
    ),
    "one die given to a seat that is out": (
        scenario(players=3, start={"dice_counts": [5, 5, 0]}, rounds=dice([1] * 5, [2] * 5, [1])),
        "round 1: dice: seat 2 has 0 dice, but 1 was given: [1]",
    ),
    "a seat of one die": (
        scenario(start={"dice_counts": [1, 5]}, rounds=dice([1, 2], [2] * 5)),
        "round 1: dice: seat 0 has 1 die, but 2 were given: [1, 2]",
    ),
}


@pytest.mark.parametrize("name", ONE)
def test_a_count_of_one_is_singular(name: str) -> None:
    data, message = ONE[name]
    with pytest.raises(ScenarioError) as error:
        run_scenario(data)
    assert str(error.value) == message


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(
    ("opener", "quoted"), [(None, "null"), (True, "true"), (0.0, "0.0"), ("0", '"0"'), (2, "2")]
)
def test_start_opener_must_be_a_seat_under_every_preset(
    preset: str, opener: object, quoted: str
) -> None:
    # null was "no opener": a roll-off with no dice written down (a traceback, exit 1) in
    # the dudo preset, and in the others whatever first_opener picks, in silence
    data = scenario(rules={"preset": preset}, start={"opener": opener})
    with pytest.raises(ScenarioError) as error:
        run_scenario(data)
    assert str(error.value) == f"start.opener must be a seat 0..1, not {quoted}"


def test_a_null_opener_in_the_dudo_preset_is_one_line_on_the_command_line() -> None:
    text = '{"rules":{"preset":"dudo"},"players":2,"start":{"opener":null},"rounds":[]}'
    assert_one_line_error(run_cli("scenario", "-", stdin=text), "start.opener must be a seat")


def test_seat_0_out_with_no_opener_given_is_named_as_the_default_opener() -> None:
    data = scenario(players=3, start={"dice_counts": [0, 2, 2]})
    with pytest.raises(ScenarioError) as error:
        run_scenario(data)
    assert str(error.value) == (
        "start: seat 0, the opener when start.opener is not given, has no dice: give start.opener"
    )
    # the file's other mistakes come first, as they would with an opener given
    with pytest.raises(ScenarioError, match="at least two players must have dice"):
        run_scenario(scenario(start={"dice_counts": [0, 2]}))


UNKNOWN_KEYS = {
    "an action's comment": (
        action(seat=0, bid=[2, 3], comment="x"),
        "round 1, action 1: unknown key 'comment' in an action",
    ),
    "an action's misspelled seat": (
        action(Seat=0, bid=[2, 3]),
        "round 1, action 1: unknown key 'Seat' in an action",
    ),
    "a round's note": (
        scenario(rounds=[{**GOOD_ROUND, "note": "x"}]),
        "round 1: unknown key 'note' in the round",
    ),
    # what the keys are not is still said as before
    "an action with neither bid nor call": (
        action(seat=0),
        "round 1, action 1: an action has exactly one of 'bid' or 'call'",
    ),
    "a round that is not an object": (
        scenario(rounds=[[]]),
        "round 1: a round is an object with 'dice' and 'actions'",
    ),
}


@pytest.mark.parametrize("name", UNKNOWN_KEYS)
def test_an_unknown_key_in_a_round_or_an_action_is_named(name: str) -> None:
    data, message = UNKNOWN_KEYS[name]
    with pytest.raises(ScenarioError) as error:
        run_scenario(data)
    assert str(error.value) == message


def test_the_game_quotes_values_as_the_scenario_does() -> None:
    # Python callers of Game get the same message as a scenario's start does
    with pytest.raises(ValueError, match="palifico_used: true is not a seat"):
        Game(Rules(), 2, palifico_used=[True])


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        (None, "null"),
        (True, "true"),
        ({"a": [1, None, "b"]}, '{"a": [1, null, "b"]}'),
        ((1, 2), "(1, 2)"),  # not JSON (a Python caller's): as Python shows it
        (float("nan"), "NaN"),  # as Python's JSON module reads and writes it
        ("W\u00fcrfel", '"W\u00fcrfel"'),
        ("a\u202eb", '"a\\u202eb"'),  # a bidi override would garble the line: escaped
        ("x" * 100, '"' + "x" * 12 + "..." + "x" * 13 + '"'),  # cut in the middle
        (list(range(10)), "[0, 1, 2, 3, 4, 5, ...]"),
        ({1, 2}, "{1, 2}"),
    ],
)
def test_json_quoted(value: object, quoted: str) -> None:
    assert json_quoted(value) == quoted


def test_bad_json_is_rejected() -> None:
    with pytest.raises(ScenarioError, match="not valid JSON"):
        load_scenario('{"rules": ')
    with pytest.raises(ScenarioError, match="JSON object"):
        load_scenario("[1, 2]")


@pytest.mark.parametrize(
    "name",
    [
        "dice do not match the counts",
        "unknown preset",
        "roll-off die 7",
        "roll-off that leaves a tie",
        "poker with wild ones",
    ],
)
def test_cli_exits_2_with_one_line_and_no_output(name: str) -> None:
    data, fragment = INVALID[name]
    result = subprocess.run(
        [sys.executable, "-m", "dudo", "scenario", "-"],
        input=json.dumps(data),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert fragment in result.stderr


def test_cli_names_a_missing_file() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dudo", "scenario", "/nonexistent.json"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "/nonexistent.json" in result.stderr


# -- files that once escaped as tracebacks, and files as editors save them -------------------

GOOD_TEXT = json.dumps(scenario())


def with_players(literal: str) -> str:
    """The good scenario's text with ``literal`` where the number of players goes."""
    return GOOD_TEXT.replace('"players": 2', f'"players": {literal}')


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def run_cli(*args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([sys.executable, "-m", "dudo", *args], input=data, capture_output=True)


def assert_one_line_error(result: subprocess.CompletedProcess[bytes], fragment: str) -> None:
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert result.stdout == b""
    assert len(stderr.splitlines()) == 1 and stderr.startswith("dudo: error: "), stderr
    assert fragment in stderr
    assert len(stderr) < 200, "the message quotes the value instead of describing it"


UNREADABLE = {
    "nested 5,000 deep inside about": (
        GOOD_TEXT.replace('{"rules"', f'{{"about": {nested(5000)}, "rules"'),
        "nested",
    ),
    "nested 1,000 deep": (with_players(nested(1000)), "nested"),
    "nested 990 deep (parses, then trips anything that prints it)": (
        with_players(nested(990)),
        "nested",
    ),
    "nested 101 deep": (with_players(nested(101)), "more than 100 levels"),
    "an integer literal of 5,000 digits": (with_players("7" * 5000), "digits"),
    "an integer of 4,300 digits where players go": (with_players("7" * 4300), "players must be"),
    "an integer of 4,300 digits in the rules": (
        GOOD_TEXT.replace('"preset": "tavern"', f'"starting_dice": {"7" * 4300}'),
        "'starting_dice'",
    ),
}


@pytest.mark.parametrize("name", UNREADABLE)
def test_unreadable_files_exit_2_with_one_short_line(name: str) -> None:
    text, fragment = UNREADABLE[name]
    with pytest.raises(ScenarioError) as error:
        run_scenario(load_scenario(text))
    assert fragment in str(error.value)
    assert_one_line_error(run_cli("scenario", "-", stdin=text), fragment)


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ('"players": 2', '"players": 2, "players": 3', "players"),
        ('"preset": "tavern"', '"starting_dice": 5, "starting_dice": 3', "starting_dice"),
        ('"call": "dudo"', '"call": "dudo", "call": "calza"', "call"),
    ],
)
def test_a_key_given_twice_in_one_object_is_refused(old: str, new: str, key: str) -> None:
    # JSON does not say which one counts; Python kept the last, in silence
    text = GOOD_TEXT.replace(old, new)
    message = f"the key '{key}' is given twice in one object"
    with pytest.raises(ScenarioError) as error:
        load_scenario(text)
    assert str(error.value) == message
    assert_one_line_error(run_cli("scenario", "-", stdin=text), message)


def test_verify_refuses_a_key_given_twice_too() -> None:
    text = GOOD_TEXT.replace('"players": 2', '"players": 2, "players": 3')
    assert_one_line_error(run_cli("verify", "-", stdin=text), "'players' is given twice")


def test_nesting_up_to_the_limit_is_fine_inside_about() -> None:
    # the scenario object is the first level, so about may nest one level less
    text = GOOD_TEXT.replace('{"rules"', f'{{"about": {nested(MAX_NESTING - 1)}, "rules"')
    assert run_scenario(load_scenario(text)) == run_scenario(scenario())


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    expected = format_output(run_scenario(scenario()))
    assert format_output(run_scenario(load_scenario("\ufeff" + GOOD_TEXT))) == expected
    path = tmp_path / "notepad.json"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD_TEXT.encode())
    for result in (
        run_cli("scenario", str(path)),
        run_cli("scenario", "-", stdin=path.read_bytes()),
    ):
        assert result.returncode == 0, result.stderr
        assert result.stdout.decode() == expected


def test_a_file_that_is_not_utf8_is_named_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(GOOD_TEXT.replace("tavern", "tav\xe9rn").encode("latin-1"))
    assert_one_line_error(run_cli("scenario", str(path)), "not UTF-8")


@pytest.mark.parametrize(
    "name", ["nested 5,000 deep inside about", "an integer literal of 5,000 digits"]
)
def test_verify_reads_a_record_the_same_way(name: str, tmp_path: Path) -> None:
    text, fragment = UNREADABLE[name]
    path = tmp_path / "record.json"
    path.write_text(text)
    assert_one_line_error(run_cli("verify", str(path)), fragment)


def test_verify_skips_a_byte_order_mark() -> None:
    # "{}" is no game record (exit 2), but it was read: no complaint about its JSON
    result = run_cli("verify", "-", stdin=b"\xef\xbb\xbf{}")
    assert result.returncode == 2, result.stderr
    assert b"JSON" not in result.stderr
    assert b"not a game record" in result.stderr


# Any JSON value at any place of a good file: output or a ScenarioError, never a crash.
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=6)
    | st.sampled_from(["dudo", "calza", "tavern", "never"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["seat", "bid", "call", "dice", "actions", "preset", "x"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=12,
)
PLACES = [
    ("rules",),
    ("players",),
    ("start",),
    ("rounds",),
    ("start", "dice_counts"),
    ("start", "opener"),
    ("start", "points"),
    ("start", "palifico_used"),
    ("rounds", 0),
    ("rounds", 0, "dice"),
    ("rounds", 0, "dice", 0),
    ("rounds", 0, "actions"),
    ("rounds", 0, "actions", 0),
    ("rounds", 0, "actions", 0, "seat"),
    ("rounds", 0, "actions", 0, "bid"),
    ("rounds", 0, "actions", 1, "call"),
    ("rules", "starting_dice"),
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PLACES), JSON_VALUES)
def test_any_value_anywhere_is_output_or_one_scenario_error(
    place: tuple[str | int, ...], value: object
) -> None:
    data: Any = json.loads(GOOD_TEXT)
    data.setdefault("start", {})
    node = data
    for key in place[:-1]:
        node = node[key]
    node[place[-1]] = value
    try:
        json.dumps(run_scenario(load_scenario(json.dumps(data))))
    except ScenarioError as error:
        assert "\n" not in str(error)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ('{"rules": {}}', "not str (load_scenario(text) parses a file's text)"),
        (b"{}", "not bytes (load_scenario(text) parses a file's text)"),
        (None, "not NoneType"),
        ([GOOD_ROUND], "not list"),
    ],
)
def test_a_program_passing_something_else_than_an_object_is_told_so(
    data: Any, message: str
) -> None:
    for call in (run_scenario, replay):
        with pytest.raises(ScenarioError) as caught:
            call(data)
        assert str(caught.value) == f"a scenario must be a JSON object (a dict), {message}"
