"""The OpenSpiel bridge: OpenSpiel's own checks, the engine's legality, and CFR+ on it."""

from __future__ import annotations

from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import get_all_states  # noqa: E402

from dudo.bids import Bid  # noqa: E402
from dudo.game import CALZA, DUDO  # noqa: E402
from dudo.openspiel import (  # noqa: E402
    DudoGame,
    DudoState,
    best_response_values,
    efg_copy,
    endgame_report,
    exploitability_of,
    load_game,
    load_rules_game,
    solve,
    uniform,
    uniform_exploitability,
    view_policy,
)
from dudo.rules import Rules  # noqa: E402

HEADS_UP = [
    ("perudo", (1, 1), {}),
    ("dudo", (1, 1), {}),
    ("dudo", (1, 1), {"palifico": True}),
    ("dudo", (1, 2), {"palifico": True}),
    ("tavern", (1, 1), {}),
    ("ones-lock", (1, 1), {}),
    ("no-wilds", (1, 1), {}),
    ("perudo", (2, 1), {"ones_bids": "plain"}),
    ("tavern", (1, 1), {"wild_ones": False}),
]


def _walk_bidding(state: DudoState, check: object) -> int:
    """Depth-first over every bidding line from ``state``; ``check`` runs at each node."""
    assert callable(check)
    check(state)
    if state.is_terminal():
        return 1
    return 1 + sum(_walk_bidding(state.child(action), check) for action in state.legal_actions())


def _deal(game: DudoGame, faces: list[int]) -> DudoState:
    state = game.new_initial_state()
    for face in faces:
        assert state.is_chance_node()
        assert state.chance_outcomes() == [(k, pytest.approx(1 / 6)) for k in range(6)]
        state.apply_action(face - 1)
    assert not state.is_chance_node()
    return state


@pytest.mark.parametrize(("preset", "numdice", "options"), HEADS_UP)
def test_openspiel_random_sim_test(
    preset: str, numdice: tuple[int, int], options: dict[str, object]
) -> None:
    game = load_game(preset, numdice, **options)
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)


def test_game_facts() -> None:
    game = load_game()
    kind = game.get_type()
    assert kind.short_name == "python_dudo"
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 2
    assert game.max_chance_outcomes() == 6
    # perudo 1v1: the halve ladder up to 2 dice (12 bids), then dudo and calza
    assert game.num_distinct_actions() == 14
    assert game.int_to_action(12) is DUDO and game.int_to_action(13) is CALZA
    assert str(game.int_to_action(0)) == "1x2"
    same = pyspiel.load_game("python_dudo(preset=perudo,numdice0=1,numdice1=1)")
    assert same.num_distinct_actions() == 14


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError):
        load_game("perudo", (1, 1), palifico=True)  # perudo: palifico needs 3+ alive
    with pytest.raises(ValueError):
        load_game("dudo", (2, 1), palifico=True)  # seat 0 must be the one at one die
    with pytest.raises(ValueError):
        load_game("perudo", (1, 1), ones_bids="sometimes")
    with pytest.raises(ValueError):
        load_game("perudo", (1, 1), wild_ones=False)  # halve without wild ones
    with pytest.raises(ValueError):
        load_game("perudo", (0, 1))
    with pytest.raises(ValueError, match="JSON object"):
        load_game("perudo", (1, 1), options="calza=off")
    with pytest.raises(ValueError, match="unknown option"):
        load_game("perudo", (1, 1), options={"wild": True})


def test_any_rules_map_to_the_game() -> None:
    """``options`` carries every option, so a rule set no preset plays maps too."""
    rules = Rules.preset("dudo", wild_ones=False, ones_bids="lock", palifico_open_on_ones=False)
    game = load_rules_game(rules)
    assert game.rules == rules
    assert load_rules_game(rules, (1, 1), palifico=True).palifico
    assert load_game("tavern", (1, 1), options={"calza": "in_turn"}).rules == Rules.preset(
        "tavern", calza="in_turn"
    )


# One die each: larger games' bidding trees are too big to walk whole in a unit test
# (random_sim_test above covers them).
@pytest.mark.parametrize(
    ("preset", "numdice", "options"), [case for case in HEADS_UP if sum(case[1]) <= 2]
)
def test_every_bidding_line_follows_the_engine(
    preset: str, numdice: tuple[int, int], options: dict[str, object]
) -> None:
    """Legal ints, sorted, are exactly the engine's legal actions at every node of the
    bidding tree of a deal; returns are +-1 and sum to zero; clones are independent."""
    game = load_game(preset, numdice, **options)

    def check(state: DudoState) -> None:
        if state.is_terminal():
            returns = state.returns()
            assert sorted(returns) == [-1.0, 1.0] and sum(returns) == 0
            assert state.reveal is not None
            return
        seat = state.current_player()
        assert seat == state.engine.turn
        legal = state.legal_actions()
        assert legal == sorted(legal)
        engine_legal = list(state.engine.legal_actions(seat))
        assert [game.int_to_action(action) for action in legal] == sorted(
            engine_legal, key=game.action_to_int
        )
        assert {game.action_to_int(action) for action in engine_legal} == set(legal)
        assert state.legal_actions(1 - seat) == []
        assert state.information_state_string(seat).startswith(f"p{seat} dice:")

    nodes = 0
    for faces in ([1, 1], [6, 2]):
        root = _deal(game, faces[: sum(numdice)])
        nodes += _walk_bidding(root, check)
    assert nodes > 500


