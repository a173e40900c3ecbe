"""docs/python.md runs: its Python blocks in order in one namespace, and each row of its icepool
table gives the same answer on both sides."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

import omen_dice as omen

DOC = Path(__file__).resolve().parents[3] / "docs" / "python.md"


def test_the_python_blocks_run():
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 5
    namespace: dict = {}
    for n, block in enumerate(blocks):
        exec(compile(block, f"docs/python.md block {n}", "exec"), namespace)


def table_rows() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## From icepool", 1)[1]
    return re.findall(r"^\| `(.+?)` \| `(.+?)` \|$", section, re.M)


@pytest.mark.parametrize(("icepool_code", "omen_code"), table_rows())
def test_the_icepool_table(icepool_code, omen_code):
    icepool = pytest.importorskip("icepool")
    theirs = eval(icepool_code, {"icepool": icepool, "d6": icepool.d6, "d10": icepool.d10,
                                 "d12": icepool.d12, "d20": icepool.d20})
    ours = eval(omen_code, {"omen": omen})
    if isinstance(ours, omen.Distribution):
        total = theirs.denominator()
        assert ours.to_dict() == {o: Fraction(q, total) for o, q in theirs.items() if q}
    else:
        assert ours == theirs


def test_the_table_has_the_rows_the_docs_promise():
    rows = [icepool for icepool, _ in table_rows()]
    for needed in ("3 @ d6", "d6.highest(4, 3)", "d10.explode(depth=4)", ".map(", ".probability(", ".mean()"):
        assert any(needed in row for row in rows), needed


def test_the_readmes_python_example_gives_the_answer_it_shows():
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```python\n(.*?)```", readme, re.S)
    *setup, last = [line for line in block.splitlines() if line.strip()]
    expression, shown = last.split("#", 1)
    namespace: dict = {}
    exec("\n".join(setup), namespace)
    value = eval(expression, namespace)
    # `Fraction(25, 108)`: 4d6 keeping the highest three makes 15 or more in 300 of the 1296 rolls (counted by enumeration).
    assert value == Fraction(25, 108) and "Fraction(25, 108)" in shown
