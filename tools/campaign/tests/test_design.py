"""The Williams design: every arm in every position equally often, and every arm immediately
preceding every other arm equally often; seeded and reproducible."""
import itertools
from collections import Counter

import pytest

import design


def precedence(orders):
    counts = Counter()
    for order in orders:
        for a, b in zip(order, order[1:]):
            counts[(a, b)] += 1
    return counts


@pytest.mark.parametrize("n", range(2, 8))
def test_square_is_balanced(n):
    seqs = design.williams_sequences(n)
    assert len(seqs) == (n if n % 2 == 0 else 2 * n)
    for seq in seqs:
        assert sorted(seq) == list(range(n))
    reps = len(seqs) // n
    for position in range(n):
        assert Counter(seq[position] for seq in seqs) == {s: reps for s in range(n)}
    counts = precedence(seqs)
    assert set(counts) == {(a, b) for a, b in itertools.permutations(range(n), 2)}
    assert set(counts.values()) == {reps}


@pytest.mark.parametrize("arms", [["a", "b"], ["a", "b", "c"], ["ref", "x", "y", "ref~aa"],
                                  ["p", "q", "r", "s", "t"]])
def test_blocks_balanced_over_full_cycles(arms):
    cycle = len(design.williams_sequences(len(arms)))
    orders = design.block_orders(arms, 3 * cycle, seed=11)
    assert len(orders) == 3 * cycle
    counts = precedence(orders)
    pairs = set(itertools.permutations(arms, 2))
    assert set(counts) == pairs
    assert len(set(counts.values())) == 1  # every arm precedes every other equally often
    for position in range(len(arms)):
        assert len(set(Counter(o[position] for o in orders).values())) == 1
        assert set(o[position] for o in orders) == set(arms)


def test_seeded():
    arms = ["a", "b", "c", "d"]
    assert design.block_orders(arms, 8, 5) == design.block_orders(arms, 8, 5)
    assert design.block_orders(arms, 8, 5) != design.block_orders(arms, 8, 6)
    assert design.case_orders(["x", "y", "z"], 4, 5) == design.case_orders(["x", "y", "z"], 4, 5)


def test_two_arms_alternate_first():
    orders = design.block_orders(["a", "b"], 6, seed=3)
    assert Counter(o[0] for o in orders) == {"a": 3, "b": 3}
