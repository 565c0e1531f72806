"""Scenario files: scripted games with fixed dice that settle rules disputes.

The format is RULES.md's (``docs/rules-spec.md``). :func:`run_scenario` checks a whole file
before it produces anything, so an invalid file gives one :class:`ScenarioError` and no
partial output; illegal actions inside a valid file are ordinary output (``illegal``
events). A game's :meth:`~dudo.game.Game.record` is a scenario too, and :func:`replay`
rebuilds the game from it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from reprlib import repr as _name  # a key quoted in an error message, cut short
from typing import Any

from dudo.bids import Bid
from dudo.dice import DiceSource, ScriptedDice
from dudo.game import CALZA, DUDO, Action, Call, Game, IllegalAction, Phase, check_cups
from dudo.hands import Hand
from dudo.printable import json_quoted as _shown  # a value quoted in an error message
from dudo.rolloff import RollOff, RollOffError
from dudo.rules import MAX_PLAYERS, MIN_PLAYERS, Rules, RulesError

_TOP_KEYS = {"about", "rules", "players", "start", "rounds"}
# A finished game's record (GET /api/games/ID, or saved by dudo play) is a scenario with
# more to say: these keys are accepted and ignored, so the downloaded record replays as it
# is (``rolloff_fairness``: a game whose first opener was rolled off, the dudo preset).
_RECORD_KEYS = {"game_id", "room", "names", "bots", "fairness", "rolloff_fairness", "reveals"}
_START_KEYS = {"dice_counts", "opener", "points", "palifico_used", "rolloff"}
_CALLS: dict[object, Call] = {"dudo": DUDO, "calza": CALZA}


MAX_NESTING = 100
"""The deepest nesting of arrays and objects a file may have (a scenario needs six levels).

Python's JSON parser gives up somewhere near a thousand levels with a ``RecursionError``,
and anything that prints a value nested nearly that deep (an error message naming it) can
fail the same way further on; a fixed, lower limit makes every such file one clear error.
"""

_BYTE_ORDER_MARK = "\ufeff"


class ScenarioError(ValueError):
    """The file is not a valid scenario; the message says where and why, in one line."""


def load_json(text: str) -> Any:
    """Parse JSON text as people save it, or raise :class:`ScenarioError` in one line.

    A leading UTF-8 byte-order mark (Notepad writes one) is skipped. A key given twice in
    one object is refused: JSON does not say which one counts and Python keeps the last, so
    ``"starting_dice": 5, "starting_dice": 3`` would quietly be a game of 3 dice. Nesting
    deeper than :data:`MAX_NESTING` and integer literals too long for Python to read (more
    than ``sys.get_int_max_str_digits()`` digits) are refused like any other bad JSON,
    instead of escaping as a ``RecursionError`` or a ``ValueError`` about Python's own
    limits.
    """
    try:
        data = json.loads(text.removeprefix(_BYTE_ORDER_MARK), object_pairs_hook=_object)
    except json.JSONDecodeError as error:
        raise ScenarioError(f"not valid JSON: {error}") from None
    except ScenarioError:  # a key given twice (a ValueError too: not the one below)
        raise
    except RecursionError:
        raise ScenarioError(f"JSON nested more than {MAX_NESTING} levels deep") from None
    except ValueError:  # only the integer-length limit: every syntax error is a JSONDecodeError
        raise ScenarioError(
            f"a number has more than {sys.get_int_max_str_digits()} digits"
        ) from None
    if _nesting_exceeds(data, MAX_NESTING):
        raise ScenarioError(f"JSON nested more than {MAX_NESTING} levels deep")
    return data


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, with each key once."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise ScenarioError(f"the key {_name(key)} is given twice in one object")
        data[key] = value
    return data


def _nesting_exceeds(data: object, limit: int) -> bool:
    """Whether arrays and objects in ``data`` nest more than ``limit`` deep (no recursion)."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def load_scenario(text: str) -> dict[str, Any]:
    """Parse the JSON text of a scenario (no checks beyond being a JSON object)."""
    data = load_json(text)
    if not isinstance(data, dict):
        raise ScenarioError("a scenario must be a JSON object")
    return data


