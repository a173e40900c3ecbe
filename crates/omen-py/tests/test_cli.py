"""The package against the `omen` command: the same distributions, rolls and limits."""

from __future__ import annotations

import re
import subprocess
from fractions import Fraction

import pytest

import omen_dice as omen

SAMPLE = [
    "3d6",
    "4d6kh3",
    "2d20kh1",
    "10d12>=8f<=1",
    "3d6!",
    "2d10!!",
    "2d6rr<=2",
    "(1d4)d6",
    "{2d20, 1d20+5}kh1",
    "(3d6)>=10",
    "div(1d6, 2)",
    "4d6mt",
    '3d6[fire]+2',
    'if d6 > 4 then "hit" else ("miss", 1)',
    'let r = d6; if r <= 2 then "miss" else (if r = 6 then "crit" else "hit")',
    "fn s(x) = if x >= 10 then x else x + d6; absorb(s, 0)",
]


def cli_outcome(o):
    """An outcome of the CLI's JSON as the package gives it."""
    if isinstance(o, list):
        return tuple(cli_outcome(x) for x in o)
    if isinstance(o, str) and re.fullmatch(r"-?\d+/\d+", o):
        return Fraction(o)
    return o


@pytest.mark.parametrize("expression", SAMPLE)
def test_prob_matches_the_cli(omen_cli, expression):
    report = omen_cli("prob", expression)
    expected = {cli_outcome(r["outcome"]): Fraction(r["probability"]) for r in report["outcomes"]}
    d = omen.prob(expression)
    # In the same order too: numbers ascending, labels as the script writes them.
    assert list(d.to_dict().items()) == list(expected.items())
    assert d.reading == report["reading"]
    assert d.truncated == Fraction(report["depth_limit_probability"])
    if report["mean"] is not None:
        assert d.mean == Fraction(report["mean"])
        assert d.variance == Fraction(report["variance"])


def test_a_limit_reaches_the_engine_as_the_cli_flag_does(omen_cli):
    report = omen_cli("prob", "3d6!", "--explode-depth", "2")
    d = omen.prob("3d6!", explode_depth=2)
    assert d.to_dict() == {r["outcome"]: Fraction(r["probability"]) for r in report["outcomes"]}
    assert d.truncated == Fraction(report["depth_limit_probability"]) > 0


@pytest.mark.parametrize("expression", ["4d6kh3 + 2", "10d12>=8f<=1", "3d6!", '2d6[fire] + 1d4'])
def test_a_seeded_roll_is_the_cli_roll(omen_cli, expression):
    report = omen_cli("roll", expression, "--seed", "7")
    r = omen.roll(expression, seed=7)
    assert r.total == report["result"]
    assert r.tree == report["tree"]
    assert r.reading == report["reading"]


def test_limit_keywords_are_the_cli_limit_flags_with_their_defaults(omen_cli):
    """The keywords are the flags under `Limits:` in `omen prob --help`, with the same defaults."""
    text = subprocess.run(
        [str(omen_cli.binary), "prob", "--help"], capture_output=True, text=True, check=True
    ).stdout
    section = text.split("\nLimits:\n", 1)[1]
    section = re.split(r"\n(?=\S)", section, maxsplit=1)[0]
    blocks = re.split(r"\n(?=\s+--)", "\n" + section)
    flags = {}
    for block in blocks:
        m = re.match(r"\s+--([a-z-]+)", block)
        if m:
            default = re.search(r"\[default: (\d+)\]", block)
            flags[m.group(1).replace("-", "_")] = int(default.group(1)) if default else None
    assert flags == omen.LIMITS
