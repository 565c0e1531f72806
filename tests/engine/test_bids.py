"""Bids: parsing and printing, the three raise orders, and the ladders built on them."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dudo.bids import (
    RANK,
    BadBidText,
    Bid,
    Order,
    halve_rank,
    ladder,
    no_ones_rank,
    plain_rank,
    quantity_limits,
)
from dudo.printable import MOST_QUOTED

# -- parsing and printing ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4x5", Bid(4, 5)),
        ("4 5s", Bid(4, 5)),
        ("4 5", Bid(4, 5)),
        ("four 5s", Bid(4, 5)),
        ("three aces", Bid(3, 1)),
        ("4*5", Bid(4, 5)),
        ("4×5", Bid(4, 5)),
        ("4X5", Bid(4, 5)),
        ("  4 x 5  ", Bid(4, 5)),
        ("4 5's", Bid(4, 5)),
        ("Four Sixes", Bid(4, 6)),
        ("one ace", Bid(1, 1)),
        ("twelve 6s", Bid(12, 6)),
        ("twenty deuces", Bid(20, 2)),
        ("13x4", Bid(13, 4)),
    ],
)
def test_parse_accepts_the_ways_people_type_bids(text: str, expected: Bid) -> None:
    assert Bid.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "4",
        "x5",
        "4x",
        "4xx5",
        "4 5 6",
        "banana",
        "4 bananas",
        "four",
        "-1x5",
        "4.5x5",
        "4x5x",
        "4 5ss",
        "twenty-one 5s",
        "x",
        "4,5",
        "4/5",
        "fivex",
    ],
)
def test_parse_rejects_garbage_quoting_the_input(text: str) -> None:
    with pytest.raises(BadBidText) as caught:
        Bid.parse(text)
    assert isinstance(caught.value, ValueError)
    assert repr(text) in str(caught.value)


def test_str_and_repr() -> None:
    bid = Bid(4, 5)
    assert str(bid) == "4x5"
    assert repr(bid) == "Bid.parse('4x5')"
    assert eval(repr(bid)) == bid


@pytest.mark.parametrize(
    ("bid", "words"),
    [
        (Bid(4, 5), "four 5s"),
        (Bid(1, 6), "one 6"),
        (Bid(3, 1), "three aces"),
        (Bid(1, 1), "one ace"),
        (Bid(20, 2), "twenty 2s"),
        (Bid(25, 2), "25 2s"),
    ],
)
def test_words(bid: Bid, words: str) -> None:
    assert bid.words() == words


@given(st.integers(0, 500), st.integers(1, 6))
def test_str_repr_and_words_paste_back(quantity: int, face: int) -> None:
    bid = Bid(quantity, face)
    assert Bid.parse(str(bid)) == bid
    assert eval(repr(bid)) == bid
    if quantity >= 1:
        assert Bid.parse(bid.words()) == bid


def test_repr_pastes_back_for_malformed_bids_too() -> None:
    """Bids with a quantity below 1 are ordinary values (scenario files contain them, the
    game refuses them as ``bad_bid``), so their repr must paste back as well.

    ENGINE BUG: ``repr(Bid(-1, 5))`` is ``Bid.parse('-1x5')``, which raises BadBidText.
    """
    for bid in (Bid(0, 5), Bid(4, 0), Bid(4, 7), Bid(-1, 5)):
        assert eval(repr(bid)) == bid


def test_bids_are_hashable_values() -> None:
    assert Bid(4, 5) == Bid.parse("four 5s")
    assert len({Bid(4, 5), Bid(4, 5), Bid(5, 4)}) == 2
    with pytest.raises(AttributeError):
        Bid(4, 5).quantity = 3  # type: ignore[misc]


# -- the orders ----------------------------------------------------------------------------


def test_halve_order_examples_from_the_rules() -> None:
    # From a face to ones: at least half, rounded up.
    assert halve_rank(Bid(6, 1)) > halve_rank(Bid(11, 3))
    assert not halve_rank(Bid(5, 1)) > halve_rank(Bid(11, 3))
    # From ones back to a face: at least double plus one.
    assert halve_rank(Bid(13, 4)) > halve_rank(Bid(6, 1))
    assert not halve_rank(Bid(12, 6)) > halve_rank(Bid(6, 1))
    # Ones to ones: a higher quantity.
    assert halve_rank(Bid(7, 1)) > halve_rank(Bid(6, 1))
    assert not halve_rank(Bid(6, 1)) > halve_rank(Bid(6, 1))


QUANTITIES = range(1, 41)
FACES = range(2, 7)


def test_halve_order_is_exactly_the_published_rules() -> None:
    for q, f, n in itertools.product(QUANTITIES, FACES, QUANTITIES):
        face_bid, ones = Bid(q, f), Bid(n, 1)
        # face -> ones: at least half the quantity, rounded up
        assert (halve_rank(ones) > halve_rank(face_bid)) == (n >= math.ceil(q / 2)), (q, f, n)
        # ones -> face: at least double plus one
        assert (halve_rank(face_bid) > halve_rank(ones)) == (q >= 2 * n + 1), (n, q, f)
    for q1, f1, q2, f2 in itertools.product(range(1, 15), FACES, range(1, 15), FACES):
        # between faces 2..6: the plain order
        expected = q2 > q1 or (q2 == q1 and f2 > f1)
        assert (halve_rank(Bid(q2, f2)) > halve_rank(Bid(q1, f1))) == expected
    for n1, n2 in itertools.product(QUANTITIES, QUANTITIES):
        assert (halve_rank(Bid(n2, 1)) > halve_rank(Bid(n1, 1))) == (n2 > n1)


def test_plain_and_no_ones_orders_are_quantity_then_face() -> None:
    for q1, f1, q2, f2 in itertools.product(range(1, 15), range(1, 7), repeat=2):
        expected = (q2, f2) > (q1, f1)
        assert (plain_rank(Bid(q2, f2)) > plain_rank(Bid(q1, f1))) == expected
        if f1 != 1 and f2 != 1:
            assert (no_ones_rank(Bid(q2, f2)) > no_ones_rank(Bid(q1, f1))) == expected


# -- ladders -------------------------------------------------------------------------------

LIMITS = (1, 2, 3, 4, 7, 12, 31)


def faces_of(order: Order) -> tuple[int, ...]:
    return (2, 3, 4, 5, 6) if order is Order.NO_ONES else (1, 2, 3, 4, 5, 6)


@pytest.mark.parametrize("order", list(Order))
@pytest.mark.parametrize("limit", LIMITS)
def test_ladder_holds_every_bid_under_the_limit_in_strictly_increasing_rank(
    order: Order, limit: int
) -> None:
    steps = ladder(order, limit)
    rank = RANK[order]
    ranks = [rank(bid) for bid in steps]
    assert all(low < high for low, high in itertools.pairwise(ranks))
    expected = {Bid(q, f) for q in range(1, limit + 1) for f in faces_of(order)}
    assert set(steps) == expected
    assert len(steps) == len(expected)
    for position, bid in enumerate(steps):
        assert steps[position] == bid
        assert steps.index(bid) == position
        assert bid in steps
    assert Bid(limit + 1, 2) not in steps
    with pytest.raises(ValueError):
        steps.index(Bid(limit + 1, 2))
    assert ladder(order, limit) is steps


@pytest.mark.parametrize("order", list(Order))
@pytest.mark.parametrize("limit", LIMITS)
def test_raises_from_any_bid_are_exactly_the_ladder_suffix_above_it(
    order: Order, limit: int
) -> None:
    steps = ladder(order, limit)
    rank = RANK[order]
    for bid in (Bid(q, f) for q in range(1, limit + 3) for f in faces_of(order)):
        position = steps.above(bid)
        raises = [other for other in steps if rank(other) > rank(bid)]
        assert list(steps[position:]) == raises, bid
        assert all(rank(other) <= rank(bid) for other in steps[:position])


def test_ladder_index_respects_start_and_stop() -> None:
    steps = ladder(Order.PLAIN, 3)
    assert steps.index(Bid(2, 1), 6, 7) == 6
    with pytest.raises(ValueError):
        steps.index(Bid(2, 1), 7)
    with pytest.raises(ValueError):
        steps.index(Bid(2, 1), 0, 6)
    with pytest.raises(ValueError):
        steps.index("2x1")
    with pytest.raises(ValueError):
        ladder(Order.NO_ONES, 3).index(Bid(1, 1))


@pytest.mark.parametrize("in_play", [1, 2, 3, 7, 50])
def test_quantity_limits_leave_a_way_back_from_every_ones_bid(in_play: int) -> None:
    assert quantity_limits(in_play, capped=True) == (in_play, in_play)
    faces, ones = quantity_limits(in_play, capped=False)
    assert (faces, ones) == (2 * in_play + 1, in_play)
    # Perudo's way back from n ones is 2n + 1 of a face: it fits for every allowed n
    for aces in range(1, ones + 1):
        assert 2 * aces + 1 <= faces


@pytest.mark.parametrize("order", [Order.PLAIN, Order.HALVE])
@pytest.mark.parametrize(("limit", "ones_limit"), [(3, 1), (7, 3), (31, 15)])
def test_a_ladder_with_fewer_ones_holds_exactly_the_bids_under_both_limits(
    order: Order, limit: int, ones_limit: int
) -> None:
    steps = ladder(order, limit, ones_limit)
    rank = RANK[order]
    assert all(rank(low) < rank(high) for low, high in itertools.pairwise(steps))
    expected = {Bid(q, f) for q in range(1, limit + 1) for f in range(2, 7)}
    expected |= {Bid(q, 1) for q in range(1, ones_limit + 1)}
    assert set(steps) == expected and len(steps) == len(expected)
    assert ladder(order, limit, ones_limit) is steps
    assert Bid(ones_limit + 1, 1) not in steps
    for face in range(1, 7):
        column = steps.column(face)
        top = ones_limit if face == 1 else limit
        assert column == tuple(Bid(q, face) for q in range(1, top + 1))
        assert all(bid is steps[steps.index(bid)] for bid in column)  # the ladder's objects


def test_a_ladder_is_shared_whichever_way_its_limits_are_given() -> None:
    assert ladder(Order.PLAIN, 4) is ladder(Order.PLAIN, 4, 4) is ladder(Order.PLAIN, 4, 9)
    assert ladder(Order.NO_ONES, 4) is ladder(Order.NO_ONES, 4, 2)
    assert ladder(Order.NO_ONES, 4).column(1) == ()


@pytest.mark.parametrize("text", ["9" * 5000 + " 5s", "x" * 5000, "4x" + "9" * 5000])
def test_parse_quotes_a_long_input_cut_short(text: str) -> None:
    # The error repeated the input whole: a 5,000-digit number gave a 5,000-digit message.
    with pytest.raises(BadBidText) as caught:
        Bid.parse(text)
    assert str(caught.value) == (
        f"not a bid: {text[:MOST_QUOTED] + '…'!r} (write it like '4x5' or '4 5s')"
    )
