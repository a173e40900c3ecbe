"""One icepool measurement in a fresh interpreter; run by `bench/compare`, not by hand.

Usage: icepool_worker.py PROBLEM_ID OUTPUT_JSON

Imports icepool, then times only the first call that builds the problem's distribution (what a user
waits for after the import), and writes the exact distribution to OUTPUT_JSON as
{"icepool_version", "seconds", "denominator", "quantities": {outcome: quantity}}, with the big integers
as decimal strings. A fresh process per measurement keeps icepool's caches from carrying over between
runs.
"""

import json
import sys
import time

# Denominators such as 6**1000 have more digits than Python's default int/str conversion limit allows.
sys.set_int_max_str_digits(0)
# `n @ die` sums by recursing once per die, so 1000 @ d6 needs more than the default 1,000 frames.
sys.setrecursionlimit(10_000)

import icepool  # noqa: E402 (after the digit limit, so nothing icepool does at import trips over it)

d6, d10, d12, d20 = icepool.d6, icepool.d10, icepool.d12, icepool.d20

# Keep in step with PROBLEMS in bench/compare. `Die.highest(rolls, keep)` is the sum of the `keep`
# highest of `rolls` dice; `n @ die` is the sum of n rolls of die; `explode(depth=n)` allows n extra
# rolls and keeps the last roll as it is (Omen's --explode-depth means the same).
PROBLEMS = {
    "top10of100d6": lambda: d6.highest(100, 10),
    "top50of100d20": lambda: d20.highest(100, 50),
    "top100of200d6": lambda: d6.highest(200, 100),
    "sum1000d6": lambda: 1000 @ d6,
    "net100d12": lambda: 100 @ d12.map(lambda r: (r >= 8) - (r <= 1)),
    "explode10d6": lambda: 10 @ d6.explode(depth=20),
    "l5r10k5": lambda: d10.explode(depth=4).highest(10, 5),
    "l5r8k3": lambda: d10.explode(depth=4).highest(8, 3),
    "tiny3d6": lambda: 3 @ d6,
    "stat4d6kh3": lambda: d6.highest(4, 3),
    "adv2d20": lambda: d20.highest(2, 1),
    "best1000d20": lambda: d20.highest(1000, 1),
    "worst1000d20": lambda: d20.lowest(1000, 1),
    "low90of100d10": lambda: d10.lowest(100, 90),
    "drop50of100d20": lambda: d20.highest(100, 50),
    "wod10d10": lambda: 10 @ d10.map(lambda r: int(r >= 8)),
    # Tens explode into extra dice that count too: a 10 is 1001 (one success, and 1000 to count the
    # chain's tens), so the chain's total modulo 1000 is its number of successes.
    "wod10d10again": lambda: 10
    @ d10.map(lambda r: 1001 if r == 10 else int(r >= 8))
    .explode([1001], depth=20)
    .map(lambda t: t % 1000),
    "shadowrun12d6": lambda: 12 @ d6.map(lambda r: int(r >= 5)),
    "opposed3d6": lambda: 3 @ d6 - 3 @ d6,
    "nestedcount": lambda: d6 @ d6,
    "randomsides": lambda: d6.map(lambda s: 2 @ icepool.d(s)),
    "keepmiddle3d20": lambda: d20.middle(3, 1),
    # Each roll of 18 or more adds a die to the pool (at most 20 extra per die); drop the lowest 9 of
    # the whole pool and count the kept dice showing 19 or less.
    "explodedrop9d20": lambda: d20.explode_to_pool(9, [18, 19, 20], depth=20)
    .lowest(drop=9)
    .keep_outcomes(lambda o: o <= 19)
    .size(),
    "markov": lambda: icepool.Die([0]).map(lambda x: x if x >= 10 else x + d6, repeat="inf"),
}

# The pool problems live beside this file; importing them defines classes only, nothing is computed.
sys.path.insert(0, __import__("os").path.dirname(__file__))
from icepool_pools import POOL_PROBLEMS  # noqa: E402

PROBLEMS.update(POOL_PROBLEMS)


def main() -> None:
    problem, output = sys.argv[1], sys.argv[2]
    build = PROBLEMS[problem]
    start = time.perf_counter()
    die = build()
    # icepool builds a Die eagerly; asking for the denominator makes sure nothing is left pending.
    denominator = die.denominator()
    seconds = time.perf_counter() - start
    result = {
        "icepool_version": icepool.__version__,
        "seconds": seconds,
        "denominator": str(denominator),
        "quantities": {str(outcome): str(quantity) for outcome, quantity in die.items()},
    }
    with open(output, "w", encoding="utf-8") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
