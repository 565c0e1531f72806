"""Terminal games as games like any other: provably fair dice and a saved record.

A game of ``dudo play`` rolls its dice the way the server does (:mod:`dudo.fairness`):
before each round a fresh secret *server seed* is drawn and its SHA-256 commitment shown,
every seat's seed is derived from it (all seats are the program's own, so all of them are
``server_seats``), and the dice are the HMAC-SHA256 stream over them. At the end the record
holds the seeds, so ``dudo verify FILE`` recomputes every die and replays every action, and
``dudo analyze FILE`` weighs every decision, exactly as for a game played on a server.

The roll-off (``first_opener: rolloff``) is rolled the same way, each attempt as a round
labelled ``rolloff-<k>`` (:func:`dudo.fairness.rolloff_label`): the engine rolls the
roll-off on its dice source as round 0, and each such roll here is the next attempt, with
its own server seed (a tie never rolls the same dice again) and its material in
``rolloff_fairness``.

With ``--seed`` the server seeds come from that seed (a game you can replay, so its
commitments prove nothing to you, but its record still checks out); without it they are
drawn from the operating system's secret generator.

Records are saved as JSON in :func:`default_folder` (``$DUDO_GAMES``, else
``$XDG_DATA_HOME/dudo/games``, else ``~/.local/share/dudo/games``), one file per game.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import secrets
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dudo.dice import Cups
from dudo.fairness import (
    SCHEME,
    SEED_BYTES,
    RoundLabel,
    commitment,
    derive_dice,
    rolloff_label,
    server_seat_seed,
)
from dudo.game import Game


def default_folder() -> Path:
    """Where terminal games' records go unless ``--records`` says otherwise."""
    chosen = os.environ.get("DUDO_GAMES")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "dudo" / "games"


class CommittedDice:
    """A dice source that commits to each round's server seed before the roll.

    :meth:`commitment_for` gives the commitment of the round about to be rolled (drawing
    its seed if need be); :meth:`roll` then deals the dice from that seed and remembers the
    round's fairness material in the form the server publishes (``fairness`` entries).
    A roll of round 0 is the engine rolling off for the first opener: it is the next
    roll-off attempt (``rolloff_fairness`` entries).
    """

    def __init__(
        self, players: int, seed: int | None = None, bot_seats: Sequence[int] | None = None
    ) -> None:
        self.players = players
        # The seats the program's bots play (every seat but the person's, seat 0, unless
        # told): each round's commitment binds them, as on the server.
        self.bot_seats = list(range(1, players)) if bot_seats is None else sorted(bot_seats)
        self._seed = seed
        self._lots = random.Random(seed) if seed is not None else random.SystemRandom()
        self._pending: dict[RoundLabel, str] = {}
        self.fairness: list[dict[str, Any]] = []
        self.rolloff_fairness: list[dict[str, Any]] = []

    def _server_seed(self, round_number: RoundLabel) -> str:
        if round_number not in self._pending:
            if self._seed is None:
                self._pending[round_number] = secrets.token_hex(SEED_BYTES)
            else:
                self._pending[round_number] = hmac.new(
                    str(self._seed).encode(),
                    f"dudo-terminal-v1|{round_number}".encode(),
                    hashlib.sha256,
                ).hexdigest()
        return self._pending[round_number]

    def commitment_for(self, round_number: RoundLabel) -> str:
        """The commitment to the server seed of ``round_number`` (before its roll): a
        round's number, or a roll-off attempt's label."""
        return commitment(self._server_seed(round_number), round_number, self.bot_seats)

    def next_rolloff_label(self) -> str:
        """The label of the roll-off attempt a roll of round 0 deals next."""
        return rolloff_label(len(self.rolloff_fairness) + 1)

    def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
        if round_number <= 0:  # the engine rolling off (attempt n as round 1 - n): own seed
            label: RoundLabel = self.next_rolloff_label()
            kept = self.rolloff_fairness
        else:
            label, kept = round_number, self.fairness
        server_seed = self._server_seed(label)
        seat_seeds = [server_seat_seed(server_seed, label, seat) for seat in range(self.players)]
        entry: dict[str, Any] = {
            "version": SCHEME,
            "round": label,
            "commitment": commitment(server_seed, label, self.bot_seats),
            "server_seed": server_seed,
            "seat_seeds": seat_seeds,
            "server_seats": list(range(self.players)),
            "bot_seats": list(self.bot_seats),
        }
        if round_number <= 0:
            entry["attempt"] = len(kept) + 1
        kept.append(entry)
        return derive_dice(server_seed, seat_seeds, label, dice_counts)

    def draw(self, seats: Sequence[int]) -> int:
        return self._lots.choice(list(seats))


def new_game_id() -> str:
    """A game id for a terminal game: when it started and a few random characters."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def game_record(
    game: Game, dice: CommittedDice, game_id: str, names: Sequence[str], bots: Sequence[int]
) -> dict[str, Any]:
    """The record of a terminal game, in the server's format (``GET /api/games/ID``)."""
    record = game.record()
    record["reveals"] = game.reveals()
    record["game_id"] = game_id
    record["names"] = list(names)
    record["bots"] = list(bots)
    record["fairness"] = list(dice.fairness)
    if dice.rolloff_fairness:
        record["rolloff_fairness"] = list(dice.rolloff_fairness)
    return record


def save_record(record: dict[str, Any], folder: Path) -> Path:
    """Write ``record`` as ``FOLDER/GAME_ID.json`` (creating the folder); returns the path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{record['game_id']}.json"
    temporary = path.with_suffix(".json.part")
    try:
        temporary.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        temporary.replace(path)
    except OSError:
        temporary.unlink(missing_ok=True)  # no half-written file left behind (a full disk)
        raise
    return path
