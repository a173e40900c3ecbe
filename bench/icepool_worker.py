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
}


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
