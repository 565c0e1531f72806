"""OpenSpiel bridge: one heads-up round of our rules as an OpenSpiel game.

An optional extra (``pip install dudo[openspiel]``): importing this module imports
``pyspiel`` and registers the game ``python_dudo``. Nothing else in the package imports it.

The game is one round between two seats, seat 0 opening. Every die is dealt by its own
chance node (six equally likely faces, seat 0's dice first), then the seats bid until one
calls. Legality and outcomes come from :class:`dudo.game.Game`: each OpenSpiel state drives
an engine game, so this bridge encodes actions and nothing else.

Action ints: a bid is its position on the round's widest ladder (the ladder of raises, which
holds every bid the round allows, lowest first), then ``DUDO`` and ``CALZA`` are the last
two ints. Chance outcome ``k`` is a die showing ``k + 1``. Returns: the seat that loses a
die gets -1 and the other +1; a calza that is exact gives the caller +1.

Game parameters (``pyspiel.load_game("python_dudo(preset=dudo,numdice0=1,numdice1=2)")``):

- ``preset``: a preset of :data:`dudo.rules.PRESETS` (default ``perudo``);
- ``numdice0``, ``numdice1``: dice of each seat (1..2 keeps the tree small; up to 5 works);
- ``ones_bids``: ``never``/``halve``/``lock``/``plain`` to override the preset (``""`` keeps it);
- ``wild_ones``: ``"true"``/``"false"`` to override the preset (``""`` keeps it);
- ``palifico``: play a palifico round (seat 0 must hold one die, as the seat that just
  dropped to one; the rules must give heads-up palifico rounds, e.g. ``dudo``);
- ``options``: any other options of :class:`dudo.rules.Rules` as a JSON object
  (``'{"calza": "in_turn", "loss_by_difference": true}'``), applied last, so every rule
  set with quantity bids maps (:func:`load_rules_game` takes a ``Rules`` itself).

Helpers: :func:`load_game`, :func:`solve` (OpenSpiel's CFR+), :func:`exploitability_of`
(OpenSpiel's exploitability of any ``(state, player) -> {action: prob}`` function),
:func:`uniform_exploitability`, and :func:`endgame_report` / :func:`endgame_exploitability`
(our shipped ``dudo.bots.endgame.endgame_policy``, judged by OpenSpiel).

Speed: OpenSpiel's tree algorithms call back into Python at every node, and the 1v1 perudo
round has ~300k nodes, so Python CFR+ on the Python game costs seconds per iteration. By
default the helpers therefore export the tree once (:class:`EfgCopy`, ~2.5 s, driving the
engine exactly as the states do) to Gambit's EFG format, load it as a C++ game and run
OpenSpiel's C++ CFR+ and exploitability on it. ``backend="python"`` runs
``open_spiel.python.algorithms.cfr.CFRPlusSolver`` and the Python exploitability on the
Python game instead; both give the same figures (``bench/openspiel_check.py
--python-check``).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import cfr, exploitability

from dudo.bids import Bid, Ladder, Order, ladder, quantity_limits
from dudo.bots.base import quantity_bid
from dudo.dice import ScriptedDice
from dudo.game import CALZA, DUDO, Action, Call, Game, Revealed
from dudo.rules import ONES_BIDS, Rules
from dudo.view import SeatView, view

__all__ = [
    "GAME_NAME",
    "DudoGame",
    "DudoState",
    "EfgCopy",
    "EfgPolicy",
    "EndgameReport",
    "best_response_values",
    "call_or_lowest",
    "efg_copy",
    "endgame_exploitability",
    "endgame_report",
    "exploitability_of",
    "info_state_key",
    "load_game",
    "load_rules_game",
    "solve",
    "uniform",
    "uniform_exploitability",
    "view_policy",
]

GAME_NAME = "python_dudo"
_NUM_PLAYERS = 2
_FACES = 6

_DEFAULTS: dict[str, Any] = {
    "preset": "perudo",
    "numdice0": 1,
    "numdice1": 1,
    "ones_bids": "",
    "wild_ones": "",
    "palifico": False,
    "options": "",
}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Dudo (Liar's Dice): one heads-up round",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULTS),
)


def _rules_from(params: Mapping[str, Any]) -> Rules:
    overrides: dict[str, Any] = {}
    ones_bids = params["ones_bids"]
    if ones_bids:
        if ones_bids not in ONES_BIDS:
            raise ValueError(f"ones_bids must be one of {', '.join(ONES_BIDS)}, not {ones_bids!r}")
        overrides["ones_bids"] = ones_bids
    wild = params["wild_ones"]
    if isinstance(wild, bool):
        overrides["wild_ones"] = wild
    elif wild:
        if str(wild).lower() not in ("true", "false"):
            raise ValueError(f"wild_ones must be true or false, not {wild!r}")
        overrides["wild_ones"] = str(wild).lower() == "true"
    options = params["options"]
    if options:
        try:
            extra = json.loads(options)
        except ValueError as error:
            raise ValueError(f"options must be a JSON object of rules options: {error}") from None
        if not isinstance(extra, dict):
            raise ValueError(f"options must be a JSON object of rules options, not {options!r}")
        overrides.update(extra)
    rules = Rules.preset(str(params["preset"]), **overrides)
    if rules.bids == "poker":
        raise ValueError(
            f"preset {params['preset']!r} bids poker hands (Common Hand), which "
            "the OpenSpiel bridge does not support: it plays quantity bids only"
        )
    return rules


def _template(rules: Rules, numdice: tuple[int, int], palifico: bool) -> Game:
    """An engine game at the start of the round to play (dice not rolled yet)."""
    for seat, count in enumerate(numdice):
        if not 1 <= count <= rules.starting_dice:
            raise ValueError(f"numdice{seat} must be 1..{rules.starting_dice}, not {count}")
    if not palifico:
        return Game(rules, _NUM_PLAYERS, dice_counts=list(numdice), opener=0)
    if numdice[0] != 1:
        raise ValueError("a palifico round needs numdice0 == 1 (seat 0 just dropped to one)")
    if rules.starting_dice < 2:
        raise ValueError("a palifico round needs starting_dice >= 2")
    # Play one scripted round in which seat 0 drops from two dice to one: seat 0 bids one 6
    # on dice without 6s or ones, seat 1 calls dudo. The engine then sets up the next round,
    # a palifico round opened by seat 0 if the rules give one heads-up.
    cups = [(2, 2), (2,) * numdice[1]]
    game = Game(
        rules, _NUM_PLAYERS, dice=ScriptedDice([cups]), dice_counts=[2, numdice[1]], opener=0
    )
    game.roll()
    game.apply(0, Bid(1, 6))
    game.apply(1, DUDO)
    if not game.palifico or game.opener != 0 or tuple(game.dice_counts) != numdice:
        raise ValueError(
            "these rules give no palifico round heads-up "
            f"(palifico={rules.palifico}, "
            f"palifico_min_players={rules.palifico_min_players})"
        )
    return game


def _encoding_ladder(rules: Rules, palifico: bool, dice_in_play: int) -> Ladder:
    """The round's widest ladder: every bid it allows (the raises' ladder), lowest first."""
    limit, ones_limit = quantity_limits(dice_in_play, rules.cap_at_dice_in_play)
    if rules.ones_bids == "never":
        order = Order.NO_ONES
    elif palifico:
        order = Order.PLAIN
    elif rules.ones_bids == "halve":
        order = Order.HALVE
    else:
        order = Order.PLAIN
    return ladder(order, limit, ones_limit)


class DudoGame(pyspiel.Game):  # type: ignore[misc]
    """One heads-up round of our rules as an OpenSpiel game (see the module docstring)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        merged = dict(_DEFAULTS)
        merged.update(params or {})
        self.rules = _rules_from(merged)
        self.numdice: tuple[int, int] = (int(merged["numdice0"]), int(merged["numdice1"]))
        self.palifico = bool(merged["palifico"])
        self.template = _template(self.rules, self.numdice, self.palifico)
        self.ladder = _encoding_ladder(self.rules, self.palifico, sum(self.numdice))
        self.dudo_action = len(self.ladder)
        self.calza_action = len(self.ladder) + 1
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.ladder) + 2,
            max_chance_outcomes=_FACES,
            num_players=_NUM_PLAYERS,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=len(self.ladder) + 1,
        )
        super().__init__(_GAME_TYPE, info, {key: merged[key] for key in _DEFAULTS})

    def __deepcopy__(self, memo: Any) -> DudoGame:
        return self  # immutable: states share their game

    def new_initial_state(self) -> DudoState:
        return DudoState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> DudoObserver:
        return DudoObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )

    # -- encoding --------------------------------------------------------------------

    def action_to_int(self, action: Action) -> int:
        """The OpenSpiel action int of an engine action."""
        if isinstance(action, Call):
            return self.dudo_action if action is DUDO else self.calza_action
        if not isinstance(action, Bid):
            raise ValueError(f"{action!r} is a poker hand: the bridge plays quantity bids only")
        return self.ladder.positions[action]

    def action_name(self, action: int) -> str:
        """``4x5``, ``dudo`` or ``calza``."""
        move = self.int_to_action(action)
        return move.value if isinstance(move, Call) else str(move)

    def int_to_action(self, action: int) -> Action:
        """The engine action of an OpenSpiel action int."""
        if action == self.dudo_action:
            return DUDO
        if action == self.calza_action:
            return CALZA
        return self.ladder[action]


