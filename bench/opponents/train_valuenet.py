"""Train the value networks of ``valuenet.py`` by self-play (issue 24).

One network per pair (opener's dice, responder's dice), pairs in order of the dice in play
(1v1 first, 5v5 last), because a round's outcome is scored by the game value of the pair it
leads to: losing a die at ``(a, b)`` leaves ``(a - 1, b)`` opened by the loser, or ``(b - 1,
a)`` opened by the other. After a pair is trained, a batch of self-play rounds without
exploration estimates its game value ``G(a, b)`` (the opener's chance to win the game) for the
pairs above it.

Each iteration plays a batch of rounds at once, vectorised in numpy: at every step each
mover scores all its legal children with the network, plays by regret matching (with a small
share of uniform exploration), and every visited state becomes two training rows, one per
hand, with a lambda-return target that bootstraps on the mover's expected child value and
ends in the exact outcome of the call. Adam on the squared error.

The rules: ``--rules PRESET`` and ``--rules-option OPTION=VALUE`` as ``dudo``'s ``--set``;
the networks learn any heads-up round of capped quantity bids without calza or palifico (the
:class:`valuenet.Scheme` of the rules: their raise order and whether ones are wild). The
default is the outside check's (``no-wilds`` with wild ones); Perudo and tavern heads-up
(calza and palifico need three players there) are such rounds too. The model records its
scheme, and the bot picks the model of its table's scheme.

Run it in Linux's idle scheduling class (it sets that itself), one process per rule set::

    OPENBLAS_NUM_THREADS=1 python bench/opponents/train_valuenet.py --minutes 60 --hedge 10
    OPENBLAS_NUM_THREADS=1 python bench/opponents/train_valuenet.py --rules perudo \\
        --minutes 45 --hedge 10 --seed 31         # writes models/valuenet-perudo.npz

The budget is shared among the pairs by the dice in play. The committed models, their
commands and training times are in docs/benchmarks.md ("a self-play value-network
opponent"): ``valuenet.npz`` 61 minutes on 2026-12-02 (1.3 MB of float16 weights).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from valuenet import (
    MAX_DICE,
    PLAIN_WILD,
    Layout,
    Net,
    Scheme,
    feature_size,
    features,
    layout,
    load_nets,
    load_scheme,
)

from dudo.rules import Rules, RulesError, parse_override


def roll(rng: np.random.Generator, games: int, dice: int) -> np.ndarray:
    faces = rng.integers(0, 6, (games, dice))
    counts: np.ndarray = (faces[:, :, None] == np.arange(6)).sum(axis=1)
    return counts


class Adam:
    def __init__(self, params: list[np.ndarray], rate: float) -> None:
        self.params = params
        self.rate = rate
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            m_hat = m / (1 - 0.9**self.t)
            v_hat = v / (1 - 0.999**self.t)
            p -= self.rate * m_hat / (np.sqrt(v_hat) + 1e-8)


def train_step(net: Net, opt: Adam, inputs: np.ndarray, targets: np.ndarray) -> float:
    w1, b1, w2, b2, w3, b3 = net.params
    z1 = inputs @ w1 + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2 + b2
    h2 = np.maximum(z2, 0)
    y = np.tanh(h2 @ w3 + b3)[:, 0]
    error = y - targets
    dz3 = (2 * error * (1 - y * y) / len(y))[:, None].astype(np.float32)
    gw3, gb3 = h2.T @ dz3, dz3.sum(0)
    dh2 = (dz3 @ w3.T) * (z2 > 0)
    gw2, gb2 = h1.T @ dh2, dh2.sum(0)
    dh1 = (dh2 @ w2.T) * (z1 > 0)
    gw1, gb1 = inputs.T @ dh1, dh1.sum(0)
    opt.step([gw1, gb1, gw2, gb2, gw3, gb3])
    return float(np.mean(error * error))


def legal_moves(bids: Layout, last: np.ndarray) -> np.ndarray:
    """``(len(last), ladder size + 1)``: which bids (by ladder index) raise each standing
    bid (-1: none, the opening) and, in the last column, whether "dudo" may be called."""
    size = len(bids.quantity)
    actions = np.arange(size + 1)
    legal: np.ndarray = (actions > last[:, None]) & (actions < size)
    legal[last < 0, :size] &= bids.opening  # e.g. Perudo: no opening on ones
    legal[:, size] = last >= 0
    return legal


def self_play(
    net: Net,
    pair: tuple[int, int],
    games: int,
    rng: np.random.Generator,
    explore: float,
    utility: tuple[float, float],
    lam: float,
    hedge: float = 0.0,
    scheme: Scheme = PLAIN_WILD,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``games`` rounds at ``pair``; return the training inputs, their targets, and
    the opener's utility of each round. ``utility`` is the opener's value when the opener
    loses the die and when the responder does."""
    a, b = pair
    bids = layout(scheme, a + b)
    size = len(bids.quantity)
    hands = [roll(rng, games, a), roll(rng, games, b)]
    bits = np.zeros((games, 2, size), dtype=np.float32)
    last = np.full(games, -1)
    turn = np.zeros(games, dtype=np.int64)
    done = np.zeros(games, dtype=bool)
    opener_utility = np.zeros(games, dtype=np.float32)
    steps: list[dict[str, np.ndarray]] = []
    while not done.all():
        live = np.flatnonzero(~done)
        mover = turn[live]
        live_last = last[live]
        legal = legal_moves(bids, live_last)
        row_game, row_action = np.nonzero(legal)
        n_live = len(live)
        # rows: each live state, then every legal child, all from the mover's hand
        child_bits = bits[live[row_game]].copy()
        is_bid = row_action < size
        child_bits[np.flatnonzero(is_bid), mover[row_game[is_bid]], row_action[is_bid]] = 1
        mover_hands = np.where(mover[:, None] == 0, hands[0][live], hands[1][live])
        inputs = features(
            pair,
            np.concatenate([mover_hands, mover_hands[row_game]]),
            np.concatenate([mover, mover[row_game]]),
            np.concatenate([bits[live], child_bits]),
            np.concatenate([live_last, np.where(is_bid, row_action, live_last[row_game])]),
            np.concatenate([np.zeros(n_live, dtype=bool), ~is_bid]),
            np.concatenate([mover, 1 - mover[row_game]]),
            scheme,
        )
        values = net(inputs)
        state_value = values[:n_live]
        table = np.full((n_live, size + 1), -np.inf, dtype=np.float32)
        table[row_game, row_action] = values[n_live:]
        regrets = np.where(legal, np.maximum(table - state_value[:, None], 0), 0)
        total = regrets.sum(1)
        best = np.argmax(table, axis=1)
        uniform = legal / legal.sum(1, keepdims=True)
        if hedge > 0:
            weights = np.exp(hedge * (table - table.max(1, keepdims=True)))
            policy = weights / weights.sum(1, keepdims=True)
        else:
            policy = np.where(
                total[:, None] > 0, regrets / np.maximum(total, 1e-12)[:, None], uniform
            )
        expected = (policy * np.where(legal, table, 0)).sum(1)
        sample = (1 - explore) * policy + explore * uniform
        cumulative = np.cumsum(sample, axis=1)
        pick = rng.random(n_live) * cumulative[:, -1]
        chosen = np.minimum((cumulative <= pick[:, None]).sum(1), size)
        chosen = np.where(legal[np.arange(n_live), chosen], chosen, best)
        steps.append(
            {
                "live": live,
                "bits": bits[live].copy(),
                "last": live_last.copy(),
                "mover": mover.copy(),
                "expected": expected,
                "state_value": state_value,
            }
        )
        calls = chosen == size
        bidders = ~calls
        bid_games = live[bidders]
        bits[bid_games, mover[bidders], chosen[bidders]] = 1
        last[bid_games] = chosen[bidders]
        turn[live] = 1 - mover
        call_games = live[calls]
        if len(call_games):
            standing = last[call_games]
            quantity, face = bids.quantity[standing], bids.face[standing]
            both = hands[0][call_games] + hands[1][call_games]
            wild = (face > 0) & scheme.wild
            count = both[np.arange(len(call_games)), face] + np.where(wild, both[:, 0], 0)
            holds = count >= quantity
            caller = mover[calls]
            loser = np.where(holds, caller, 1 - caller)
            opener_utility[call_games] = np.where(loser == 0, utility[0], utility[1])
            done[call_games] = True
    targets = _targets(pair, hands, steps, bits, last, turn, opener_utility, lam, scheme)
    return (*targets, opener_utility)


