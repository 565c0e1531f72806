"""Provably fair dice: commit, collect every seat's seed, derive, reveal.

Before a round is rolled the server draws a fresh secret *server seed* and publishes only
its *commitment*, a SHA-256 that also binds the round and which seats are the server's own
bots::

    commitment = SHA-256("dudo-commit-v2|<round>|<bot seats, comma-separated>|<server_seed>")

Every seat then contributes a seed of its own (players' clients
send one; the server makes one for bots and absent players). The round's dice are::

    stream_i = HMAC-SHA256(key=server_seed, msg="dudo-dice-v1|<round>|<seed_0>|...|<seed_n-1>|<i>")

read byte by byte for i = 0, 1, 2, ...; a byte b < 252 gives the die ``b % 6 + 1`` (bytes
252..255 are skipped so every face is exactly as likely), dealt seat by seat in seat order,
each seat's dice in the order drawn. At the reveal the server seed is published, so anyone
can check ``sha256(server_seed) == commitment`` and recompute every die: the server could
not pick the dice (it committed before seeing the seats' seeds) and no player could either
(they never saw the server seed). Committing to a hash of the dice alone would not do: five
dice have only 7,776 possibilities, so such a hash is reversed by a lookup table.

The seeds of seats the server speaks for (bots, stand-ins, players who sent none) are not
drawn freely: a free draw made *after* the players' seeds arrive would let a dishonest
server try thousands of them until its bots hold the dice it wants. They are derived from
the committed server seed instead::

    seat_seed_i = HMAC-SHA256(key=server_seed, msg="dudo-seat-v1|<round>|<i>")[:16 bytes]

so everything the server chooses is fixed by the commitment, before any player's seed is
known. The record names those seats (``server_seats``) and :func:`verify_round` checks the
binding; a bot's seat must always be one of them. Which seats are bots is itself inside the
commitment (published before the roll, seen by every player), so a record that leaves a
bot out (``bots: []``, ``server_seats: []``) no longer matches it.

Records made before that (fairness entries without ``"version": 2``) committed to
``SHA-256(server_seed bytes)`` alone and still verify under that scheme; stripping the
version from a new record does not help a forger, since its commitment is not the hash
of the seed alone.

The roll-off (``first_opener: rolloff``, RULES.md) is rolled on the same scheme, as rounds
before round 1: attempt *k* is committed, seeded and derived exactly like a round whose
``<round>`` is the label ``rolloff-<k>`` (:func:`rolloff_label`), never a number, so no
attempt can share a seed, a commitment or a dice stream with a real round or with another
attempt. Every seat has a seed in an attempt; only the seats rolling get dice, two each
(the counts are ``2`` for a rolling seat, ``0`` for the others). The record keeps the
attempts' material in ``rolloff_fairness`` (one entry per attempt, with ``"attempt": k``
and ``"round": "rolloff-k"``) next to the dice in ``start.rolloff``, and
:func:`verify_record` checks that those dice follow from the seeds.

Seeds travel as hex strings. This module is pure: drawing the secrets is the server's job.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Sequence
from typing import Any

from dudo.dice import Cups, deal
from dudo.printable import counted
from dudo.record_fields import material_problem, record_problem

DOMAIN = "dudo-dice-v1"
SEAT_DOMAIN = "dudo-seat-v1"
COMMIT_DOMAIN = "dudo-commit-v2"
SCHEME = 2  # the "version" of a fairness entry whose commitment binds its bot seats
ROLLOFF_PREFIX = "rolloff-"
_HEX = re.compile(r"[0-9a-fA-F]+")
SEED_BYTES = 32
MAX_SEAT_SEED_CHARS = 128


class FairnessError(ValueError):
    """A seed, commitment or record that does not check out."""


class NotAGameRecord(FairnessError):
    """Input that is no game record at all, rather than a record that does not verify."""


RoundLabel = int | str
"""A round's number (1, 2, ...) or a roll-off attempt's label (``rolloff-1``, ...)."""


def rolloff_label(attempt: int) -> str:
    """The round label of roll-off attempt ``attempt`` (from 1): never a round's number."""
    if type(attempt) is not int or attempt < 1:
        raise FairnessError(f"roll-off attempts count from 1, not {attempt!r}")
    return f"{ROLLOFF_PREFIX}{attempt}"


