"""Several distributions side by side, one column each, as `omen prob A B C --view ge` shows them."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from . import _render
from ._distribution import VIEWS, Distribution

__all__ = ["Comparison"]


class Comparison:
    """``columns[j][i]`` is the probability the view gives for ``outcomes[i]`` in distribution ``j``
    (labelled ``labels[j]``); outcomes are the union of every distribution's, in order."""

    def __init__(self, labels: list[str], distributions: list[Distribution], view: str = "eq"):
        if view not in VIEWS:
            raise ValueError(f"unknown view {view!r}; the views are {', '.join(VIEWS)}")
        self.labels = list(labels)
        self.distributions = list(distributions)
        self.view = view
        # Each distribution's outcomes in its own order, a later one's new outcomes after.
        outcomes: dict[Any, None] = {}
        for d in distributions:
            outcomes.update(dict.fromkeys(d.outcomes))
        unordered = [d.expression for d in distributions if not d.ordered]
        if unordered and view != "eq":
            raise ValueError(
                f"`{unordered[0]}` has labels as outcomes, which have no order: P({view}) means "
                "nothing; compare with view='eq'"
            )
        if unordered:
            self.outcomes = tuple(outcomes)
        else:
            try:
                self.outcomes = tuple(sorted(outcomes))
            except TypeError:
                if view != "eq":
                    raise ValueError(
                        f"the outcomes cannot be ordered, so P({view}) means nothing; "
                        "compare with view='eq'"
                    ) from None
                self.outcomes = tuple(outcomes)
        self.columns: list[list[Fraction]] = []
        for d in distributions:
            v = d.view(view)
            if view == "eq":
                self.columns.append([d.probability(o) for o in self.outcomes])
            else:
                self.columns.append([v[o] for o in self.outcomes])

    def to_dict(self) -> dict[str, dict[Any, Fraction]]:
        """``{label: {outcome: Fraction}}``."""
        return {
            label: dict(zip(self.outcomes, column)) for label, column in zip(self.labels, self.columns)
        }

    def to_pandas(self):
        """A ``pandas.DataFrame``: one row per outcome, one column per distribution (Fractions)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "to_pandas() needs pandas, which is not installed: pip install pandas"
            ) from None
        return pd.DataFrame(
            dict(zip(self.labels, self.columns)),
            index=pd.Index(list(self.outcomes), name="outcome"),
        )

    def __repr__(self) -> str:
        return f"Comparison({self.labels!r}, view={self.view!r}, outcomes={len(self.outcomes)})"

    def _repr_markdown_(self) -> str:
        return _render.comparison_markdown(self)

    def _repr_html_(self) -> str:
        return _render.comparison_html(self)
