"""Heads-up endgames: the solver's tree is the engine's game, the shipped strategies are near
equilibrium (measured here by exact best response, from the shipped data), and the loader
answers exactly the covered positions with a distribution over the legal actions."""

from __future__ import annotations

import random

import pytest

from dudo.bids import Bid
from dudo.bots.cfr import Tree
from dudo.bots.endgame import (
    OPENER,
    Endgame,
    Node,
    Terminal,
    build_endgame,
    endgame_policy,
    game_key,
    hands,
    manifest,
    round_signature,
    shipped_table,
    start_round,
)
from dudo.dice import SeededDice
from dudo.game import CALZA, DUDO, Game, Revealed
from dudo.rules import PRESETS, Rules
from dudo.view import view


def _shipped_games() -> list[tuple[str, int, int, bool]]:
    """Every (preset, opener dice, responder dice, palifico) game in the shipped data."""
    games = []
    for entry in manifest():
        sizes, _, palifico = entry["game"].partition("-")
        opener_dice, _, responder_dice = sizes.partition("v")
        games.append(
            (entry["preset"], int(opener_dice), int(responder_dice), palifico == "palifico")
        )
        assert Rules.from_json(entry["rules"]) == PRESETS[entry["preset"]], "stale data"
    return games


SHIPPED = _shipped_games()


def test_the_must_have_games_are_shipped() -> None:
    shipped = {(name, a, b, palifico) for name, a, b, palifico in SHIPPED}
    for name, rules in PRESETS.items():
        if rules.bids == "quantity":  # the solver knows quantity bids only
            assert (name, 1, 1, False) in shipped
    assert ("dudo", 1, 1, True) in shipped


@pytest.fixture(
    scope="module", params=SHIPPED, ids=lambda p: f"{p[0]}-{p[1]}v{p[2]}{'-palifico' * p[3]}"
)
def endgame(request: pytest.FixtureRequest) -> Endgame:
    name, opener_dice, responder_dice, palifico = request.param
    return build_endgame(PRESETS[name], opener_dice, responder_dice, palifico)


def test_start_round_matches_the_engine() -> None:
    game, opener = start_round(PRESETS["dudo"], 1, 1, palifico=True)
    assert game.palifico and game.opener == opener == 1 and game.dice_counts == [1, 1]
    with pytest.raises(ValueError, match="palifico"):
        start_round(PRESETS["tavern"], 1, 1, palifico=True)


def test_hands_are_a_distribution() -> None:
    for dice in (1, 2, 3):
        chance = hands(dice)
        assert sum(p for _, p in chance) == pytest.approx(1.0)
        assert len({hand for hand, _ in chance}) == len(chance)


def test_every_node_has_the_engines_actions_and_every_call_its_outcome(endgame: Endgame) -> None:
    """Replay each public node on a fresh engine game with real dice: same legal actions;
    and each call's payoff in the tree is the engine's reveal."""
    rng = random.Random(7)
    nodes = list(endgame.nodes())
    if len(nodes) > 2000:
        nodes = [nodes[0], *rng.sample(nodes[1:], 2000)]
    visited = 0
    for node in nodes:
        opener_hand = tuple(sorted(rng.randint(1, 6) for _ in range(endgame.opener_dice)))
        responder_hand = tuple(sorted(rng.randint(1, 6) for _ in range(endgame.responder_dice)))
        if endgame.palifico:
            game = _palifico_game(endgame.rules, opener_hand, responder_hand)
        else:
            game = Game(
                endgame.rules, 2, dice_counts=[len(opener_hand), len(responder_hand)], opener=0
            )
            game.roll([opener_hand, responder_hand])
        opener_seat = game.opener
        seats = (opener_seat, 1 - opener_seat)
        for index, bid in enumerate(node.history):
            game.apply(seats[index % 2], bid)
        actor_seat = seats[node.actor]
        assert game.turn == actor_seat
        assert tuple(game.legal_actions(actor_seat)) == node.actions
        assert not game.legal_actions(1 - actor_seat)
        for action, child in zip(node.actions, node.children, strict=True):
            if isinstance(child, Terminal):
                assert child.call is action
                probe = game.copy()
                reveal = probe.apply(actor_seat, action)[0]
                assert isinstance(reveal, Revealed)
                hand_of = {seats[0]: opener_hand, seats[1]: responder_hand}
                utility = child.opener_utility(hand_of[seats[0]], hand_of[seats[1]])
                loser = reveal.loser
                if loser is None:
                    expected = 1 if actor_seat == seats[0] else -1  # exact calza
                else:
                    expected = -1 if loser == seats[0] else 1
                assert utility == expected, (node.history, action)
            else:
                assert isinstance(child, Node) and child.history == (*node.history, action)
        visited += 1
    assert visited > min(150, len(nodes) - 1)


