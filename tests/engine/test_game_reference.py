"""The engine against a direct, slow transcription of RULES.md.

The engine decides legality with ranked ladders and plays rounds with incremental state; the
reference below re-derives every decision from the words of RULES.md (the raise orders as
comparisons of quantities and faces, the count from the cups, the loser, the next opener,
the palifico round) and random games under random rules check that both always agree.
"""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from dudo.bids import Bid
from dudo.dice import ScriptedDice
from dudo.game import (
    CALZA,
    DUDO,
    Action,
    BidPlaced,
    Call,
    Game,
    GameOver,
    Phase,
    PlayerOut,
    Revealed,
    RoundStarted,
)
from dudo.hands import Hand
from dudo.rules import PRESETS, Rules
from randomplay import (
    game_rules,
    mid_game_starts,
    new_game,
    players,
    random_bid,
    random_hand,
    random_play,
    seeds,
)

PROPERTY = settings(max_examples=150, deadline=None)


def next_alive(counts: list[int] | tuple[int, ...], seat: int) -> int:
    """The next seat clockwise (higher number, wrapping) that has dice."""
    players = len(counts)
    for step in range(1, players + 1):
        if counts[(seat + step) % players]:
            return (seat + step) % players
    raise AssertionError("nobody has dice")


def plain_raise(new: Bid, old: Bid) -> bool:
    """A higher quantity on any face, or the same quantity on a higher face."""
    return new.quantity > old.quantity or (new.quantity == old.quantity and new.face > old.face)


def halve_raise(new: Bid, old: Bid) -> bool:
    if old.face != 1 and new.face == 1:
        return new.quantity >= math.ceil(old.quantity / 2)
    if old.face == 1 and new.face != 1:
        return new.quantity >= 2 * old.quantity + 1
    if old.face == 1 and new.face == 1:
        return new.quantity > old.quantity
    return plain_raise(new, old)


# RULES.md's Common Hand table, lowest category first: (hand, faces named, dice it needs)
POKER_TABLE = [
    ("pair", 1, 2),
    ("two_pair", 2, 4),
    ("three", 1, 3),
    ("low_straight", 0, 5),
    ("high_straight", 0, 5),
    ("full_house", 2, 5),
    ("four", 1, 4),
    ("five", 1, 5),
]
CATEGORY = [name for name, _, _ in POKER_TABLE]


def reference_hand_is_valid(hand: Hand) -> bool:
    """The table's faces column: the right number of faces 1..6, F1 > F2 for two pair and
    F1 != F2 for a full house."""
    if hand.category not in CATEGORY:
        return False
    named = POKER_TABLE[CATEGORY.index(hand.category)][1]
    faces = hand.faces
    if len(faces) != named or not all(type(f) is int and 1 <= f <= 6 for f in faces):
        return False
    if hand.category == "two_pair":
        return faces[0] > faces[1]
    if hand.category == "full_house":
        return faces[0] != faces[1]
    return True


def poker_raise(new: Hand, old: Hand) -> bool:
    """A higher category, or the same category with a higher F (or F1, then F2)."""
    if new.category != old.category:
        return CATEGORY.index(new.category) > CATEGORY.index(old.category)
    if not new.faces:  # each straight is a single hand
        return False
    if new.faces[0] != old.faces[0]:
        return new.faces[0] > old.faces[0]
    return len(new.faces) == 2 and new.faces[1] > old.faces[1]


def poker_holds(hand: Hand, cups: tuple[tuple[int, ...], ...]) -> bool:
    """Whether all dice together show what the table's "holds when" column says."""
    dice = [die for cup in cups for die in cup]
    faces = hand.faces
    wanted = {
        "pair": lambda: dice.count(faces[0]) >= 2,
        "two_pair": lambda: dice.count(faces[0]) >= 2 and dice.count(faces[1]) >= 2,
        "three": lambda: dice.count(faces[0]) >= 3,
        "low_straight": lambda: all(face in dice for face in (1, 2, 3, 4, 5)),
        "high_straight": lambda: all(face in dice for face in (2, 3, 4, 5, 6)),
        "full_house": lambda: dice.count(faces[0]) >= 3 and dice.count(faces[1]) >= 2,
        "four": lambda: dice.count(faces[0]) >= 4,
        "five": lambda: dice.count(faces[0]) >= 5,
    }
    return wanted[hand.category]()


def reference_poker_reason(game: Game, action: Action) -> str | None:
    if not isinstance(action, Hand) or not reference_hand_is_valid(action):
        return "bad_bid"
    standing = game.bids[-1][1] if game.bids else None
    if standing is not None:
        assert isinstance(standing, Hand)
        if not poker_raise(action, standing):
            return "not_a_raise"
    needs = POKER_TABLE[CATEGORY.index(action.category)][2]
    if game.rules.cap_at_dice_in_play and needs > sum(game.dice_counts):
        return "over_cap"
    return None


