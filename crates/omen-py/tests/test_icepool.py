"""The same distributions as icepool, where icepool is installed."""

from __future__ import annotations

from fractions import Fraction

import pytest

import omen_dice as omen

icepool = pytest.importorskip("icepool")

d6, d10, d12, d20 = icepool.d6, icepool.d10, icepool.d12, icepool.d20

SAMPLE = [
    ("3d6", lambda: 3 @ d6, {}),
    ("4d6kh3", lambda: d6.highest(4, 3), {}),
    ("2d20kl1", lambda: d20.lowest(2, 1), {}),
    ("10d12>=8f<=1", lambda: 10 @ d12.map(lambda r: (r >= 8) - (r <= 1)), {}),
    ("5d10!!kh3", lambda: d10.explode(depth=4).highest(5, 3), {"explode_depth": 4}),
    ("3d6 - 3d6", lambda: 3 @ d6 - 3 @ d6, {}),
    ("(d6)d6", lambda: d6 @ d6, {}),
    ("2d(d6)", lambda: d6.map(lambda s: 2 @ icepool.d(s)), {}),
]


def probabilities(die) -> dict:
    total = die.denominator()
    return {o: Fraction(q, total) for o, q in die.items() if q}


@pytest.mark.parametrize(("expression", "build", "limits"), SAMPLE, ids=[s[0] for s in SAMPLE])
def test_same_distribution_as_icepool(expression, build, limits):
    ours = omen.prob(expression, **limits)
    assert ours.to_dict() == probabilities(build())


def test_to_icepool_round_trips():
    d = omen.prob("4d6kh3")
    die = d.to_icepool()
    assert probabilities(die) == d.to_dict()
    assert die.mean() == d.mean
