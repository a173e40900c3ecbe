"""bench/compare's problems in one Python process: `omen_dice.prob` against icepool's first call.

    bench/python/run [--runs N] [--only ID]... [--json PATH]

For each problem (bench/compare's PROBLEMS, with icepool's code from bench/icepool_worker.py), in
order: icepool's first call that builds the distribution, once, in this process (a second call would
hit the caches icepool keeps; caches filled by earlier problems do carry over, as they would in a
notebook: `drop50of100d20` is `top50of100d20` again for icepool), and in fresh processes
(bench/icepool_worker.py, as bench/compare measures it: `--fresh` of them, 7 by default, fewer
where they would take over about three seconds; the ratio is against their median); then
`omen_dice.prob` `--runs` times, by default as many calls as fit in about a second (5 to 201: a
median of a few calls of 20 µs is noise), Omen keeping no cache between calls (its first call is
shown apart).
All three distributions must be identical, fraction for fraction. First, the overhead of a warm
`prob("3d6")`: the whole call, the bare extension call, and a constant.

Prints a markdown table to stdout; exit 1 when a distribution differs.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1]

sys.set_int_max_str_digits(0)
sys.setrecursionlimit(10_000)  # icepool's `1000 @ d6` recurses once per die


def load(name: str, path: Path):
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


compare = load("bench_compare", BENCH / "compare")
worker = load("bench_icepool_worker", BENCH / "icepool_worker.py")

import icepool  # noqa: E402

import omen_dice  # noqa: E402
from omen_dice import _omen  # noqa: E402


def icepool_probabilities(die) -> dict:
    total = die.denominator()
    return {o: Fraction(q, total) for o, q in die.items() if q}


def timed(f):
    start = time.perf_counter()
    value = f()
    return value, time.perf_counter() - start


def _built(die):
    die.denominator()
    return die


def seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} µs"


def ratio(r: float) -> str:
    return f"{r:.3g}"


def warm(f, calls: int) -> float:
    """The median over 5 batches of `calls` calls, per call."""
    batches = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            f()
        batches.append((time.perf_counter() - start) / calls)
    return statistics.median(batches)


def icepool_fresh(problem_id: str, most: int):
    """icepool's first call in fresh processes: `most` of them, or as many as fit in about three
    seconds when that is fewer (at least one). One process of `1000d20kh1` took anywhere from 0.2
    to 0.4 ms, so the ratio is taken against the median of several."""
    times, spent, fresh = [], 0.0, None
    while len(times) < max(1, most) and (not times or spent < 3.0):
        with tempfile.TemporaryDirectory() as scratch:
            out = Path(scratch) / "icepool.json"
            subprocess.run([sys.executable, str(BENCH / "icepool_worker.py"), problem_id, str(out)],
                           check=True)
            fresh, fresh_s = compare.read_icepool(out)
        times.append(fresh_s)
        spent += fresh_s
    return fresh, times


def calls_for(first_s: float) -> int:
    """How many calls fit in about a second: a call of 20 µs moves by tens of percent with the
    machine's state, so a median of a few is noise, while a call of seconds needs few."""
    return max(5, min(201, int(1.0 / max(first_s, 1e-9))))


def main() -> int:
    ids = [p.id for p in compare.PROBLEMS]
    parser = argparse.ArgumentParser(prog="bench/python/run")
    parser.add_argument("--runs", type=int, default=None,
                        help="calls of omen_dice.prob per problem (default: as many as fit in about "
                             "a second, from 5 to 201)")
    parser.add_argument("--fresh", type=int, default=7,
                        help="fresh icepool processes per problem, their median taken (default 7, "
                             "fewer where they would take over about three seconds)")
    parser.add_argument("--only", action="append", choices=ids, metavar="ID")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()

    # Before the problems: afterwards icepool's caches hold large objects, and the garbage
    # collector's passes over them would be charged to these small calls (about 40 µs of 60 in one run).
    whole = warm(lambda: omen_dice.prob("3d6"), 2000)
    bare = warm(lambda: _omen.prob("3d6", params={}, limits={}), 2000)
    constant = warm(lambda: omen_dice.prob("1"), 2000)

    rows, raw, failed = [], [], False
    for problem in compare.PROBLEMS:
        if args.only and problem.id not in args.only:
            continue
        print(f"{problem.id}…", file=sys.stderr)
        # As the worker of bench/compare: the denominator makes sure nothing is left pending.
        die, icepool_s = timed(lambda: _built(worker.PROBLEMS[problem.id]()))
        fresh, fresh_times = icepool_fresh(problem.id, args.fresh)
        fresh_s = statistics.median(fresh_times)
        limits = {"explode_depth": problem.explode_depth} if problem.explode_depth else {}
        first, first_s = timed(lambda: omen_dice.prob(problem.omen, **limits))
        runs = args.runs or calls_for(first_s)
        times = [timed(lambda: omen_dice.prob(problem.omen, **limits))[1] for _ in range(runs)]
        omen_s = statistics.median(times)
        ours = {o: p for o, p in first.to_dict().items() if p}
        same = ours == icepool_probabilities(die) == {compare.outcome_key(o): p for o, p in fresh.items()}
        failed |= not same
        rows.append(
            f"| {problem.id} | `{problem.omen}` | {seconds(icepool_s)} | {seconds(fresh_s)} | "
            f"{seconds(first_s)} | {seconds(omen_s)} | {ratio(fresh_s / omen_s)} | "
            f"{'yes' if same else '**NO**'} |"
        )
        raw.append({"id": problem.id, "icepool": icepool_s, "icepool_fresh": fresh_s, "icepool_fresh_runs": fresh_times, "omen_first": first_s, "omen": times,
                    "identical": same})

    print(f"omen_dice {omen_dice.__version__}, icepool {icepool.__version__}, Python "
          f"{platform.python_version()}, {platform.machine()}, "
          f"runs {args.runs or 'about a second per problem (5 to 201)'}\n")
    print("| problem | Omen | icepool first call, this process | icepool first call, fresh process (median) "
          "| omen_dice first call | omen_dice median | ratio (fresh icepool / median) | identical |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nwarm `prob(\"3d6\")`: {seconds(whole)} per call; the extension alone "
          f"(`_omen.prob`, no Python wrapper) {seconds(bare)}; `prob(\"1\")` {seconds(constant)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"problems": raw, "warm_3d6": whole, "bare_3d6": bare, "constant": constant}, f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