def reference_reason(game: Game, seat: int, action: Action) -> str | None:
    """RULES.md's reason codes, in its order, from the public state of ``game``."""
    rules = game.rules
    if game.phase is Phase.OVER:
        return "game_over"
    if game.phase is Phase.ROLL:
        return "round_over"
    counts = game.dice_counts
    standing = game.bids[-1][1] if game.bids else None
    bidder = game.bids[-1][0] if game.bids else None
    alive = sum(1 for count in counts if count)
    if not counts[seat]:
        return "player_out"
    if isinstance(action, Call):
        if standing is None:
            return "no_bid"
        if seat == bidder:
            return "bidder_cannot_call"
        if action is CALZA:
            if rules.calza == "off" or game.palifico or alive < rules.calza_min_players:
                return "calza_not_allowed"
            if rules.calza == "any_time":
                return None
        return "not_your_turn" if seat != game.turn else None
    if seat != game.turn:
        return "not_your_turn"
    if rules.bids == "poker":
        return reference_poker_reason(game, action)
    if not isinstance(action, Bid):
        return "bad_bid"  # a hand in a quantity game
    assert standing is None or isinstance(standing, Bid)
    if action.quantity < 1 or not 1 <= action.face <= 6:
        return "bad_bid"
    if action.face == 1:
        if rules.ones_bids == "never":
            allowed = False
        elif standing is None and game.palifico:
            allowed = rules.palifico_open_on_ones
        elif standing is None:
            allowed = rules.ones_bids != "halve"
        else:
            allowed = True
        if not allowed:
            return "ones_not_allowed"
    if standing is not None:
        free = rules.palifico_one_die_may_change_face and counts[seat] == 1
        if game.palifico and action.face != standing.face and not free:
            return "face_locked"
        if game.palifico or rules.ones_bids != "halve":
            raises = plain_raise(action, standing)
        else:
            raises = halve_raise(action, standing)
        if not raises:
            return "not_a_raise"
    in_play = sum(counts)
    if rules.cap_at_dice_in_play:
        limit = in_play
    elif action.face == 1:
        limit = in_play  # without the cap: at most the dice in play of ones...
    else:
        limit = 2 * in_play + 1  # ...and twice the dice in play plus one of a face 2..6
    if action.quantity > limit:
        return "over_cap"
    return None