def _palifico_game(
    rules: Rules, opener_hand: tuple[int, ...], responder_hand: tuple[int, ...]
) -> Game:
    """A palifico round reached through the engine: seat 1 drops to one die and opens."""
    assert len(opener_hand) == 1
    game = Game(rules, 2, dice_counts=[len(responder_hand), 2], opener=0)
    game.roll([(6,) * len(responder_hand), (6, 6)])
    game.apply(0, Bid(1, 6))
    game.apply(1, DUDO)
    assert game.palifico and game.opener == 1
    game.roll([responder_hand, opener_hand])
    return game


def test_calza_only_where_the_rules_allow_it_heads_up(endgame: Endgame) -> None:
    calls = {
        action for node in endgame.nodes() for action in node.actions if action in (DUDO, CALZA)
    }
    allowed = (
        endgame.rules.calza != "off"
        and endgame.rules.calza_min_players <= 2
        and not endgame.palifico
    )
    assert calls == ({DUDO, CALZA} if allowed else {DUDO})


def test_shipped_strategy_is_near_equilibrium_and_uniform_is_not(endgame: Endgame) -> None:
    """Exact best responses (both roles) against the strategy read back from the data."""
    table = shipped_table(
        endgame.rules, endgame.opener_dice, endgame.responder_dice, endgame.palifico
    )
    assert table is not None, f"no data shipped for {endgame.key}"
    tree = Tree(endgame)
    shipped = tree.evaluate(tree.from_table(table))
    assert shipped.exploitability < 1e-3
    assert shipped.best_opener >= shipped.value - 1e-9
    assert shipped.best_responder >= -shipped.value - 1e-9
    assert tree.evaluate(tree.uniform()).exploitability > 0.3


def test_best_response_to_an_always_call_strategy_is_worth_a_lot() -> None:
    """A hand-made exploitable strategy: the responder always calls the opening bid."""
    tree = Tree(build_endgame(PRESETS["tavern"], 1, 1))
    strategy = tree.uniform()
    first = tree.levels[1]
    for n, node in enumerate(first.nodes):
        strategy[1][n] = 0.0
        strategy[1][n, :, node.actions.index(DUDO)] = 1.0
    evaluation = tree.evaluate(strategy)
    # Opening "1x2" (or any bid that a die of yours makes true) wins whenever called at once.
    assert evaluation.best_opener > 0.3


# -- the loader ---------------------------------------------------------------------------


def _play_heads_up(
    rules: Rules, seed: int, seats: int = 2, counts: tuple[int, ...] = (1, 1)
) -> list[object]:
    """Play random heads-up rounds and collect the loader's answer at every decision."""
    rng = random.Random(seed)
    game = Game(rules, seats, dice=SeededDice(seed), dice_counts=list(counts), opener=0)
    answers: list[object] = []
    game.roll()
    while not game.is_over and len(answers) < 200:
        seat = game.turn
        seat_view = view(game, seat)
        policy = endgame_policy(seat_view)
        answers.append(policy)
        if policy is not None:
            assert set(policy) <= set(seat_view.legal)
            assert all(p > 0 for p in policy.values())
            assert sum(policy.values()) == pytest.approx(1.0)
            actions = list(policy)
            action = rng.choices(actions, weights=[policy[a] for a in actions])[0]
        else:
            action = rng.choice(list(seat_view.legal))
        game.apply(seat, action)
        if not game.is_over and game.phase.value == "roll":
            break
    return answers


@pytest.mark.parametrize(
    "name", [name for name, rules in PRESETS.items() if rules.bids == "quantity"]
)
def test_policy_covers_heads_up_one_die_rounds(name: str) -> None:
    for seed in range(20):
        answers = _play_heads_up(PRESETS[name], seed)
        assert answers[0] is not None  # the opening is always covered
        assert all(answer is not None for answer in answers)  # on-path play stays covered