def rolloff_counts(players: int, rolling: Sequence[int]) -> list[int]:
    """The dice counts of a roll-off attempt: two dice for each seat rolling, none else."""
    return [2 if seat in rolling else 0 for seat in range(players)]


def _named(label: RoundLabel) -> str:
    """How an error names a round or an attempt."""
    if isinstance(label, str) and label.startswith(ROLLOFF_PREFIX):
        return f"roll-off attempt {label[len(ROLLOFF_PREFIX) :]}"
    return f"round {label}"


def commitment(server_seed: str, round_number: RoundLabel, bot_seats: Sequence[int]) -> str:
    """The commitment (hex) to a round: its server seed (hex), its number and the seats the
    server's bots play, so a record cannot later leave a bot out."""
    seats = ",".join(str(seat) for seat in sorted(bot_seats))
    text = f"{COMMIT_DOMAIN}|{round_number}|{seats}|{server_seed}"
    return hashlib.sha256(text.encode()).hexdigest()


def legacy_commitment(server_seed: str) -> str:
    """The commitment of records made before bot seats were bound: SHA-256 of the seed."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


def check_seat_seed(seed: str) -> str:
    """A seat's seed as accepted: 1..128 hex digits, lower-cased. Raises FairnessError."""
    if not isinstance(seed, str) or not 1 <= len(seed) <= MAX_SEAT_SEED_CHARS:
        raise FairnessError(f"a seat seed is 1 to {MAX_SEAT_SEED_CHARS} hex digits")
    if _HEX.fullmatch(seed) is None:  # int(seed, 16) would accept '0x1f', ' ab', '-1', '١٢'
        raise FairnessError(f"a seat seed is hex digits 0-9 a-f, not {seed[:20]!r}")
    return seed.lower()


def server_seat_seed(server_seed: str, round_number: RoundLabel, seat: int) -> str:
    """The seed of a seat the server speaks for, bound to the committed server seed."""
    message = f"{SEAT_DOMAIN}|{round_number}|{seat}".encode()
    return hmac.new(bytes.fromhex(server_seed), message, hashlib.sha256).hexdigest()[:32]


def _is_hex(text: object) -> bool:
    return isinstance(text, str) and len(text) % 2 == 0 and _HEX.fullmatch(text) is not None


def derive_dice(
    server_seed: str,
    seat_seeds: Sequence[str],
    round_number: RoundLabel,
    dice_counts: Sequence[int],
) -> Cups:
    """Every seat's dice for a round, from the server seed and all seats' seeds."""
    if len(seat_seeds) != len(dice_counts):
        raise FairnessError(f"{len(seat_seeds)} seat seeds for {len(dice_counts)} seats")
    key = bytes.fromhex(server_seed)
    prefix = "|".join([DOMAIN, str(round_number), *seat_seeds])
    needed = sum(dice_counts)
    dice: list[int] = []
    block = 0
    while len(dice) < needed:
        digest = hmac.new(key, f"{prefix}|{block}".encode(), hashlib.sha256).digest()
        dice.extend(byte % 6 + 1 for byte in digest if byte < 252)
        block += 1
    return deal(dice, dice_counts)


def verify_round(
    server_seed: str,
    expected_commitment: str,
    seat_seeds: Sequence[str],
    round_number: RoundLabel,
    dice: Sequence[Sequence[int]],
    server_seats: Sequence[int] = (),
    bot_seats: Sequence[int] = (),
    scheme: int = SCHEME,
) -> None:
    """Raise :class:`FairnessError` unless the round's dice follow from its seeds, every
    seed the server chose (``server_seats``) follows from the committed server seed, and
    every bot's seat is among those. Under ``scheme`` 2 the bot seats are part of the
    commitment; under 1 (old records) the commitment is to the seed alone."""
    name = _named(round_number)
    if not _is_hex(server_seed):
        raise FairnessError(f"{name}: the server seed is not hex bytes")
    if scheme == SCHEME:
        expected = commitment(server_seed, round_number, bot_seats)
        what = "the server seed and the bot seats do not match"
    else:
        expected = legacy_commitment(server_seed)
        what = "the server seed does not match"
    if not hmac.compare_digest(expected, expected_commitment):
        raise FairnessError(f"{name}: {what} the commitment published before the roll")
    for seat in bot_seats:
        if seat not in server_seats:
            raise FairnessError(
                f"{name}: seat {seat} is a bot, yet its seed is not marked as the server's own"
            )
    for seat in server_seats:
        if not 0 <= seat < len(seat_seeds):
            raise FairnessError(f"{name}: there is no seat {seat}")
        if not hmac.compare_digest(
            seat_seeds[seat], server_seat_seed(server_seed, round_number, seat)
        ):
            raise FairnessError(
                f"{name}: the server's seed for seat {seat} "
                "does not follow from the committed server seed (it could "
                "have been chosen after seeing the players' seeds)"
            )
    counts = [len(cup) for cup in dice]
    derived = derive_dice(server_seed, seat_seeds, round_number, counts)
    if [list(cup) for cup in derived] != [list(cup) for cup in dice]:
        raise FairnessError(
            f"{name}: the dice are not the ones the seeds give "
            f"(expected {[list(c) for c in derived]})"
        )