@PROPERTY
@given(game_rules(), players, seeds, st.data())
def test_reason_follows_rules_md(
    rules: Rules, players: int, seed: int, data: st.DataObject
) -> None:
    game, rng = new_game(rules, players, seed, **data.draw(mid_game_starts(rules, players)))
    check = random.Random(f"reference {seed}")
    for _step in random_play(game, rng):
        for seat in range(players):
            legal = game.legal_actions(seat)
            actions: list[Action] = (
                [random_bid(check) for _ in range(6)]
                + [random_hand(check) for _ in range(6)]
                + [DUDO, CALZA]
            )
            if legal:
                actions += [legal[check.randrange(len(legal))] for _ in range(3)]
            if seat == game.turn and game.poker:
                actions += [
                    Hand(name, faces)
                    for name in [*CATEGORY, "flush"]
                    for faces in [(), (1,), (6,), (0,), (7,), (5, 2), (2, 5), (3, 3)]
                ]
            elif seat == game.turn and isinstance(game.standing, Bid):
                # the neighbourhood of the standing bid, where the orders differ
                q = game.standing.quantity
                actions += [
                    Bid(quantity, face)
                    for quantity in range(max(0, q // 2 - 1), 2 * q + 3)
                    for face in range(1, 7)
                ]
            for action in actions:
                assert game.reason(seat, action) == reference_reason(game, seat, action), (
                    seat,
                    action,
                    game,
                )


@PROPERTY
@given(game_rules(), players, seeds, st.data())
def test_rounds_follow_rules_md(rules: Rules, players: int, seed: int, data: st.DataObject) -> None:
    start = data.draw(mid_game_starts(rules, players))
    game, rng = new_game(rules, players, seed, **start)
    points = list(start.get("points", [0] * players))
    used = set(start.get("palifico_used", ()))
    round_number = 1
    header = game.round_header()
    assert header.number == 1 and not header.palifico
    assert header.wild == rules.wild_ones
    ones_bid = False
    cups: tuple[tuple[int, ...], ...] = ()
    for step in random_play(game, rng):
        counts = list(step.counts_before)
        if step.action is None:  # a roll
            cups = game.cups
            assert [len(cup) for cup in cups] == counts
            assert game.turn == game.opener == header.opener
            assert game.palifico == header.palifico
            ones_bid = False
            continue
        assert step.seat is not None
        if isinstance(step.action, Hand):
            assert step.events == (BidPlaced(step.seat, step.action),)
            assert game.turn == next_alive(counts, step.seat)
            continue
        if isinstance(step.action, Bid):
            assert step.events == (BidPlaced(step.seat, step.action),)
            ones_bid = ones_bid or step.action.face == 1
            assert game.turn == next_alive(counts, step.seat)
            continue
        # a call: reveal, maybe out, then game over or the next round
        reveal, *rest = step.events
        assert isinstance(reveal, Revealed)
        caller, call = step.seat, step.action
        bidder, bid = reveal.bidder, reveal.bid
        assert (reveal.caller, reveal.call, reveal.cups) == (caller, call, cups)
        palifico = header.palifico
        wild = rules.wild_ones and not palifico and not (rules.ones_bids == "lock" and ones_bid)
        loser: int | None
        loss = 1
        if isinstance(bid, Hand):
            assert rules.bids == "poker" and call is DUDO and reveal.count is None
            holds = poker_holds(bid, cups)
            assert reveal.outcome == ("holds" if holds else "fails")
            loser = caller if holds else bidder
            opener = loser
            count = 0
        else:
            count = sum(
                1
                for cup in cups
                for die in cup
                if die == bid.face or (wild and die == 1 and bid.face != 1)
            )
            assert (reveal.count, reveal.wild) == (count, wild)
        if isinstance(bid, Hand):
            pass
        elif call is DUDO:
            holds = count >= bid.quantity
            assert reveal.outcome == ("holds" if holds else "fails")
            loser = caller if holds else bidder
            if rules.loss_by_difference:
                loss = max(1, abs(count - bid.quantity))
            opener = loser
        else:
            exact = count == bid.quantity
            assert reveal.outcome == ("exact" if exact else "not_exact")
            loser = None if exact else caller
            opener = caller
        assert reveal.loser == loser
        before = list(counts)
        if rules.format == "points":
            if loser is not None:
                points[loser] += loss
            assert reveal.points == tuple(points)
        elif loser is None:
            counts[caller] = min(rules.starting_dice, counts[caller] + 1)
        else:
            counts[loser] = max(0, counts[loser] - loss)
        assert list(reveal.dice_counts) == counts == game.dice_counts
        assert game.points == points
        out = loser is not None and rules.format == "elimination" and counts[loser] == 0
        outs = [event for event in rest if isinstance(event, PlayerOut)]
        assert outs == ([PlayerOut(caller if loser is None else loser)] if out else [])
        alive = [seat for seat, count_ in enumerate(counts) if count_]
        if rules.format == "elimination" and len(alive) == 1:
            assert rest[-1] == GameOver((alive[0],)) and game.is_over
            continue
        if rules.format == "points" and round_number == rules.points_rounds:
            fewest = min(points)
            assert rest[-1] == GameOver(tuple(s for s, p in enumerate(points) if p == fewest))
            assert game.is_over
            continue
        # the next round
        round_number += 1
        if not counts[opener]:
            opener = next_alive(counts, opener)
        palifico_next = (
            rules.palifico
            and loser is not None
            and before[loser] > 1
            and counts[loser] == 1
            and not (rules.palifico_once_per_player and loser in used)
            and len(alive) >= rules.palifico_min_players
        )
        if palifico_next:
            used.add(loser)
        assert isinstance(rest[-1], RoundStarted)
        header = rest[-1]
        assert header == RoundStarted(
            round_number,
            opener,
            palifico_next,
            rules.wild_ones and not palifico_next,
            tuple(counts),
        )
        assert game.palifico_used == used
        assert game.phase is Phase.ROLL


def test_without_the_cap_bids_are_bounded_so_that_every_ones_bid_can_be_answered() -> None:
    # Three dice in play, no cap: faces 2..6 go up to 2*3+1 = 7, ones up to 3. "Four ones"
    # used to be accepted here, and "nine 5s", the only raise back from it, refused.
    rules = PRESETS["perudo"].with_options(cap_at_dice_in_play=False)
    game = Game(rules, 2, dice=ScriptedDice([[[2, 3], [5]]]), dice_counts=[2, 1], opener=0)
    game.roll()
    game.apply(0, Bid(6, 5))
    for seat, bid, reason in [(1, Bid(4, 1), "over_cap"), (1, Bid(3, 1), None)]:
        assert game.reason(seat, bid) == reference_reason(game, seat, bid) == reason
        assert (bid in game.legal_actions(seat)) == (reason is None)
    game.apply(1, Bid(3, 1))
    # back from three ones takes seven of a face: exactly the bound, so there is a way back
    assert list(game.legal_actions(0).bids) == [Bid(7, face) for face in range(2, 7)]
    for bid in (Bid(8, 5), Bid(4, 1)):
        assert game.reason(0, bid) == reference_reason(game, 0, bid) == "over_cap"
    game.apply(0, Bid(7, 5))
