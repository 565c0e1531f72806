"""The self-play value-network opponent of bench/opponents/valuenet.py (issue 24): it loads its
committed models, plays only legal moves, is deterministic for a seed, picks the model of its
table's rules, and its trainer's self-play follows the engine's rules and produces targets a
tanh network can fit."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from dudo.bots.table import play_bot_game
from dudo.dice import SeededDice
from dudo.game import DUDO, Game, Phase
from dudo.rules import Rules
from dudo.view import SeatView, view

OPPONENTS = Path(__file__).parents[2] / "bench" / "opponents"
RULES = Rules.preset("no-wilds", wild_ones=True)


def _module(name: str) -> ModuleType:
    if name not in sys.modules:
        sys.path.insert(0, str(OPPONENTS))  # the trainer imports valuenet by name
        spec = importlib.util.spec_from_file_location(name, OPPONENTS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _views(seed: int, count: int) -> list[SeatView]:
    """Views of the seat to move at random points of random heads-up rounds."""
    rng = np.random.default_rng(seed)
    views: list[SeatView] = []
    while len(views) < count:
        counts = [int(rng.integers(1, 6)), int(rng.integers(1, 6))]
        game = Game(RULES, 2, dice=SeededDice(int(rng.integers(1 << 30))), dice_counts=counts)
        game.roll()
        for _ in range(int(rng.integers(0, 6))):
            legal = game.legal_actions(game.turn).bids
            if not legal:
                break
            game.apply(game.turn, legal[int(rng.integers(0, min(len(legal), 8)))])
        views.append(view(game, game.turn))
    return views


def test_the_committed_model_covers_every_pair_up_to_five_dice() -> None:
    valuenet = _module("valuenet")
    nets = valuenet.load_nets()
    assert set(nets) == {(a, b) for a in range(1, 6) for b in range(1, 6)}
    for (a, b), net in nets.items():
        assert net.params[0].shape[0] == valuenet.feature_size(a + b)


def test_it_plays_only_legal_moves_and_is_deterministic_for_a_seed() -> None:
    valuenet = _module("valuenet")
    views = _views(seed=5, count=40)
    first = valuenet.ValueNetBot(seed=11)
    again = valuenet.ValueNetBot(seed=11)
    moves = [first.act(seen) for seen in views]
    assert all(move in seen.legal for move, seen in zip(moves, views, strict=True))
    assert moves == [again.act(seen) for seen in views]


def test_it_uses_its_networks_in_the_rules_it_was_trained_for() -> None:
    valuenet = _module("valuenet")
    bot = valuenet.ValueNetBot(seed=1)
    assert all(bot._network_move(seen) is not None for seen in _views(seed=6, count=10))


def test_regret_matching_plays_positive_regrets_in_proportion_else_uniformly() -> None:
    valuenet = _module("valuenet")
    policy = valuenet.regret_policy(0.0, np.array([0.3, -0.2, 0.1]))
    assert np.allclose(policy, [0.75, 0.0, 0.25])
    assert np.allclose(valuenet.regret_policy(0.5, np.array([0.1, 0.4, -0.3])), [1 / 3] * 3)


def test_a_whole_game_against_itself_ends() -> None:
    valuenet = _module("valuenet")
    bots = [valuenet.ValueNetBot(seed=seat) for seat in range(2)]
    game = Game(RULES, 2, dice=SeededDice(3))
    winners = play_bot_game(game, bots)  # raises BotError on an illegal action
    assert game.phase is Phase.OVER and len(winners) == 1


def test_self_play_targets_lie_within_the_outcomes() -> None:
    trainer = _module("train_valuenet")
    valuenet = _module("valuenet")
    rng = np.random.default_rng(0)
    pair = (2, 1)
    net = valuenet.Net.fresh(valuenet.feature_size(3), (16, 8), rng)
    inputs, targets, outcome = trainer.self_play(net, pair, 32, rng, 0.1, (-0.5, 1.0), 0.6)
    assert inputs.shape == (len(targets), valuenet.feature_size(3))
    assert set(np.unique(outcome)) <= {-0.5, 1.0}
    assert targets.min() >= -1.0 and targets.max() <= 1.0


def test_the_endgame_variant_plays_the_solved_strategy_where_there_is_one() -> None:
    from dudo.bots import solved
    from dudo.bots.endgame import endgame_policy
    from dudo.view import view

    valuenet = _module("valuenet")
    for seed in range(12):
        game = Game(RULES, 2, dice=SeededDice(seed), dice_counts=[1, 1], opener=0)
        game.roll()
        seen = view(game, 0)
        policy = endgame_policy(seen, solved.solved_table)
        assert policy  # the 1v1 round, solved on first use
        move = valuenet.ValueNetEndgames(seed=seed).act(seen)
        assert policy.get(move, 0.0) > 0
    # where no solved strategy reaches, it is the network itself
    for seen in _views(seed=8, count=10):
        if endgame_policy(seen, solved.solved_table) is None:
            plain = valuenet.ValueNetBot(seed=4).act(seen)
            assert valuenet.ValueNetEndgames(seed=4).act(seen) == plain


def test_each_rule_set_of_capped_quantity_bids_has_a_scheme_and_the_rest_none() -> None:
    valuenet = _module("valuenet")
    scheme_of = valuenet.Scheme.of
    assert scheme_of(RULES) == valuenet.PLAIN_WILD
    assert scheme_of(Rules.preset("perudo")).key == "halve/wild"
    assert scheme_of(Rules.preset("tavern")).key == "no_ones/wild"
    assert scheme_of(Rules.preset("no-wilds")).key == "plain/natural"
    assert scheme_of(Rules.preset("common-hand")) is None
    assert scheme_of(Rules.preset("ones-lock")) is None
    assert scheme_of(Rules.preset("tavern", cap_at_dice_in_play=False)) is None
    for name in ("perudo", "tavern", "no-wilds"):
        scheme = scheme_of(Rules.preset(name))
        assert scheme_of(scheme.rules()) == scheme
        assert valuenet.Scheme.from_key(scheme.key) == scheme


def test_the_plain_layout_is_the_first_models_index() -> None:
    """The first model was trained on ``(quantity - 1) * 6 + face - 1``: the plain ladder's
    positions must be exactly that, or the committed model would read other bids."""
    valuenet = _module("valuenet")
    for total in range(2, 11):
        positions = valuenet.PLAIN_WILD.ladder(total).positions
        assert len(positions) == valuenet.ladder_size(total) == 6 * total
        for bid, position in positions.items():
            assert position == (bid.quantity - 1) * 6 + bid.face - 1


def test_the_trainers_legal_moves_are_the_engines_in_every_scheme() -> None:
    """Differential: for every standing bid of a heads-up round (and the opening), the
    trainer's mask is the set of bids and calls the engine allows."""
    trainer = _module("train_valuenet")
    valuenet = _module("valuenet")
    for rules in (RULES, Rules.preset("perudo"), Rules.preset("tavern")):
        scheme = valuenet.Scheme.of(rules)
        for counts in ([1, 1], [2, 3], [5, 4]):
            total = sum(counts)
            bids = scheme.ladder(total)
            masks = trainer.legal_moves(valuenet.layout(scheme, total), np.arange(-1, len(bids)))
            for row, standing in zip(masks, [None, *bids], strict=True):
                game = Game(rules, 2, dice=SeededDice(1), dice_counts=counts, opener=0)
                game.roll()
                if standing is not None and standing in game.legal_actions(0).bids:
                    game.apply(0, standing)
                elif standing is not None:  # not an opening (Perudo's ones): raised to
                    game.apply(0, game.legal_actions(0).bids[0])
                    game.apply(1, standing)
                legal = game.legal_actions(game.turn)
                wanted = {bids.positions[bid] for bid in legal.bids}
                assert set(np.flatnonzero(row[:-1])) == wanted, (rules, counts, standing)
                assert bool(row[-1]) == (DUDO in legal)


