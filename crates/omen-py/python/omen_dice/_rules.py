"""The seeds' rule sets from a notebook: their analyses (calculators from a few inputs) and their
reference tables, through the same registry the ``omen`` command, the server and its pages use."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import _omen
from ._render import _html_table, _markdown_table


@dataclass(frozen=True)
class Table:
    """One table an analysis answers with: a caption, column headings and rows of text cells (exact
    fractions written as text, as every face of Omen writes them)."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def _repr_markdown_(self) -> str:
        return f"**{self.caption}**\n\n" + _markdown_table(list(self.columns), [list(r) for r in self.rows])

    def _repr_html_(self) -> str:
        table = _html_table(list(self.columns), [list(r) for r in self.rows])
        return table.replace("<table>", f"<table><caption>{html.escape(self.caption)}</caption>", 1)

    def to_dicts(self) -> list[dict[str, str]]:
        """The rows as dicts keyed by column."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def to_pandas(self):
        """A pandas DataFrame of the rows (pandas must be installed)."""
        try:
            import pandas
        except ImportError as missing:
            raise ImportError("to_pandas() needs pandas: pip install pandas") from missing
        return pandas.DataFrame([list(r) for r in self.rows], columns=list(self.columns))


def rule_sets() -> list[dict[str, Any]]:
    """Every rule set: ``name``, ``description``, its ``analyses`` (``name``, ``summary``, and the
    JSON Schema of their ``inputs`` with defaults) and its reference ``tables`` (``name``, ``summary``)."""
    return json.loads(_omen.rule_sets())


def analyse(
    game: str,
    analysis: str,
    inputs: Mapping[str, Any] | None = None,
    *,
    timeout: float | None = None,
    **limits: int,
) -> list[Table]:
    """Runs a rule set's analysis, e.g. ``analyse("luck", "calculator", {"modifier": -2})``; inputs
    left out take their defaults (see ``rule_sets()``). Raises ``ValueError`` for an unknown rule set
    or analysis and for inputs the analysis refuses, saying why."""
    answer = _omen.analyse(
        game, analysis, json.dumps(dict(inputs or {})), limits=limits, timeout=timeout
    )
    return [
        Table(t["caption"], tuple(t["columns"]), tuple(tuple(r) for r in t["rows"]))
        for t in json.loads(answer)
    ]


def reference_table(game: str, name: str) -> str:
    """The text of a rule set's reference table (a seed's appendix), computed by the engine."""
    return _omen.reference_table(game, name)
