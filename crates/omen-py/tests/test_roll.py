"""Rolls: a seed replays a roll exactly; given dice are used in order."""

from __future__ import annotations

import warnings

import pytest

import omen_dice as omen


def test_a_seed_replays_the_roll():
    first = omen.roll("10d12>=8f<=1 + 4d6kh3", seed=12345)
    again = omen.roll("10d12>=8f<=1 + 4d6kh3", seed=12345)
    assert first == again
    assert first.tree == again.tree
    other = [omen.roll("10d12", seed=s).total for s in range(20)]
    assert len(set(other)) > 1


def test_a_fresh_seed_is_kept_and_replays():
    r = omen.roll("3d6")
    assert isinstance(r.seed, int) and 0 <= r.seed < 2**64
    assert omen.roll("3d6", seed=r.seed) == r


def test_given_dice_are_rolled_in_order():
    r = omen.roll("4d6kh3", dice=[6, 2, 5, 6])
    assert r.total == 17
    (term,) = r.dice_terms()
    assert [d["value"] for d in term["dice"]] == [6, 2, 5, 6]
    assert "dropped" in term["dice"][1]["marks"]
    assert "2(dropped)" in r.transcript()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        omen.roll("1d6", dice=[3, 4])
    assert any("not used" in str(w.message) for w in caught)


def test_totals_are_python_values():
    assert omen.roll("(3d6)>=3", seed=1).total is True
    assert omen.roll('"a"', seed=1).total == "a"
    assert omen.roll('(1, "b")', seed=1).total == (1, "b")
    assert isinstance(omen.roll("div(1, 2)", seed=1).total, __import__("fractions").Fraction)


def test_a_bad_seed_is_refused():
    with pytest.raises(ValueError):
        omen.roll("1d6", seed=-1)
    with pytest.raises(ValueError):
        omen.roll("1d6", seed=2**64)


def test_a_roll_shows_in_a_notebook():
    r = omen.roll("4d6kh3", dice=[6, 2, 5, 6])
    assert "17" in r._repr_markdown_() and "<pre>" in r._repr_html_()