def _targets(
    pair: tuple[int, int],
    hands: list[np.ndarray],
    steps: list[dict[str, np.ndarray]],
    bits: np.ndarray,
    last: np.ndarray,
    turn: np.ndarray,
    opener_utility: np.ndarray,
    lam: float,
    scheme: Scheme,
) -> tuple[np.ndarray, np.ndarray]:
    """Lambda-returns, walking each round back from its call, for both hands."""
    games = len(opener_utility)
    returns = np.stack([opener_utility, -opener_utility], axis=1)  # G_{t+1}, by role
    next_value = returns.copy()  # V(role's hand, s_{t+1}): the outcome at the end
    chunks: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    everyone = np.arange(games)
    for role in (0, 1):  # the terminal states
        chunks.append(
            features(
                pair,
                hands[role],
                np.full(games, role),
                bits,
                last,
                np.ones(games, dtype=bool),
                turn,
                scheme,
            )
        )
        targets.append(returns[:, role].copy())
    for step in reversed(steps):
        live, mover = step["live"], step["mover"]
        for role in (0, 1):
            boot = np.where(mover == role, step["expected"], next_value[live, role])
            returns[live, role] = (1 - lam) * boot + lam * returns[live, role]
            chunks.append(
                features(
                    pair,
                    hands[role][live],
                    np.full(len(live), role),
                    step["bits"],
                    step["last"],
                    np.zeros(len(live), dtype=bool),
                    mover,
                    scheme,
                )
            )
            targets.append(returns[live, role].copy())
        next_value[live, mover] = step["state_value"]
    del everyone
    return np.concatenate(chunks), np.concatenate(targets).astype(np.float32)


