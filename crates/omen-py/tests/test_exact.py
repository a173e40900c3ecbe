"""Exact distributions against values computed by hand or by enumerating every roll in Python."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest

import omen_dice as omen


def enumerate_rolls(sides: list[int], f) -> dict:
    """{outcome: Fraction} by rolling every combination of dice with these sides."""
    counts = Counter(f(roll) for roll in itertools.product(*(range(1, s + 1) for s in sides)))
    total = sum(counts.values())
    return {o: Fraction(c, total) for o, c in sorted(counts.items())}


def test_3d6_counts_are_the_ways_to_make_each_total():
    d = omen.prob("3d6")
    # The number of ways three dice make 3, 4, …, 18 (counted by hand: the triangle, then symmetric).
    ways = [1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1]
    assert d.outcomes == tuple(range(3, 19))
    assert d.denominator == 216
    assert d.quantities == tuple(ways)
    assert all(isinstance(q, int) for q in d.quantities)
    assert d.mean == Fraction(21, 2)
    # Three independent d6, each of variance 35/12.
    assert d.variance == Fraction(35, 4)
    assert d[10] == Fraction(27, 216)


def test_4d6kh3_has_denominator_1296_and_the_enumerated_counts():
    d = omen.prob("4d6kh3")
    assert d.denominator == 1296
    expected = enumerate_rolls([6] * 4, lambda r: sum(r) - min(r))
    assert d.to_dict() == expected
    # Known counts: 18 needs three sixes kept (21 of the 1296 rolls), 3 needs four ones.
    assert d.quantities[d.outcomes.index(18)] == 21
    assert d.quantities[d.outcomes.index(3)] == 1
    assert d.mean == Fraction(15869, 1296)


@pytest.mark.parametrize(
    ("expression", "sides", "f"),
    [
        ("2d20kh1", [20, 20], max),
        ("2d20kl1", [20, 20], min),
        ("abs(1d6-1d6)", [6, 6], lambda r: abs(r[0] - r[1])),
        ("3d4dl1", [4, 4, 4], lambda r: sum(r) - min(r)),
        ("5d6>=5", [6] * 5, lambda r: sum(x >= 5 for x in r)),
        ("4d6>=5f<=1", [6] * 4, lambda r: sum(x >= 5 for x in r) - sum(x <= 1 for x in r)),
        ("2d6ro1", None, None),
    ],
)
def test_against_enumeration(expression, sides, f):
    if sides is None:
        # Reroll a 1 once: each die is 1/6 · d6 + the faces 2–6 at 1/6 each.
        die = {x: Fraction(1, 36) + (Fraction(1, 6) if x > 1 else 0) for x in range(1, 7)}
        expected = Counter()
        for a, b in itertools.product(die, die):
            expected[a + b] += die[a] * die[b]
        assert omen.prob(expression).to_dict() == dict(sorted(expected.items()))
        return
    assert omen.prob(expression).to_dict() == enumerate_rolls(sides, f)


def test_views_agree_with_enumeration_and_answer_between_outcomes():
    d = omen.prob("2d6")
    eq = enumerate_rolls([6, 6], sum)
    for x in range(0, 15):
        assert d.ge[x] == sum((p for o, p in eq.items() if o >= x), Fraction(0))
        assert d.gt[x] == sum((p for o, p in eq.items() if o > x), Fraction(0))
        assert d.le[x] == sum((p for o, p in eq.items() if o <= x), Fraction(0))
        assert d.lt[x] == sum((p for o, p in eq.items() if o < x), Fraction(0))
    assert d.ge[Fraction(15, 2)] == d.ge[8] == Fraction(15, 36)
    assert list(d.ge) == list(d.outcomes)
    assert d.to_dict("le")[12] == 1
    with pytest.raises(ValueError):
        d.view("at-least")


def test_true_false_labels_tuples_and_fractions_are_python_values():
    assert omen.prob("(3d6)>=10").to_dict() == {False: Fraction(3, 8), True: Fraction(5, 8)}
    assert omen.prob("(3d6)>=10").mean == Fraction(5, 8)
    hit = omen.prob('if d6 > 4 then "hit" else "miss"')
    assert hit.to_dict() == {"hit": Fraction(1, 3), "miss": Fraction(2, 3)}
    with pytest.raises(TypeError):
        hit.mean
    pair = omen.prob('(d2, "x")')
    assert pair.to_dict() == {(1, "x"): Fraction(1, 2), (2, "x"): Fraction(1, 2)}
    half = omen.prob("div(1d6, 2)")
    assert half.outcomes == tuple(Fraction(n, 2) for n in range(1, 7))
    assert all(type(o) in (int, Fraction) for o in half.outcomes)
    assert half.mean == Fraction(7, 4)


def test_labels_come_in_the_order_the_script_writes_them_and_have_no_cumulative_views():
    d = omen.prob('let r = d6; if r <= 2 then "miss" else (if r = 6 then "crit" else "hit")')
    assert d.outcomes == ("miss", "crit", "hit")
    assert d.quantities == (2, 1, 3) and d.denominator == 6
    assert not d.ordered and omen.prob("3d6").ordered
    with pytest.raises(TypeError, match="no order"):
        d.ge
    with pytest.raises(ValueError, match="no order"):
        omen.compare([d, "1d6"], view="ge")
    c = omen.compare([d, 'if d2 = 1 then "hit" else "fumble"'])
    assert c.outcomes == ("miss", "crit", "hit", "fumble")
    assert "P(≥)" not in d._repr_markdown_()


def test_a_bound_roll_is_rolled_once():
    d = omen.prob("let x = d6; x + x")
    assert d.to_dict() == {2 * x: Fraction(1, 6) for x in range(1, 7)}


def test_big_denominators_are_exact_python_ints():
    d = omen.prob("1000d6")
    assert sum(d.quantities) == d.denominator
    assert d.probability(1000) == Fraction(1, 6**1000)
    assert d.probability(6000) == Fraction(1, 6**1000)
    assert d.mean == 3500


@pytest.mark.parametrize("n", [1, 14, 15, 30, 1000])
def test_highest_and_lowest_of_many_d20_match_the_closed_form(n):
    # The weight of "the highest of n d20 is x" is xⁿ − (x−1)ⁿ, of "the lowest is x" (21−x)ⁿ −
    # (20−x)ⁿ: computed here by Python's own integers. n = 14 and 15 put the largest weights just
    # below and above 2⁶⁴, where a weight stops crossing to Python as one machine word.
    high = omen.prob(f"{n}d20kh1")
    low = omen.prob(f"{n}d20kl1")
    assert high.denominator == low.denominator == 20**n
    assert high.outcomes == low.outcomes == tuple(range(1, 21))
    assert list(high.quantities) == [x**n - (x - 1) ** n for x in range(1, 21)]
    assert list(low.quantities) == [(21 - x) ** n - (20 - x) ** n for x in range(1, 21)]
    assert all(type(q) is int for q in high.quantities + low.quantities)


def test_weights_around_a_machine_word_cross_exactly():
    # 2⁶⁴ − 1, 2⁶⁴ and 2⁶⁴ + 1 ways: one two-sided die of 2⁶⁴ + 1 faces is out of reach, so a sum
    # whose quantities straddle the boundary: 64 coins have C(64, k) ways each, 2⁶⁴ in all.
    d = omen.prob("64d2")
    assert d.denominator == 2**64
    assert list(d.quantities) == [math.comb(64, k) for k in range(65)]


def test_params_and_dialects():
    script = "param n = 3; (n)d6"
    assert omen.prob(script, params={"n": 2}) == omen.prob("2d6")
    assert omen.prob(script) == omen.prob("3d6")
    assert omen.prob('param who = "me"; who', params={"who": "you"}).to_dict() == {"you": 1}
    # Roll20's `>3` includes 3.
    assert omen.prob("3d6>3", dialect="roll20") == omen.prob("3d6>=3")
    assert "roll20" in omen.DIALECTS
    with pytest.raises(ValueError, match="unknown dialect"):
        omen.prob("1d6", dialect="nope")
    with pytest.raises(ValueError, match="64-bit"):
        omen.prob(script, params={"n": 2**70})
    with pytest.raises(TypeError):
        omen.prob(script, params={"n": 1.5})


def test_a_script_from_a_file(tmp_path):
    path = tmp_path / "check.omen"
    path.write_text("param dv = 10;\n(1d20 + 3) >= dv\n", encoding="utf-8")
    d = omen.prob(path, params={"dv": 15})
    assert d[True] == Fraction(9, 20)


def test_compare_side_by_side():
    c = omen.compare(["1d6", "1d8"], view="ge")
    assert c.labels == ["1d6", "1d8"]
    assert c.outcomes == tuple(range(1, 9))
    assert c.to_dict()["1d6"][7] == 0
    assert c.to_dict()["1d8"][7] == Fraction(2, 8)
    named = omen.compare({"advantage": "2d20kh1", "plain": omen.prob("1d20")}, view="eq")
    assert named.labels == ["advantage", "plain"]
    assert named.to_dict()["plain"][20] == Fraction(1, 20)
    assert "<table" in named._repr_html_()


def test_a_parameter_range_compares_one_column_per_value():
    c = omen.compare("param n = 1; (n)d6", params={"n": range(1, 4)}, view="ge")
    assert c.labels == ["n=1", "n=2", "n=3"]
    assert c.to_dict()["n=3"] == omen.prob("3d6").to_dict("ge") | {1: 1, 2: 1}
    both = omen.compare(["param n = 1; (n)d4", "param n = 1; (n)d6"], params={"n": [1, 2]})
    assert len(both.labels) == 4 and both.labels[1] == "param n = 1; (n)d4 (n=2)"
    with pytest.raises(ValueError, match="one parameter"):
        omen.compare("param a = 1; param b = 1; a + b", params={"a": [1], "b": [2]})


def test_reprs_show_a_table_then_a_chart():
    d = omen.prob("2d6")
    md = d._repr_markdown_()
    assert md.index("| outcome | P(=)") < md.index("data:image/svg+xml;base64,")
    assert "| 7 | 1/6 |" in md
    page = d._repr_html_()
    assert page.index("<table") < page.index("<svg")
    assert "Distribution('2d6'" in repr(d)


def test_to_pandas_and_to_icepool_when_installed_else_a_clear_import_error(monkeypatch):
    d = omen.prob("2d6")
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            d.to_pandas()
    else:
        frame = d.to_pandas()
        assert frame.loc[7, "eq"] == Fraction(1, 6)
        assert frame.loc[12, "le"] == 1
    # Whatever is installed, a missing package gives the same clear error.
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    monkeypatch.setitem(__import__("sys").modules, "icepool", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        d.to_pandas()
    with pytest.raises(ImportError, match="pip install icepool"):
        d.to_icepool()


@pytest.mark.parametrize(
    "expression, limits",
    [
        ("3d6", {}),  # small: computed on the calling (main) thread
        ("100d20kh50", {}),  # more than the calling thread's slice of work: on the worker
        ("fn f(n) = if n <= 0 then d6 else d6 + f(n - 1); f(3)", {}),  # functions: on the worker
        ('if d6 >= 5 then "hit" else "miss"', {}),
        ("1000d6", {"work_budget": 10}),  # refused by the budget given, wherever it runs
        ("3d", {}),  # refused while reading
    ],
)
def test_the_main_thread_and_another_thread_give_the_same_answer(expression, limits):
    """A small question is answered on Python's main thread, without the hand-off to Omen's worker
    thread that costs more than it does; a larger one, or a program with functions of its own, goes
    to the worker. Either way the answer, or the error, is the one the worker gives."""
    import threading

    def ask():
        try:
            d = omen.prob(expression, **limits)
            return ("answer", d.outcomes, d.quantities, d.denominator)
        except omen.OmenError as error:
            return ("error", error.kind, str(error))

    here = ask()
    assert threading.current_thread() is threading.main_thread()
    there = []
    worker = threading.Thread(target=lambda: there.append(ask()))
    worker.start()
    worker.join()
    assert here == there[0]
    if expression == "3d6":
        assert here[1:] == (tuple(range(3, 19)), (1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1), 216)