def run_scenario(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Play a scenario and return its output events (RULES.md's lines) in order."""
    return _play(data, strict=False)[1]


def replay(record: Mapping[str, Any]) -> Game:
    """Rebuild a game from its record; any refused action in it is a :class:`ScenarioError`."""
    return _play(record, strict=True)[0]


def accepted_actions(data: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A scenario with its refused actions left out, and a line saying what each one was.

    What the engine refuses changes nothing, so the game the scenario plays is the game of
    its accepted actions alone: that is what :func:`replay` (and the analysis) can take.
    Any other problem is the :class:`ScenarioError` that :func:`run_scenario` gives.
    """
    game, output = _play(data, strict=False)
    kept = {key: value for key, value in data.items() if key not in ("start", "rounds")}
    kept.update(game.record())
    _keep_marks(data.get("rounds", []), kept["rounds"])
    refused = []
    number = 1
    for event in output:
        if event["event"] == "reveal":
            number += 1
        elif event["event"] == "illegal":
            action = event["action"]
            what = (
                f"call {action['call']}" if "call" in action else f"bid {_bid_words(action['bid'])}"
            )
            refused.append(
                f"round {number}: seat {event['seat']} cannot {what} ({event['reason']})"
            )
    return kept, refused


def _bid_words(bid: object) -> str:
    """A refused bid as the file gave it, in words where it names a bid or a hand."""
    if isinstance(bid, dict):
        hand = Hand.from_json_lenient(bid)
        return hand.words() if hand.is_valid else json.dumps(bid)
    if isinstance(bid, list) and len(bid) == 2 and all(type(number) is int for number in bid):
        return Bid(bid[0], bid[1]).words()
    return json.dumps(bid)


def _keep_marks(given: list[Any], accepted: list[dict[str, Any]]) -> None:
    """Carry each accepted action's "by" over from the file's own actions (the accepted
    ones are the file's in order, less the refused)."""
    for raw_round, kept_round in zip(given, accepted, strict=False):
        raws = [raw for raw in raw_round.get("actions", []) if isinstance(raw, dict)]
        at = 0
        for action in kept_round["actions"]:
            while at < len(raws) and {k: v for k, v in raws[at].items() if k != "by"} != action:
                at += 1
            if at < len(raws):
                if raws[at].get("by") in MOVED_BY:
                    action["by"] = raws[at]["by"]
                at += 1


def _play(data: Mapping[str, Any], *, strict: bool) -> tuple[Game, list[dict[str, Any]]]:
    if not isinstance(data, Mapping):
        # A program's likeliest slip is the file's text or a path in place of the parsed
        # object: say so, rather than "unknown key '{'" or a bare TypeError.
        hint = (
            " (load_scenario(text) parses a file's text)" if isinstance(data, str | bytes) else ""
        )
        raise ScenarioError(
            f"a scenario must be a JSON object (a dict), not {type(data).__name__}{hint}"
        )
    unknown = set(data) - _TOP_KEYS - _RECORD_KEYS
    if unknown:
        raise ScenarioError(f"unknown key {_first(unknown)} in the scenario")
    for key in ("rules", "players", "rounds"):
        if key not in data:
            raise ScenarioError(f"the scenario has no {key!r}")
    try:
        rules = Rules.from_json(data["rules"])
    except RulesError as error:
        raise ScenarioError(f"rules: {error}") from None
    players = data["players"]
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ScenarioError(
            f"players must be a whole number {MIN_PLAYERS}..{MAX_PLAYERS}, not {_shown(players)}"
        )
    start = data.get("start", {})
    if not isinstance(start, dict):
        raise ScenarioError("start must be a JSON object")
    unknown = set(start) - _START_KEYS
    if unknown:
        raise ScenarioError(f"unknown key {_first(unknown)} in start")
    for key in ("dice_counts", "points", "palifico_used"):
        if key in start and not isinstance(start[key], list):
            raise ScenarioError(f"start.{key} must be a list")
    rounds = data["rounds"]
    if not isinstance(rounds, list):
        raise ScenarioError("rounds must be a list")
    game = start_game(rules, players, start, ScriptedDice([]))
    output: list[dict[str, Any]] = []
    if game.rolloff is not None:
        output.extend(attempt.to_json() for attempt in game.rolloff.attempts)
    output.append(game.round_header().to_json())
    for number, entry in enumerate(rounds, start=1):
        where = f"round {number}"
        if game.phase is Phase.OVER:
            raise ScenarioError(f"{where}: the game is already over")
        if not isinstance(entry, dict):
            raise ScenarioError(f"{where}: a round is an object with 'dice' and 'actions'")
        unknown = set(entry) - {"dice", "actions"}
        if unknown:
            raise ScenarioError(f"{where}: unknown key {_first(unknown)} in the round")
        cups = entry.get("dice")
        if not isinstance(cups, list) or not all(isinstance(cup, list) for cup in cups):
            raise ScenarioError(f"{where}: 'dice' must be a list of lists of dice")
        try:
            check_cups(tuple(tuple(cup) for cup in cups), game.dice_counts)
        except ValueError as error:
            raise ScenarioError(f"{where}: dice: {error}") from None
        game.roll(cups)
        actions = entry.get("actions", [])
        if not isinstance(actions, list):
            raise ScenarioError(f"{where}: 'actions' must be a list")
        for index, raw in enumerate(actions, start=1):
            place = f"{where}, action {index}"
            if game.phase is not Phase.BIDDING:
                raise ScenarioError(f"{place}: the round already ended with a call")
            seat, action = parse_action(raw, players, place)
            try:
                events = game.apply(seat, action)
            except IllegalAction as refused:
                if strict:
                    raise ScenarioError(f"{place}: {refused}") from None
                output.append(
                    {"event": "illegal", "seat": seat, "action": raw, "reason": refused.reason}
                )
                continue
            output.extend(event.to_json() for event in events)
        if game.phase is Phase.BIDDING and number < len(rounds):
            raise ScenarioError(f"{where}: the round has no accepted call, but more rounds follow")
    return game, output


def _first(keys: set[Any]) -> str:
    """The first of unknown keys, quoted: one is enough to name (str: a Python caller's keys
    may be of mixed types)."""
    return _name(min(keys, key=str))


def start_game(rules: Rules, players: int, start: Mapping[str, Any], dice: DiceSource) -> Game:
    """The game a scenario's (already shape-checked) ``start`` sets up, roll-off included.

    ``start.rolloff`` needs ``first_opener: rolloff`` and no ``start.opener``; without it the
    file's opener (seat 0 by default) opens, whatever ``first_opener`` says. ``start.opener``
    is a seat, never ``null``: the Game takes ``None`` as "choose one by the rules", and a
    scenario has no dice to roll off with nor a random opener to draw.
    """

    def build(opener: int | None, rolloff: RollOff | None) -> Game:
        try:
            return Game(
                rules,
                players,
                dice=dice,
                dice_counts=start.get("dice_counts"),
                opener=opener,
                points=start.get("points"),
                palifico_used=start.get("palifico_used", ()),
                rolloff=rolloff,
            )
        except ValueError as error:
            raise ScenarioError(f"start: {error}") from None

    counts = start.get("dice_counts")
    first = next((seat for seat, count in enumerate(counts or []) if count), 0)
    if "rolloff" not in start:
        if "opener" in start:
            return build(_opener(start["opener"], players), None)
        game = build(first, None)  # every other check of start, before the default opener's
        if first != 0:
            raise ScenarioError(
                "start: seat 0, the opener when start.opener is not given, has no dice: "
                "give start.opener"
            )
        return game
    if rules.first_opener != "rolloff":
        raise ScenarioError(
            "start.rolloff needs the rules' first_opener to be 'rolloff', "
            f"not {rules.first_opener!r}"
        )
    if "opener" in start:
        raise ScenarioError(
            "start has both 'opener' and 'rolloff': the roll-off decides "
            "the opener, so give only one of them"
        )
    attempts = start["rolloff"]
    if not isinstance(attempts, list) or not attempts:
        raise ScenarioError(
            "start.rolloff must be a non-empty list of attempts, each a list of [a, b] pairs"
        )
    alive = build(first, None).alive  # every other check of start, before the roll-off's
    try:
        rolloff = RollOff.of(alive, attempts)
    except RollOffError as error:
        raise ScenarioError(f"start.rolloff: {error}") from None
    return build(None, rolloff)


def _opener(opener: object, players: int) -> int:
    """``start.opener`` if it is a seat of the table (a whole number, not ``true`` or ``0.0``)."""
    if type(opener) is not int or not 0 <= opener < players:
        raise ScenarioError(f"start.opener must be a seat 0..{players - 1}, not {_shown(opener)}")
    return opener


# Who made a move the seat's player did not: the turn timer, or a bot standing in for an
# absent player (a record's action may say so as "by"; the rules do not care).
MOVED_BY = ("timer", "stand_in")


def parse_action(raw: object, players: int, place: str = "action") -> tuple[int, Action]:
    """Read ``{"seat": s, "bid": [q, f]}``, ``{"seat": s, "bid": {"hand": ..., "faces":
    [...]}}`` or ``{"seat": s, "call": "dudo"|"calza"}``.

    A bid with a quantity below 1 or a face outside 1..6 is well formed (the game refuses it
    as ``bad_bid``), and so is any bid object (a hand): RULES.md makes one without ``hand``,
    or with faces that are not whole numbers, ``bad_bid`` too, and a bid of the wrong kind
    for the rules as well. Anything that is not a bid or a call at all is a
    :class:`ScenarioError`.
    """
    if isinstance(raw, dict):  # first, so that a misspelled "Seat" is named as such
        unknown = set(raw) - {"seat", "by", "bid", "call"}
        if unknown:
            raise ScenarioError(f"{place}: unknown key {_first(unknown)} in an action")
    if not isinstance(raw, dict) or "seat" not in raw:
        raise ScenarioError(f"{place}: an action is an object with 'seat' and 'bid' or 'call'")
    seat = raw["seat"]
    if type(seat) is not int or not 0 <= seat < players:
        raise ScenarioError(f"{place}: seat {_shown(seat)} is not a seat of this table")
    by = raw.get("by")
    if by is not None and by not in MOVED_BY:
        raise ScenarioError(
            f"{place}: 'by' says who moved for the seat: 'timer' or 'stand_in', not {_shown(by)}"
        )
    keys = set(raw) - {"seat", "by"}
    if keys == {"bid"}:
        bid = raw["bid"]
        if isinstance(bid, dict):
            return seat, Hand.from_json_lenient(bid)
        if (
            not isinstance(bid, list)
            or len(bid) != 2
            or not all(type(number) is int for number in bid)
        ):
            raise ScenarioError(
                f"{place}: a bid is [quantity, face] with whole numbers, or "
                f"a hand object, not {_shown(bid)}"
            )
        return seat, Bid(bid[0], bid[1])
    if keys == {"call"}:
        call = raw["call"]
        if not isinstance(call, str) or call not in _CALLS:  # a list is not even hashable
            raise ScenarioError(f"{place}: a call is 'dudo' or 'calza', not {_shown(call)}")
        return seat, _CALLS[call]
    raise ScenarioError(f"{place}: an action has exactly one of 'bid' or 'call'")


def format_output(events: list[dict[str, Any]]) -> str:
    """The output lines as ``dudo scenario`` prints them."""
    return "".join(json.dumps(event) + "\n" for event in events)