class _Round:
    """The mutable part of a state. OpenSpiel clones a Python state by deep-copying each
    attribute, so everything lives here, where ``__deepcopy__`` is a cheap engine copy."""

    __slots__ = ("dice", "engine", "history", "result", "reveal")

    def __init__(
        self,
        engine: Game,
        dice: list[int],
        history: list[int],
        result: tuple[float, float] | None,
        reveal: Revealed | None,
    ) -> None:
        self.engine = engine
        self.dice = dice
        self.history = history
        self.result = result
        self.reveal = reveal

    def __deepcopy__(self, memo: Any) -> _Round:
        return _Round(
            self.engine.copy(), list(self.dice), list(self.history), self.result, self.reveal
        )


class DudoState(pyspiel.State):  # type: ignore[misc]
    """A state of the round: the dice dealt so far, then the engine game it drives."""

    def __init__(self, game: DudoGame) -> None:
        super().__init__(game)
        self._dudo = game
        self._round = _Round(game.template.copy(), [], [], None, None)

    @property
    def engine(self) -> Game:
        """The engine game this state drives (do not apply actions to it directly)."""
        return self._round.engine

    @property
    def dice(self) -> list[int]:
        """The dice dealt so far: seat 0's, then seat 1's."""
        return self._round.dice

    @property
    def history_ints(self) -> list[int]:
        """The players' actions so far (bids and the final call)."""
        return self._round.history

    @property
    def result(self) -> tuple[float, float] | None:
        return self._round.result

    @property
    def reveal(self) -> Revealed | None:
        """The engine's reveal event, once the round has been called."""
        return self._round.reveal

    # -- the OpenSpiel API ------------------------------------------------------------

    def current_player(self) -> int:
        if self.result is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        if len(self.dice) < sum(self._dudo.numdice):
            return int(pyspiel.PlayerId.CHANCE)
        return self.engine.turn

    def _legal_actions(self, player: int) -> list[int]:
        encode = self._dudo.action_to_int
        return sorted(encode(action) for action in self.engine.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(face, 1.0 / _FACES) for face in range(_FACES)]

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self.dice.append(action + 1)
            n0 = self._dudo.numdice[0]
            if len(self.dice) == sum(self._dudo.numdice):
                self.engine.roll([tuple(self.dice[:n0]), tuple(self.dice[n0:])])
            return
        seat = self.engine.turn
        events = self.engine.apply(seat, self._dudo.int_to_action(action))
        self.history_ints.append(action)
        for event in events:
            if isinstance(event, Revealed):
                self._round.reveal = event
                self._round.result = _returns_of(event)
                break

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Roll:{action + 1}"
        return self._dudo.action_name(action)

    def is_terminal(self) -> bool:
        return self.result is not None

    def returns(self) -> list[float]:
        return list(self.result) if self.result is not None else [0.0, 0.0]

    def __str__(self) -> str:
        n0 = self._dudo.numdice[0]
        cups = f"{self.dice[:n0]}{self.dice[n0:]}"
        moves = " ".join(self._action_to_string(0, action) for action in self.history_ints)
        return f"dice:{cups} moves:{moves}"

    # -- reading ------------------------------------------------------------------------

    def own_dice(self, player: int) -> tuple[int, ...]:
        """``player``'s dice dealt so far, sorted."""
        n0 = self._dudo.numdice[0]
        cup = self.dice[:n0] if player == 0 else self.dice[n0:]
        return tuple(sorted(cup))

    def seat_view(self, player: int) -> SeatView:
        """The engine's view of the round for ``player`` (what a bot of ours sees)."""
        return view(self.engine, player)