def test_get_all_states_and_clones() -> None:
    game = load_game()
    states = get_all_states.get_all_states(
        game, depth_limit=4, include_terminals=True, include_chance_states=True
    )
    assert len(states) > 3000
    for state in list(states.values())[::50]:
        twin = state.clone()
        assert str(twin) == str(state)
        assert twin.history() == state.history()
        if not state.is_chance_node() and not state.is_terminal():
            action = state.legal_actions()[-1]
            child = state.child(action)
            twin.apply_action(action)
            assert str(twin) == str(child) != str(state)
            assert twin.legal_actions() == child.legal_actions()


def test_information_state() -> None:
    game = load_game()
    state = _deal(game, [5, 1])
    state.apply_action(game.action_to_int(Bid(1, 3)))
    state.apply_action(game.action_to_int(Bid(2, 4)))
    assert state.information_state_string(0) == "p0 dice:5 bids:1x3,2x4"
    assert state.information_state_string(1) == "p1 dice:1 bids:1x3,2x4"
    tensor = state.information_state_tensor(0)
    assert len(tensor) == game.information_state_tensor_size() == 2 + 6 + 14
    assert tensor[0] == 1 and tensor[2 + 4] == 1  # player 0, a 5
    # calling ends the round: 2 fours needed, one 1 (wild) only -> bidder (seat 1) loses
    state.apply_action(game.dudo_action)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_calza_heads_up_where_the_rules_allow_it() -> None:
    dudo = load_game("dudo")
    state = _deal(dudo, [4, 4])
    state.apply_action(dudo.action_to_int(Bid(2, 4)))
    assert dudo.calza_action in state.legal_actions()
    exact = state.child(dudo.calza_action)
    assert exact.returns() == [-1.0, 1.0]  # exact: the caller, seat 1, wins
    wrong = _deal(dudo, [4, 5])
    wrong.apply_action(dudo.action_to_int(Bid(2, 4)))
    assert wrong.child(dudo.calza_action).returns() == [1.0, -1.0]
    perudo = load_game("perudo")
    state = _deal(perudo, [4, 4])
    state.apply_action(perudo.action_to_int(Bid(2, 4)))
    assert perudo.calza_action not in state.legal_actions()


def test_cfr_plus_solves_heads_up_perudo() -> None:
    """OpenSpiel's CFR+ (C++, on the exported tree): 35 iterations reach 0.0073."""
    game = load_game()
    policy, value = solve(game, 35)
    assert value < 0.01
    state = _deal(game, [2, 3])
    probabilities = policy.action_probabilities(state)
    assert set(probabilities) == set(state.legal_actions())
    assert sum(probabilities.values()) == pytest.approx(1.0)


def test_exploitability_of_a_function_policy() -> None:
    """Uniform random on the 1v1 tavern round: 0.7516 (the same figure OpenSpiel's Python
    exploitability gives on the Python game itself, which takes ~45 s)."""
    game = load_game("tavern")
    value = exploitability_of(game, uniform)
    assert value == pytest.approx(uniform_exploitability(game))
    assert value == pytest.approx(0.75158, abs=1e-4)
    copy = efg_copy(game)
    assert copy.efg.num_players() == 2


def test_view_policy_reads_our_endgame_policy_through_the_engine_view() -> None:
    endgame = pytest.importorskip("dudo.bots.endgame")
    game = load_game("tavern")
    state = _deal(game, [3, 5])
    fn = view_policy(game, endgame.endgame_policy, fallback=uniform)
    probabilities = fn(state, 0)
    assert set(probabilities) <= set(state.legal_actions())
    assert sum(probabilities.values()) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        view_policy(game, lambda view: None)(state, 0)


def test_openspiel_agrees_a_strategy_solved_on_first_use_is_near_equilibrium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round no preset plays, solved by dudo.bots.solved, judged by OpenSpiel's own
    exploitability through the engine's views (as the hard bot plays it)."""
    from dudo.bots import solved
    from dudo.bots.endgame import endgame_policy

    monkeypatch.setenv("DUDO_ENDGAME_CACHE", str(tmp_path))
    rules = Rules.preset("tavern", wild_ones=False)
    assert rules.preset_name is None
    game = load_rules_game(rules)
    report = endgame_report(game, lambda view: endgame_policy(view, solved.solved_table))
    assert report.exact and report.covered > 0
    assert report.exploitability < 1e-3
    assert uniform_exploitability(game) > 0.3


def test_best_response_values_sum_to_nash_conv() -> None:
    game = load_game("tavern")
    first, second = best_response_values(game, uniform)
    assert (first + second) / 2 == pytest.approx(uniform_exploitability(game))
