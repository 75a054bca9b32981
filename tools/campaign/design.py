"""Arm orders per block: a Williams design, seeded.

A Williams square for n arms orders them in n sequences so that every arm appears once in
every position and immediately precedes every other arm exactly once; for an odd n no single
square does that, and the square with its mirror image (2n sequences) does it twice. Blocks
take the sequences in a seeded random order, one full set of sequences after another, and the
arms are assigned to the square's symbols by a seeded permutation: any number of blocks that
is a multiple of the sequence count is exactly balanced.
"""
import random


def williams_sequences(n):
    """The Williams design's sequences for symbols 0..n-1 (n for even n, 2n for odd n)."""
    if n < 1:
        raise ValueError("a design needs at least one arm")
    if n == 1:
        return [[0]]
    # First row 0, 1, n-1, 2, n-2, ...; row r adds r to every symbol (mod n).
    first = [0]
    low, high = 1, n - 1
    take_low = True
    while len(first) < n:
        if take_low:
            first.append(low)
            low += 1
        else:
            first.append(high)
            high -= 1
        take_low = not take_low
    square = [[(x + r) % n for x in first] for r in range(n)]
    if n % 2 == 0:
        return square
    return square + [list(reversed(row)) for row in square]


def block_orders(arms, blocks, seed):
    """For each of `blocks` blocks the order in which `arms` (names) run."""
    rng = random.Random(f"williams:{seed}")
    symbols = list(arms)
    rng.shuffle(symbols)
    sequences = williams_sequences(len(symbols))
    orders = []
    while len(orders) < blocks:
        cycle = list(range(len(sequences)))
        rng.shuffle(cycle)
        for s in cycle:
            if len(orders) == blocks:
                break
            orders.append([symbols[i] for i in sequences[s]])
    return orders


def case_orders(cases, blocks, seed):
    """For each block the order in which the cases run (shuffled per block, seeded)."""
    rng = random.Random(f"cases:{seed}")
    out = []
    for _ in range(blocks):
        order = list(cases)
        rng.shuffle(order)
        out.append(order)
    return out
