"""The example notebooks run: their code cells are executed in order in one namespace (what a
kernel does, without needing Jupyter), and each cell's last expression is shown as a notebook
would, through its `_repr_markdown_` and `_repr_html_`."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_the_notebook_runs(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    namespace: dict = {"__name__": "__notebook__"}
    shown = 0
    for n, cell in enumerate(c for c in cells if c["cell_type"] == "code"):
        tree = ast.parse("".join(cell["source"]), filename=f"{notebook.name} cell {n}")
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        if last is not None:
            tree.body.pop()
        exec(compile(tree, f"{notebook.name} cell {n}", "exec"), namespace)
        if last is not None:
            value = eval(compile(ast.Expression(last.value), f"{notebook.name} cell {n}", "eval"), namespace)
            if hasattr(value, "_repr_html_"):
                assert value._repr_html_() and value._repr_markdown_()
                shown += 1
    assert shown >= 2