def train_pair(
    pair: tuple[int, int],
    seconds: float,
    game_value: np.ndarray,
    rng: np.random.Generator,
    args: argparse.Namespace,
    scheme: Scheme,
) -> tuple[Net, float, int]:
    a, b = pair
    opener_loses = 2 * game_value[a - 1, b] - 1
    responder_loses = 1 - 2 * game_value[b - 1, a]
    utility = (float(opener_loses), float(responder_loses))
    net = Net.fresh(feature_size(a + b, scheme), (args.hidden1, args.hidden2), rng)
    opt = Adam(net.params, args.rate)
    started = time.monotonic()
    rounds = iteration = 0
    while time.monotonic() - started < seconds:
        progress = (time.monotonic() - started) / seconds
        opt.rate = args.rate * (1 - 0.8 * progress)
        explore = args.explore * (1 - 0.7 * progress)
        inputs, targets, _ = self_play(
            net, pair, args.batch, rng, explore, utility, args.lam, args.hedge, scheme
        )
        rounds += args.batch
        order = rng.permutation(len(targets))
        losses = []
        for _ in range(args.epochs):
            for start in range(0, len(order), args.minibatch):
                chosen = order[start : start + args.minibatch]
                losses.append(train_step(net, opt, inputs[chosen], targets[chosen]))
        iteration += 1
        if iteration % 20 == 0:
            print(
                f"  {a}v{b} it {iteration} rounds {rounds} loss {np.mean(losses):.4f} "
                f"({time.monotonic() - started:.0f} s)",
                flush=True,
            )
    _, _, outcome = self_play(
        net, pair, args.eval_rounds, rng, 0.0, utility, args.lam, args.hedge, scheme
    )
    # the opener's game value: utility u = 2 P(win) - 1 averaged over rounds
    value = float((outcome.mean() + 1) / 2)
    return net, value, rounds


