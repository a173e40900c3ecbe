"""icepool's side of the pool problems in `bench/compare`: one roll of a pool read several ways.

Each problem builds one Die whose outcomes are integers, as Omen's script of the same id does: where a
problem reads a pool two ways, both sides fold the pair into one integer (`a * 100 + b`). Joint
readings are custom `MultisetEvaluator`s, icepool's own way to read a pool outcome by outcome; where
icepool has a builtin reading (`largest_count_and_outcome`, `Deck.deal`), it is used.
"""

import icepool
from icepool import MultisetEvaluator, Order

d4, d6, d8, d10, d12 = icepool.d4, icepool.d6, icepool.d8, icepool.d10, icepool.d12


class TopTwoAndThird(MultisetEvaluator):
    """(sum of the two highest dice) * 100 + the third highest, walking from the highest."""

    def initial_state(self, order, outcomes, size):
        if order != Order.Descending:
            raise icepool.UnsupportedOrder()
        return 0, 0, 0  # dice seen, sum of the top two, third

    def next_state(self, state, order, outcome, count):
        seen, top, third = state
        for _ in range(count):
            if seen < 2:
                top += outcome
            elif seen == 2:
                third = outcome
            seen += 1
        return seen, top, third

    def final_outcome(self, state, order, outcomes, size):
        return state[1] * 100 + state[2]


class RunAndWidth(MultisetEvaluator):
    """The longest run of consecutive faces * 10 + the widest set (Yahtzee in one roll)."""

    def initial_state(self, order, outcomes, size):
        if order != Order.Ascending:
            raise icepool.UnsupportedOrder()
        return 0, 0, None, 0  # run, best run, last face shown, widest

    def next_state(self, state, order, outcome, count):
        run, best, last, width = state
        if count > 0:
            run = run + 1 if last is not None and last + 1 == outcome else 1
            best = max(best, run)
            last = outcome
        return run, best, last, max(width, count)

    def final_outcome(self, state, order, outcomes, size):
        return state[1] * 10 + state[3]


class HighestAndCount(MultisetEvaluator):
    """The highest die * 100 + how many dice are 15 or more."""

    def initial_state(self, order, outcomes, size):
        return 0, 0

    def next_state(self, state, order, outcome, count):
        highest, many = state
        if count > 0:
            highest = max(highest, outcome)
            if outcome >= 15:
                many += count
        return highest, many

    def final_outcome(self, state, order, outcomes, size):
        return state[0] * 100 + state[1]


class Sets(MultisetEvaluator):
    """How many faces two or more dice show: the pairs or better (One-Roll Engine's sets)."""

    def initial_state(self, order, outcomes, size):
        return 0

    def next_state(self, state, order, outcome, count):
        return state + (count >= 2)

    def final_outcome(self, state, order, outcomes, size):
        return state


class SixesAndWidth(MultisetEvaluator):
    """(how many dice show 6, the widest set): a Yahtzee roll of the dice not kept."""

    def initial_state(self, order, outcomes, size):
        return 0, 0

    def next_state(self, state, order, outcome, count):
        sixes, width = state
        return (count if outcome == 6 else sixes), max(width, count)

    def final_outcome(self, state, order, outcomes, size):
        return state


def yahtzee_roll(kept):
    """The widest set after rolling the dice not kept, `kept` dice of one face (counted as 6s) kept."""
    if kept >= 5:
        return 5
    rolled = SixesAndWidth()(d6.pool(5 - kept))
    return rolled.map(lambda sixes, width: max(kept + sixes, width))


class Raises(MultisetEvaluator):
    """7th Sea: the most groups each summing to 10 or more. The whole multiset is carried, then solved
    (memoised) by trying the highest die with each minimal set of others that reaches the target."""

    def initial_state(self, order, outcomes, size):
        return ()

    def next_state(self, state, order, outcome, count):
        return state + (outcome,) * count

    def final_outcome(self, state, order, outcomes, size):
        return best_raises(tuple(sorted(state)), 10)


_solved = {}


def best_raises(dice, target):
    if sum(dice) < target or not dice:
        return 0
    if dice in _solved:
        return _solved[dice]
    top, rest = dice[-1], list(dice[:-1])
    best = 0

    def groups(i, need, chosen):
        if need <= 0:
            yield chosen
            return
        for j in range(i, -1, -1):
            if j < len(rest) - 1 and rest[j] == rest[j + 1] and (j + 1) not in chosen:
                continue  # equal dice: take the highest-indexed unused one first
            yield from groups(j - 1, need - rest[j], chosen + (j,))

    for chosen in groups(len(rest) - 1, target - top, ()):
        left = tuple(x for k, x in enumerate(rest) if k not in chosen)
        best = max(best, 1 + best_raises(left, target))
    _solved[dice] = best
    return best


GENESYS = {
    "ability": ["", "s", "s", "ss", "a", "a", "sa", "aa"],
    "proficiency": ["", "s", "s", "ss", "ss", "a", "sa", "sa", "sa", "aa", "aa", "T"],
    "difficulty": ["", "f", "ff", "t", "t", "t", "tt", "ft"],
}


def genesys_code(face):
    """A face's (net successes, net advantages, triumphs, despairs) as one integer that adds up."""
    s = face.count("s") + face.count("T") - face.count("f") - face.count("D")
    a = face.count("a") - face.count("t")
    return s * 1_000_000 + a * 1_000 + face.count("T") * 10 + face.count("D")


def genesys(name):
    return icepool.Die([genesys_code(f) for f in GENESYS[name]])


POOL_PROBLEMS = {
    "cortex4": lambda: TopTwoAndThird()(icepool.Pool([d8, d6, d10, d4])),
    "cortex6": lambda: TopTwoAndThird()(icepool.Pool([d12, d10, d8, d8, d6, d4])),
    "middle3": lambda: icepool.Pool([d10, d8, d6])[1:2].sum(),
    "ore10d10": lambda: d10.pool(10).largest_count_and_outcome().map(lambda w, h: w * 100 + h),
    "wulin10d10": lambda: d10.pool(10).largest_count_and_outcome().map(lambda w, h: w * h),
    "raises8d10": lambda: Raises()(d10.pool(8)),
    "raises10d10": lambda: Raises()(d10.pool(10)),
    "yahtzee5d6": lambda: RunAndWidth()(d6.pool(5)),
    "yahtzee3rolls": lambda: icepool.map(yahtzee_roll, d6.pool(5).largest_count(), repeat=2),
    "glitch20d6": lambda: 20 @ d6.map(lambda r: 100 if r >= 5 else int(r == 1)),
    "genesys": lambda: 3 @ genesys("ability") + 2 @ genesys("proficiency") + 3 @ genesys("difficulty"),
    "yearzero10d6": lambda: 10 @ d6.map(
        lambda r: 1000100 if r == 6 else 10001 if r == 1 else d6.map(lambda x: 100 * (x == 6) + (x == 1))
    ),
    "hand5of52": lambda: icepool.Deck(range(1, 14), times=4).deal(5).largest_count(),
    "stats6x4d6kh3": lambda: HighestAndCount()(d6.highest(4, 3).pool(6)),
    "sets8d6": lambda: Sets()(d6.pool(8)),
}