def test_policy_covers_other_tables_with_the_same_round_rules() -> None:
    rules = PRESETS["perudo"].with_options(starting_dice=3, first_opener="host")
    assert _play_heads_up(rules, 1)[0] is not None
    # Without calza, the dudo sheet's heads-up round is Perudo's (no calza with two alive).
    no_calza = PRESETS["dudo"].with_options(calza="off")
    assert shipped_table(no_calza, 1, 1) is shipped_table(PRESETS["perudo"], 1, 1)
    # Four seats, two of them out: still a heads-up round.
    game = Game(PRESETS["tavern"], 4, dice=SeededDice(3), dice_counts=[1, 0, 1, 0], opener=2)
    game.roll()
    policy = endgame_policy(view(game, 2))
    assert policy is not None and set(policy) <= set(view(game, 2).legal)


def test_policy_is_none_where_not_covered() -> None:
    rules = PRESETS["perudo"]
    game = Game(rules, 2, dice=SeededDice(1), dice_counts=[2, 2], opener=0)
    game.roll()
    assert endgame_policy(view(game, 0)) is None  # 2v2 is not shipped
    game = Game(rules, 3, dice=SeededDice(1), dice_counts=[1, 1, 1], opener=0)
    game.roll()
    assert endgame_policy(view(game, 0)) is None  # three players alive
    game = Game(rules, 2, dice=SeededDice(1), dice_counts=[1, 1], opener=0)
    game.roll()
    assert endgame_policy(view(game, 1)) is None  # not this seat's turn
    assert endgame_policy(view(game, None)) is None  # a spectator
    uncapped = rules.with_options(cap_at_dice_in_play=False)
    game = Game(uncapped, 2, dice=SeededDice(1), dice_counts=[1, 1], opener=0)
    game.roll()
    # no end to the ladder: the capped twin's strategy plays it (test_bots_endgame_solved)
    capped = Game(rules, 2, dice=SeededDice(1), dice_counts=[1, 1], opener=0)
    capped.roll()
    assert endgame_policy(view(game, 0)) == endgame_policy(view(capped, 0)) is not None
    uncapped = uncapped.with_options(loss_by_difference=True)
    game = Game(uncapped, 2, dice=SeededDice(1), dice_counts=[1, 1], opener=0)
    game.roll()
    assert endgame_policy(view(game, 0)) is None  # a different ladder, and no twin
    game = Game(
        PRESETS["tavern"].with_options(wild_ones=False),
        2,
        dice=SeededDice(1),
        dice_counts=[1, 1],
        opener=0,
    )
    game.roll()
    assert endgame_policy(view(game, 0)) is None  # no preset plays this round
    assert shipped_table(PRESETS["tavern"], 1, 1, palifico=True) is None


def test_policy_in_a_palifico_round() -> None:
    game = _palifico_game(PRESETS["dudo"], (3,), (5,))
    policy = endgame_policy(view(game, 1))
    assert policy is not None
    assert set(policy) <= set(view(game, 1).legal)
    assert game_key(1, 1, True) == "1v1-palifico"


def test_opener_role_is_taken_from_the_round_not_the_seat() -> None:
    rules = PRESETS["no-wilds"]
    table = shipped_table(rules, 1, 1)
    assert table is not None
    game = Game(rules, 2, dice=SeededDice(5), dice_counts=[1, 1], opener=1)
    game.roll()
    policy = endgame_policy(view(game, 1))
    assert policy is not None
    hand = view(game, 1).dice
    entry = table[f"hand={hand[0]}|bids="]
    assert {str(action): p for action, p in policy.items()} == pytest.approx(
        {text: p / sum(entry.values()) for text, p in entry.items()}
    )
    assert OPENER == 0


def test_rules_with_the_same_round_signature_have_the_same_tree() -> None:
    """Why the loader may match on the round signature rather than the whole rules: two
    tables with equal signatures play the same heads-up round, action for action."""
    variants = [
        (PRESETS["dudo"], PRESETS["perudo"].with_options(calza_min_players=2)),
        (PRESETS["perudo"], PRESETS["dudo"].with_options(calza="off", starting_dice=2)),
        (
            PRESETS["tavern"],
            PRESETS["tavern"].with_options(format="points", starting_dice=1, first_opener="host"),
        ),
    ]
    for first, second in variants:
        assert round_signature(first, False) == round_signature(second, False)
        one, two = build_endgame(first, 1, 1), build_endgame(second, 1, 1)
        pairs = zip(one.nodes(), two.nodes(), strict=True)
        assert all(
            a.history == b.history and a.actions == b.actions and len(a.children) == len(b.children)
            for a, b in pairs
        )
        terminals = [
            [c for c in node.children if isinstance(c, Terminal)]
            for node in (*one.nodes(), *two.nodes())
        ]
        assert terminals[: len(terminals) // 2] == terminals[len(terminals) // 2 :]