def save(
    path: Path,
    nets: dict[tuple[int, int], Net],
    game_value: np.ndarray,
    hedge: float,
    scheme: Scheme = PLAIN_WILD,
) -> None:
    arrays: dict[str, np.ndarray] = {
        "game_value": game_value.astype(np.float32),
        "hedge": np.array(hedge, dtype=np.float32),
        "scheme": np.array(scheme.key),
    }
    for (a, b), net in nets.items():
        for i, param in enumerate(net.params):
            arrays[f"{a}{b}_{i}"] = param.astype(np.float16)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=40)
    parser.add_argument("--max-dice", type=int, default=MAX_DICE)
    parser.add_argument(
        "--rules",
        default="no-wilds",
        help="the preset whose heads-up rounds to train for (default: no-wilds, with "
        "--rules-option wild_ones=true unless other options are given)",
    )
    parser.add_argument(
        "--rules-option",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change a rules option, as dudo's --set does (repeatable)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="the model file (default: models/valuenet.npz for the default rules, "
        "models/valuenet-PRESET.npz otherwise)",
    )
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--batch", type=int, default=256, help="rounds per iteration")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--rate", type=float, default=2e-3)
    parser.add_argument("--explore", type=float, default=0.05)
    parser.add_argument("--lam", type=float, default=0.6)
    parser.add_argument("--hedge", type=float, default=0.0, help="Hedge rate; 0: regret matching")
    parser.add_argument(
        "--retrain",
        default="",
        help="only these pairs (e.g. 1v1,1v2), again, into the model at --out",
    )
    parser.add_argument("--hidden1", type=int, default=128)
    parser.add_argument("--hidden2", type=int, default=64)
    parser.add_argument("--eval-rounds", type=int, default=4000)
    args = parser.parse_args()
    scheme = _scheme(parser, args)
    with contextlib.suppress(AttributeError, OSError):  # Linux only
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    rng = np.random.default_rng(args.seed)
    top = args.max_dice
    pairs = sorted(
        ((a, b) for a in range(1, top + 1) for b in range(1, top + 1)),
        key=lambda pair: (pair[0] + pair[1], pair),
    )
    # a game passes each total of dice in play about once, and that visit is shared
    # among the pairs of that total: weigh a pair by its total's size, spread thinly
    sharing = {total: sum(1 for pair in pairs if sum(pair) == total) for total in range(22)}
    weight = {pair: sum(pair) ** 1.5 / sharing[sum(pair)] ** 0.5 for pair in pairs}
    game_value = np.zeros((MAX_DICE + 1, MAX_DICE + 1))  # G(0, y) = 0
    nets: dict[tuple[int, int], Net] = {}
    if args.retrain:  # train these pairs again, keep the rest of the model as it is
        nets = load_nets(args.out)
        if load_scheme(args.out) != scheme:
            parser.error(
                f"{args.out} was trained for {load_scheme(args.out).key}, not {scheme.key}"
            )
        with np.load(args.out) as data:
            game_value = data["game_value"].astype(np.float64)
        wanted = {(int(text[0]), int(text[2])) for text in args.retrain.split(",")}
        pairs = [pair for pair in pairs if pair in wanted]
    budget = args.minutes * 60
    total_weight = sum(weight[pair] for pair in pairs)
    began = time.monotonic()
    for pair in pairs:
        seconds = budget * weight[pair] / total_weight
        started = time.monotonic()
        net, value, rounds = train_pair(pair, seconds, game_value, rng, args, scheme)
        game_value[pair] = value
        nets[pair] = net
        save(args.out, nets, game_value, args.hedge, scheme)
        print(
            f"{pair[0]}v{pair[1]}: {rounds} rounds in {time.monotonic() - started:.0f} s, "
            f"opener's game value {value:.3f}  (total {time.monotonic() - began:.0f} s)",
            flush=True,
        )


def _scheme(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Scheme:
    """The scheme of the rules asked for, and ``args.out`` filled in; a clear error for
    rules the networks cannot learn."""
    options = args.rules_option or (["wild_ones=true"] if args.rules == "no-wilds" else [])
    asked = " ".join([args.rules, *options])
    try:
        rules = Rules.preset(args.rules, **dict(map(parse_override, options)))
    except (RulesError, ValueError) as error:
        parser.error(f"--rules: {error}")
    scheme = Scheme.of(rules)
    heads_up_calza = rules.calza != "off" and rules.calza_min_players <= 2
    heads_up_palifico = rules.palifico and rules.palifico_min_players <= 2
    if scheme is None or heads_up_calza or heads_up_palifico:
        parser.error(
            "the networks learn heads-up rounds of capped quantity bids without calza, "
            "palifico, the ones lock or losing by the difference; "
            f"{asked} is not that"
        )
    if args.out is None:
        name = "valuenet.npz" if scheme == PLAIN_WILD else f"valuenet-{args.rules}.npz"
        args.out = Path(__file__).parent / "models" / name
    print(f"training for {asked}: {scheme.key}", flush=True)
    return scheme


if __name__ == "__main__":
    main()