def _check_entry(
    fair: Any,
    label: RoundLabel,
    dice: Sequence[Sequence[int]],
    bots: Sequence[int],
    *,
    require_v2: bool = False,
) -> str:
    """Check one fairness entry (a round's or a roll-off attempt's) against its dice; the
    line that says what held."""
    name = _named(label)
    try:
        if not isinstance(fair, dict):
            raise FairnessError(f"{name}: no fairness material")
        if (problem := material_problem(fair, dice)) is not None:
            raise FairnessError(f"{name}: {problem}")
        if "server_seats" not in fair:
            raise FairnessError(
                f"{name}: the record does not say which seat "
                "seeds the server chose ('server_seats'), so they cannot "
                "be checked (records from before fairness v2)"
            )
        server_seats = fair["server_seats"]
        if not isinstance(server_seats, list) or not all(
            type(seat) is int for seat in server_seats
        ):
            raise FairnessError(f"{name}: 'server_seats' must list seat numbers")
        scheme = fair.get("version", 1)
        if require_v2 and scheme != SCHEME:
            raise FairnessError(f"{name}: roll-off material must be fairness version {SCHEME}")
        if scheme == SCHEME:
            bound = fair.get("bot_seats")
            if not isinstance(bound, list) or not all(type(seat) is int for seat in bound):
                raise FairnessError(
                    f"{name}: 'bot_seats' must list the seats the commitment binds as bots"
                )
            for seat in bots:
                if seat not in bound:
                    raise FairnessError(
                        f"{name}: seat {seat} is a bot, yet the commitment does not bind it as one"
                    )
        elif scheme == 1:
            bound = list(bots)
        else:
            raise FairnessError(f"{name}: unknown fairness version {scheme!r}")
        verify_round(
            fair["server_seed"],
            fair["commitment"],
            fair["seat_seeds"],
            label,
            dice,
            server_seats,
            bound,
            scheme,
        )
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, FairnessError):
            raise
        raise FairnessError(f"{name}: malformed fairness material ({error})") from None
    binds = f"binds bot seats {sorted(bound)}, " if scheme == SCHEME else "matches, "
    return (
        f"{name}: commitment {fair['commitment'][:16]}… {binds}"
        f"{counted(len(server_seats), 'server seat seed')} bound "
        "to it, "
        f"{sum(len(cup) for cup in dice)} dice recomputed"
    )