def test_self_play_in_perudos_order_never_opens_on_ones_and_fits_its_features() -> None:
    trainer = _module("train_valuenet")
    valuenet = _module("valuenet")
    scheme = valuenet.Scheme.of(Rules.preset("perudo"))
    rng = np.random.default_rng(1)
    net = valuenet.Net.fresh(valuenet.feature_size(4, scheme), (16, 8), rng)
    inputs, targets, outcome = trainer.self_play(
        net, (2, 2), 64, rng, 0.5, (-1.0, 1.0), 0.6, 10.0, scheme
    )
    assert inputs.shape == (len(targets), valuenet.feature_size(4, scheme))
    assert set(np.unique(outcome)) <= {-1.0, 1.0}
    opening = valuenet.layout(scheme, 4).opening
    ones = [bid for bid in scheme.ladder(4) if bid.face == 1]
    assert ones and not any(opening[scheme.ladder(4).positions[bid]] for bid in ones)


def test_a_model_records_its_scheme_and_the_bot_takes_the_tables(tmp_path: Path) -> None:
    trainer = _module("train_valuenet")
    valuenet = _module("valuenet")
    perudo = valuenet.Scheme.of(Rules.preset("perudo"))
    rng = np.random.default_rng(2)
    nets = {(1, 1): valuenet.Net.fresh(valuenet.feature_size(2, perudo), (8, 4), rng)}
    path = tmp_path / "valuenet-perudo.npz"
    trainer.save(path, nets, np.zeros((6, 6)), 10.0, perudo)
    assert valuenet.load_scheme(path) == perudo
    assert valuenet.models(tmp_path) == {perudo: path}
    assert valuenet.load_scheme(valuenet.MODEL) == valuenet.PLAIN_WILD  # says nothing: plain
    bot = valuenet.ValueNetBot(seed=3)
    committed = valuenet.models()
    for name in ("perudo", "tavern", "no-wilds"):
        rules = Rules.preset(name)
        scheme = valuenet.Scheme.of(rules)
        assert bot._model_for(rules) == committed.get(scheme, valuenet.MODEL)
    assert valuenet.ValueNetBot(model=path)._model_for(RULES) == path


def test_the_committed_models_cover_every_pair_in_their_schemes_and_play_legally() -> None:
    valuenet = _module("valuenet")
    committed = valuenet.models()
    assert valuenet.PLAIN_WILD in committed
    for scheme, path in committed.items():
        nets = valuenet.load_nets(path)
        assert set(nets) == {(a, b) for a in range(1, 6) for b in range(1, 6)}
        for (a, b), net in nets.items():
            assert net.params[0].shape[0] == valuenet.feature_size(a + b, scheme)
        rules = scheme.rules()
        bot = valuenet.ValueNetBot(seed=5)
        game = Game(rules, 2, dice=SeededDice(9), dice_counts=[3, 2], opener=0)
        game.roll()
        seen = view(game, 0)
        move = bot._network_move(seen)
        assert move is not None and move in seen.legal