def _returns_of(reveal: Revealed) -> tuple[float, float]:
    # the loser loses; no loser means an exact calza, which the caller wins
    winner = reveal.caller if reveal.loser is None else 1 - reveal.loser
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


class DudoObserver:
    """Observer (OpenSpiel's PyObserver interface): the player, own dice, the bids made.

    With perfect recall (information states) the whole public history is given; without it
    (observations) only the standing bid. Bids only go up the encoding ladder, so the set of
    bids made fixes their order and the tensor is a bit per action.
    """

    def __init__(self, game: DudoGame, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.game = game
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = bool(iig_obs_type.public_info)
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        most = max(game.numdice)
        pieces: list[tuple[str, int, tuple[int, ...]]] = [("player", 2, (2,))]
        if self.private:
            pieces.append(("dice", most * _FACES, (most, _FACES)))
        if self.public:
            actions = game.num_distinct_actions()
            pieces.append(("actions", actions, (actions,)))
        size = sum(piece[1] for piece in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        index = 0
        for name, length, shape in pieces:
            self.dict[name] = self.tensor[index : index + length].reshape(shape)
            index += length

    def set_from(self, state: DudoState, player: int) -> None:
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        if self.private:
            for slot, die in enumerate(state.own_dice(player)):
                self.dict["dice"][slot, die - 1] = 1
        if self.public:
            moves = state.history_ints if self.perfect_recall else state.history_ints[-1:]
            for action in moves:
                self.dict["actions"][action] = 1

    def string_from(self, state: DudoState, player: int) -> str:
        if self.private and self.public and self.perfect_recall:
            return info_state_key(self.game, player, state.own_dice(player), state.history_ints)
        pieces = [f"p{player}"]
        if self.private:
            pieces.append("dice:" + "".join(str(die) for die in state.own_dice(player)))
        if self.public:
            moves = state.history_ints if self.perfect_recall else state.history_ints[-1:]
            pieces.append("bids:" + ",".join(self.game.action_name(action) for action in moves))
        return " ".join(pieces)


def info_state_key(game: DudoGame, player: int, dice: Sequence[int], history: Sequence[int]) -> str:
    """The information state string: the player, own dice sorted, the public moves."""
    own = "".join(str(die) for die in sorted(dice))
    return f"p{player} dice:{own} bids:{','.join(game.action_name(a) for a in history)}"


pyspiel.register_game(_GAME_TYPE, DudoGame)


# -- helpers ------------------------------------------------------------------------------


def load_game(
    preset: str = "perudo", numdice: tuple[int, int] = (1, 1), **options: Any
) -> DudoGame:
    """Load ``python_dudo`` for ``preset`` with ``numdice`` dice per seat.

    ``options``: ``ones_bids`` (str), ``wild_ones`` (bool or ``"true"``/``"false"``),
    ``palifico`` (bool).
    """
    params: dict[str, Any] = {"preset": preset, "numdice0": numdice[0], "numdice1": numdice[1]}
    for key, value in options.items():
        if key not in _DEFAULTS:
            raise ValueError(f"unknown option {key!r} (known: {', '.join(_DEFAULTS)})")
        if key == "wild_ones" and isinstance(value, bool):
            value = "true" if value else "false"
        if key == "options" and isinstance(value, Mapping):
            value = json.dumps(dict(value), sort_keys=True)
        params[key] = value
    game = pyspiel.load_game(GAME_NAME, params)
    assert isinstance(game, DudoGame)
    return game


def load_rules_game(
    rules: Rules, numdice: tuple[int, int] = (1, 1), palifico: bool = False
) -> DudoGame:
    """Load ``python_dudo`` for any rules: their nearest preset and the options that
    differ from it (:meth:`Rules.to_overrides`)."""
    overrides = rules.to_overrides()
    preset = overrides.pop("preset")
    game = load_game(preset, numdice, palifico=palifico, options=overrides)
    if game.rules != rules:  # pragma: no cover - to_overrides round-trips
        raise AssertionError(f"{game.rules} != {rules}")
    return game


def solve(
    game: DudoGame,
    iterations: int,
    report: Callable[[int, float], None] | None = None,
    every: int = 100,
    backend: str = "cpp",
) -> tuple[os_policy.Policy, float]:
    """Run OpenSpiel's CFR+ for ``iterations``: the average policy and its exploitability.

    ``backend="cpp"`` (default) runs ``pyspiel.CFRPlusSolver`` and ``pyspiel.exploitability``
    on the :class:`EfgCopy` of the game; ``"python"`` runs
    ``open_spiel.python.algorithms.cfr.CFRPlusSolver`` and the Python exploitability on the
    Python game itself (same algorithm, same numbers, but ~1000x slower: seconds per
    iteration even for 1v1). ``report(iteration, exploitability)`` is called every
    ``every`` iterations and at the end, if given.
    """
    if backend == "python":
        py_solver = cfr.CFRPlusSolver(game)
        for iteration in range(1, iterations + 1):
            py_solver.evaluate_and_update_policy()
            if report is not None and iteration % every == 0 and iteration != iterations:
                report(iteration, exploitability.exploitability(game, py_solver.average_policy()))
        average = py_solver.average_policy()
        value = float(exploitability.exploitability(game, average))
        if report is not None:
            report(iterations, value)
        return average, value
    if backend != "cpp":
        raise ValueError(f"backend must be 'cpp' or 'python', not {backend!r}")
    copy = efg_copy(game)
    solver = pyspiel.CFRPlusSolver(copy.efg)
    for iteration in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if report is not None and iteration % every == 0 and iteration != iterations:
            report(iteration, copy.exploitability(solver.tabular_average_policy()))
    average_cpp = solver.tabular_average_policy()
    value = copy.exploitability(average_cpp)
    if report is not None:
        report(iterations, value)
    return EfgPolicy(copy, average_cpp), value


ActionProbabilities = Callable[[Any, int], Mapping[int, float]]


class FunctionPolicy(os_policy.Policy):  # type: ignore[misc]
    """An OpenSpiel policy from ``fn(state, player) -> {action int: probability}``."""

    def __init__(self, game: pyspiel.Game, fn: ActionProbabilities) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.fn = fn

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        return {int(action): float(p) for action, p in self.fn(state, player).items()}


def tabular(game: pyspiel.Game, fn: ActionProbabilities) -> os_policy.TabularPolicy:
    """``fn`` as OpenSpiel's TabularPolicy (one row per information state)."""
    return os_policy.tabular_policy_from_callable(game, FunctionPolicy(game, fn))


def exploitability_of(
    game: DudoGame, action_probabilities_fn: ActionProbabilities, backend: str = "cpp"
) -> float:
    """OpenSpiel's exploitability of ``fn(state, player) -> {action int: probability}``.

    (NashConv / 2: the mean of what each best response gains over the game value.)
    ``backend="cpp"`` asks ``fn`` once per information set (on a representative state) and
    runs ``pyspiel.exploitability`` on the :class:`EfgCopy`; ``"python"`` wraps ``fn`` as an
    OpenSpiel TabularPolicy of the Python game and runs the Python exploitability (slow).
    """
    if backend == "python":
        return float(exploitability.exploitability(game, tabular(game, action_probabilities_fn)))
    if backend != "cpp":
        raise ValueError(f"backend must be 'cpp' or 'python', not {backend!r}")
    copy = efg_copy(game)
    return copy.exploitability(copy.tabular_policy(action_probabilities_fn))


def best_response_values(
    game: DudoGame, action_probabilities_fn: ActionProbabilities
) -> tuple[float, float]:
    """Each player's best-response value against ``fn`` (OpenSpiel's C++ best response on
    the :class:`EfgCopy`): what seat 0, then seat 1, wins per round by exploiting it."""
    copy = efg_copy(game)
    return copy.best_response_values(copy.tabular_policy(action_probabilities_fn))


def uniform(state: Any, player: int) -> dict[int, float]:
    """The uniform random policy: every legal action equally likely."""
    legal = state.legal_actions(player)
    return {action: 1.0 / len(legal) for action in legal}


def uniform_exploitability(game: DudoGame, backend: str = "cpp") -> float:
    """OpenSpiel's exploitability of playing every legal action with equal probability."""
    if backend == "python":
        return float(exploitability.exploitability(game, os_policy.UniformRandomPolicy(game)))
    copy = efg_copy(game)
    return copy.exploitability(pyspiel.UniformRandomPolicy(copy.efg))


def view_policy(
    game: DudoGame,
    policy_fn: Callable[[SeatView], Mapping[Action, float] | None],
    fallback: ActionProbabilities | None = None,
    misses: list[str] | None = None,
) -> ActionProbabilities:
    """Turn a bot policy on views (``view -> {Action: probability}``) into action ints.

    The view is the engine's :func:`dudo.view.view` of the state's game for the acting seat.
    Where the policy answers ``None`` (not covered), ``fallback`` is used and the
    information state is appended to ``misses``; without a fallback that raises
    ``ValueError``.
    """

    def fn(state: DudoState, player: int) -> Mapping[int, float]:
        probabilities = policy_fn(state.seat_view(player))
        if probabilities is None:
            key = state.information_state_string(player)
            if fallback is None:
                raise ValueError(f"the policy does not cover {key}")
            if misses is not None:
                misses.append(key)
            return fallback(state, player)
        return {game.action_to_int(action): float(p) for action, p in probabilities.items()}

    return fn


def call_or_lowest(state: Any, player: int) -> dict[int, float]:
    """A deterministic fallback: call dudo when possible, else make the lowest bid."""
    legal = state.legal_actions(player)
    dudo_action = state.get_game().num_distinct_actions() - 2
    return {dudo_action if dudo_action in legal else legal[0]: 1.0}


@dataclass(frozen=True)
class EndgameReport:
    """OpenSpiel's verdict on our shipped ``endgame_policy`` for one game.

    ``covered`` of ``infosets`` information states got an answer from the policy; the rest
    (off the solved strategy's own paths) were filled by a fallback. The exploitability is
    computed with two different fallbacks: if they agree, no best response can reach an
    uncovered information state with positive probability and the figure is exact.
    """

    infosets: int
    covered: int
    exploitability: float
    exploitability_other_fallback: float

    @property
    def exact(self) -> bool:
        return abs(self.exploitability - self.exploitability_other_fallback) < 1e-9


def endgame_report(
    game: DudoGame, policy_fn: Callable[[SeatView], Mapping[Action, float] | None] | None = None
) -> EndgameReport:
    """OpenSpiel's (C++) exploitability of ``policy_fn`` on ``game``: by default
    ``dudo.bots.endgame.endgame_policy`` (the shipped data); pass
    ``lambda view: endgame_policy(view, dudo.bots.solved.solved_table)`` for any rules."""
    from dudo.bots.endgame import endgame_policy

    policy = policy_fn or endgame_policy
    misses: list[str] = []
    value = exploitability_of(game, view_policy(game, policy, uniform, misses))
    other = exploitability_of(game, view_policy(game, policy, call_or_lowest))
    copy = efg_copy(game)
    total = sum(len(infosets) for infosets in copy.infosets)
    return EndgameReport(total, total - len(misses), value, other)


def endgame_exploitability(game: DudoGame, backend: str = "cpp") -> float:
    """OpenSpiel's exploitability of our shipped ``endgame_policy`` (uniform where it has
    no answer; see :func:`endgame_report` for the coverage)."""
    from dudo.bots.endgame import endgame_policy

    return exploitability_of(game, view_policy(game, endgame_policy, uniform), backend)


# -- a C++ copy of the game (fast solving) ------------------------------------------------


class EfgCopy:
    """The whole game tree exported to Gambit's EFG format and loaded as a C++ game.

    Python games are slow for OpenSpiel's tree algorithms (one traversal of the 1v1 perudo
    round, ~300k nodes, takes tens of seconds in Python). The export walks the tree once,
    driving the engine exactly as :class:`DudoState` does; OpenSpiel's C++ CFR+ and
    exploitability then run on ``self.efg`` at C++ speed. Information set names are our
    information state strings and action names our action ints, so policies map across.
    """

    def __init__(self, game: DudoGame) -> None:
        self.game = game
        self.infosets: list[dict[str, int]] = [{}, {}]
        self.action_ids: dict[int, int] = {}  # our int -> EFG id (order of first appearance)
        self._representatives: dict[str, tuple[Game, list[int], list[int]]] = {}
        collecting = gc.isenabled()
        gc.disable()  # the export allocates ~1M small objects and frees none of them
        try:
            self.text = self._export()
        finally:
            if collecting:
                gc.enable()
        self.efg = pyspiel.load_efg_game(self.text)
        self._names = {efg_id: code for code, efg_id in self.action_ids.items()}

    def _export(self) -> str:
        game = self.game
        lines = ['EFG 2 R "python_dudo" { "Player 0" "Player 1" } ""', ""]
        append = lines.append
        faces = " ".join(f'"{face}" 1/{_FACES}' for face in range(_FACES))
        total, n0 = sum(game.numdice), game.numdice[0]
        encode = game.action_to_int
        names = [game.action_name(code) for code in range(game.num_distinct_actions())]
        outcomes = {(1.0, -1.0): 't "" 1 "" { 1.0 -1.0 }', (-1.0, 1.0): 't "" 2 "" { -1.0 1.0 }'}
        infosets, action_ids = self.infosets, self.action_ids
        representatives = self._representatives
        chance_number = 0
        called: dict[tuple[int, int, Bid | None, bool], tuple[float, float]] = {}

        def bidding(
            engine: Game, dice: list[int], own: tuple[str, str], history: str, codes: list[int]
        ) -> None:
            # ``own[seat]`` is the seat's "p<seat> dice:<dice> bids:" prefix and ``history``
            # the public rest of the information state string (see info_state_key).
            seat = engine.turn
            key = own[seat] + history
            table = infosets[seat]
            number = table.get(key)
            if number is None:
                number = table[key] = len(table) + 1
                representatives[key] = (engine, dice, codes)
            legal = sorted((encode(action), action) for action in engine.legal_actions(seat))
            for code, _ in legal:
                action_ids.setdefault(code, len(action_ids))
            labels = " ".join(f'"{code}"' for code, _ in legal)
            append(f'p "" {seat + 1} {number} "{key}" {{ {labels} }} 0')
            for code, action in legal:
                if isinstance(action, Call):
                    # A call's outcome depends on the deal (fixed below ``deal``), the
                    # standing bid, who calls and whether ones are still wild (``lock``):
                    # ask the engine once per such case.
                    case = (seat, code, quantity_bid(engine.standing), engine.wild)
                    returns = called.get(case)
                    if returns is None:
                        events = engine.copy().apply(seat, action)
                        assert isinstance(events[0], Revealed)
                        returns = called[case] = _returns_of(events[0])
                    append(outcomes[returns])
                    continue
                child = engine.copy()
                child.apply(seat, action)
                public = f"{history},{names[code]}" if history else names[code]
                bidding(child, dice, own, public, [*codes, code])

        def deal(dice: list[int]) -> None:
            nonlocal chance_number
            if len(dice) == total:
                engine = game.template.copy()
                engine.roll([tuple(dice[:n0]), tuple(dice[n0:])])
                own = (
                    info_state_key(game, 0, dice[:n0], ()),
                    info_state_key(game, 1, dice[n0:], ()),
                )
                called.clear()
                bidding(engine, dice, own, "", [])
                return
            chance_number += 1
            append(f'c "" {chance_number} "" {{ {faces} }} 0')
            for face in range(1, _FACES + 1):
                deal([*dice, face])

        deal([])
        return "\n".join(lines) + "\n"

    def efg_info_state(self, player: int, key: str) -> str:
        """The EFG game's information state string for our ``key``."""
        return f"{player}-{player}-{self.infosets[player][key]}-{key}"

    def representative(self, key: str) -> DudoState:
        """A state of our game in the information set ``key`` (for evaluating policies)."""
        engine, dice, codes = self._representatives[key]
        state = DudoState(self.game)
        state._round = _Round(engine.copy(), list(dice), list(codes), None, None)
        return state

    def tabular_policy(self, fn: ActionProbabilities) -> Any:
        """``fn(state, player) -> {our int: prob}`` as a C++ TabularPolicy of the EFG game."""
        table: dict[str, list[tuple[int, float]]] = {}
        for player, infosets in enumerate(self.infosets):
            for key in infosets:
                state = self.representative(key)
                probabilities = {int(action): float(p) for action, p in fn(state, player).items()}
                legal = state.legal_actions(player)
                if not set(probabilities) <= set(legal):
                    raise ValueError(f"illegal actions in the policy at {key}: {probabilities}")
                table[self.efg_info_state(player, key)] = [
                    (self.action_ids[action], probabilities.get(action, 0.0)) for action in legal
                ]
        return pyspiel.TabularPolicy(table)

    def exploitability(self, efg_policy: Any) -> float:
        """OpenSpiel's (C++) exploitability of a policy of the EFG game."""
        return float(pyspiel.exploitability(self.efg, efg_policy))

    def best_response_values(self, efg_policy: Any) -> tuple[float, float]:
        """What each player's best response (OpenSpiel's C++ TabularBestResponse) wins
        against the policy; their sum is NashConv, half of it the exploitability."""
        root = self.efg.new_initial_state().history_str()
        first, second = (
            pyspiel.TabularBestResponse(self.efg, player, efg_policy).value(root)
            for player in (0, 1)
        )
        return float(first), float(second)

    def our_probabilities(self, efg_policy: Any, player: int, key: str) -> dict[int, float]:
        """A C++ policy's probabilities at our information set ``key``, as our ints."""
        pairs = efg_policy.get_state_policy(self.efg_info_state(player, key))
        return {self._names[efg_id]: p for efg_id, p in pairs}


_EFG_COPIES: dict[str, EfgCopy] = {}


def efg_copy(game: DudoGame) -> EfgCopy:
    """The (cached) C++ copy of ``game``."""
    key = str(game)
    if key not in _EFG_COPIES:
        _EFG_COPIES[key] = EfgCopy(game)
    return _EFG_COPIES[key]


class EfgPolicy(os_policy.Policy):  # type: ignore[misc]
    """A policy of the EFG copy (e.g. C++ CFR+'s average) read on our game's states."""

    def __init__(self, copy: EfgCopy, efg_policy: Any) -> None:
        super().__init__(copy.game, [0, 1])
        self.copy = copy
        self.efg_policy = efg_policy

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        return self.copy.our_probabilities(
            self.efg_policy, player, state.information_state_string(player)
        )