def _verify_rolloff(record: dict[str, Any], bots: Sequence[int]) -> list[str]:
    """Check the roll-off: every attempt's dice in ``start.rolloff`` follow from its
    fairness entry in ``rolloff_fairness``. A record whose rules roll off must have one."""
    from dudo.rolloff import RollOff, RollOffError

    start = record.get("start") or {}
    rules = record.get("rules") or {}
    attempts = start.get("rolloff") if isinstance(start, dict) else None
    material = record.get("rolloff_fairness")
    if attempts is None:
        if material:
            raise FairnessError(
                "the record has roll-off fairness material but no roll-off ('start.rolloff')"
            )
        if isinstance(rules, dict) and rules.get("first_opener") == "rolloff":
            raise FairnessError(
                "the rules roll off for the first opener, but the record "
                "has no roll-off ('start.rolloff'): who opens cannot be "
                "checked"
            )
        return []
    if not isinstance(attempts, list) or not isinstance(material, list):
        raise FairnessError(
            "a roll-off needs its attempts ('start.rolloff') and their "
            "fairness material ('rolloff_fairness')"
        )
    if len(material) != len(attempts):
        raise FairnessError(
            f"{len(attempts)} roll-off attempts but fairness material for {len(material)}"
        )
    players = record["players"]
    counts = start.get("dice_counts") or [1] * players
    try:
        alive = [seat for seat in range(players) if counts[seat]]
        roll_off = RollOff.of(alive, attempts)
    except (RollOffError, TypeError, IndexError) as error:
        raise FairnessError(f"the roll-off does not stand: {error}") from None
    lines = []
    for number, (attempt, fair) in enumerate(
        zip(roll_off.attempts, material, strict=True), start=1
    ):
        label = rolloff_label(number)
        if isinstance(fair, dict) and fair.get("round", label) != label:
            raise FairnessError(
                f"roll-off attempt {number}: its material is labelled "
                f"{fair.get('round')!r}, not {label!r}"
            )
        pairs = dict(zip(attempt.seats, attempt.rolls, strict=True))
        dice = [list(pairs.get(seat, ())) for seat in range(players)]
        lines.append(_check_entry(fair, label, dice, bots, require_v2=True))
    tries = len(roll_off.attempts)
    lines.append(
        f"roll-off: {tries} attempt{'' if tries == 1 else 's'}, seat {roll_off.opener} opens"
    )
    return lines


def _check_reveals(stated: object, replayed: list[dict[str, Any]]) -> None:
    """The outcomes a record states (``reveals``: who called on whose bid, the count, the
    loser, the change, every seat's dice after it) must be the replay's, round by round:
    the browser's check follows the dice counts through them without the rules, so a
    record that lies in them must fail here, where the rules are applied."""
    if not isinstance(stated, list):
        raise FairnessError("'reveals' must list every finished round's outcome")
    for number, (said, made) in enumerate(zip(stated, replayed, strict=False), start=1):
        if said != made:
            differ = (
                sorted(set(said) ^ set(made) | {key for key in made if said.get(key) != made[key]})
                if isinstance(said, dict)
                else ["the whole entry"]
            )
            raise FairnessError(
                f"round {number}: the outcome the record states is not the replay's "
                f"({', '.join(differ)} differ)"
            )
    if len(stated) != len(replayed):
        raise FairnessError(
            f"the record states {counted(len(stated), 'outcome')}, but "
            f"{counted(len(replayed), 'round')} ended with a call"
        )


def verify_record(record: dict[str, Any]) -> list[str]:
    """Check a finished game's record: the roll-off's dice (if the rules roll off) and every
    round's dice follow from their seeds, and every action is legal under the game's rules.
    Returns a line per round; raises :class:`FairnessError` at the first thing that does not
    check out (:class:`NotAGameRecord` when ``record`` has not the fields of one)."""
    from dudo.scenario import ScenarioError, replay

    if (problem := record_problem(record)) is not None:
        raise NotAGameRecord(f"not a game record: {problem}")
    rounds, fairness = record["rounds"], record["fairness"]
    if len(fairness) < len(rounds):
        raise FairnessError(
            f"{counted(len(rounds), 'round')} but fairness material for {len(fairness)}"
        )
    bots = record.get("bots", [])
    if not isinstance(bots, list) or not all(type(seat) is int for seat in bots):
        raise FairnessError("'bots' must list the seats played by bots")
    lines = _verify_rolloff(record, bots)
    for number, (entry, fair) in enumerate(zip(rounds, fairness, strict=False), start=1):
        try:
            dice = entry["dice"]
        except (KeyError, TypeError):
            raise FairnessError(f"round {number}: the record has no dice for it") from None
        lines.append(_check_entry(fair, number, dice, bots))
    scenario: dict[str, Any] = {
        key: record[key] for key in ("rules", "players", "start", "rounds") if key in record
    }
    try:
        game = replay(scenario)
    except ScenarioError as error:
        raise FairnessError(f"the actions do not replay: {error}") from None
    if "reveals" in record:  # records since the outcomes were stated (the browser reads them)
        _check_reveals(record["reveals"], game.reveals())
    played = counted(len(rounds), "round")
    if game.winners:
        lines.append(f"replayed {played}: winners {list(game.winners)}")
    else:
        lines.append(f"replayed {played}: the game is not finished")
    return lines
