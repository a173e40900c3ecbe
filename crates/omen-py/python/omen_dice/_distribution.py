"""Exact distributions as Python values: integer quantities over an integer denominator, probabilities
as ``fractions.Fraction``, never floats (floats appear only in reprs and charts)."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from . import _render
from ._errors import Diagnostic

__all__ = ["Distribution", "View"]

VIEWS = ("eq", "ge", "le", "gt", "lt")


def _numeric(x: Any) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


class View(Mapping):
    """P(outcome = x), P(≥ x), P(≤ x), P(> x) or P(< x) for every outcome ``x``, as Fractions.

    Iterates over the distribution's outcomes; ``view[x]`` also answers for an ``x`` that is not an
    outcome when it compares with the outcomes (``d.ge[10.5]`` for numbers, ``d.ge["m"]`` for labels).
    """

    def __init__(self, dist: "Distribution", kind: str):
        self._dist = dist
        self._kind = kind

    def __iter__(self) -> Iterator[Any]:
        return iter(self._dist.outcomes)

    def __len__(self) -> int:
        return len(self._dist.outcomes)

    def __getitem__(self, x: Any) -> Fraction:
        return Fraction(self._dist._weight(self._kind, x), self._dist.denominator)

    def __repr__(self) -> str:
        items = ", ".join(f"{o!r}: {p}" for o, p in self.items())
        return f"View({self._kind}, {{{items}}})"


class Distribution:
    """The exact distribution of an Omen expression or script.

    ``outcomes`` ascend in Omen's order of values (numbers, then false/true, then tuples), except
    that labels come in the order the script first writes them (see ``ordered``);
    ``quantities[i]`` is the integer weight of ``outcomes[i]`` over ``denominator``.
    """

    __slots__ = (
        "expression",
        "reading",
        "kind",
        "outcomes",
        "quantities",
        "denominator",
        "warnings",
        "truncated",
        "expected_steps",
        "_index_cache",
        "_below_cache",
    )

    def __init__(self, expression: str, raw: dict):
        self.expression: str = expression
        self.reading: str = raw["reading"]
        self.kind: str = raw["kind"]
        self.outcomes: tuple = tuple(raw["outcomes"])
        self.quantities: tuple[int, ...] = tuple(raw["quantities"])
        self.denominator: int = raw["denominator"]
        self.warnings: list[Diagnostic] = [Diagnostic(**d) for d in raw["warnings"]]
        # P(some die reached the explosion depth limit while it would still explode): the mass the
        # limit cut off, 0 when nothing was cut.
        self.truncated: Fraction = raw["truncated"]
        self.expected_steps: Fraction | None = raw["expected_steps"]
        # Built on first use: most distributions are read whole (a table, a chart, to_dict), and
        # building these for every answer cost a third of a small `prob` call.
        self._index_cache: dict | None = None
        self._below_cache: list[int] | None = None

    @property
    def _index(self) -> dict:
        """Each outcome's position in ``outcomes``."""
        if self._index_cache is None:
            self._index_cache = {o: i for i, o in enumerate(self.outcomes)}
        return self._index_cache

    @property
    def _below(self) -> list[int]:
        """``_below[i]``: the weight of the outcomes before ``outcomes[i]``; ``_below[-1]`` is the
        denominator."""
        if self._below_cache is None:
            below = [0]
            for q in self.quantities:
                below.append(below[-1] + q)
            self._below_cache = below
        return self._below_cache

    # -- the numbers --------------------------------------------------------------------------

    @property
    def ordered(self) -> bool:
        """False when an outcome is a label: labels name outcomes without ordering them, so the
        outcomes are listed in the order the script first writes each label, and P(≥) and the other
        cumulative views mean nothing."""
        return self.kind != "labels"

    def _weight(self, kind: str, x: Any) -> int:
        if kind != "eq" and not self.ordered:
            raise TypeError(
                f"`{self.expression}` has labels as outcomes, which have no order: P({kind}) means "
                "nothing; use .eq, .probability() or .to_dict()"
            )
        i = self._index.get(x) if _hashable(x) else None
        if i is not None:
            lo, hi = i, i + 1  # outcomes[lo:hi] == [x]
        elif not self.ordered:
            return 0
        else:
            try:
                lo = bisect.bisect_left(self.outcomes, x)
                hi = bisect.bisect_right(self.outcomes, x)
            except TypeError:
                raise KeyError(x) from None
        below, total = self._below, self._below[-1]
        if kind == "eq":
            return below[hi] - below[lo]
        if kind == "ge":
            return total - below[lo]
        if kind == "gt":
            return total - below[hi]
        if kind == "le":
            return below[hi]
        if kind == "lt":
            return below[lo]
        raise ValueError(f"unknown view {kind!r}; the views are {', '.join(VIEWS)}")

    def probability(self, outcome: Any) -> Fraction:
        """P(outcome), 0 for a value that is not an outcome."""
        i = self._index.get(outcome) if _hashable(outcome) else None
        return Fraction(0 if i is None else self.quantities[i], self.denominator)

    @property
    def probabilities(self) -> tuple[Fraction, ...]:
        return tuple(Fraction(q, self.denominator) for q in self.quantities)

    @property
    def eq(self) -> View:
        return View(self, "eq")

    @property
    def ge(self) -> View:
        return self.view("ge")

    @property
    def le(self) -> View:
        return self.view("le")

    @property
    def gt(self) -> View:
        return self.view("gt")

    @property
    def lt(self) -> View:
        return self.view("lt")

    def view(self, kind: str) -> View:
        """The view named ``eq``, ``ge``, ``le``, ``gt`` or ``lt``."""
        if kind not in VIEWS:
            raise ValueError(f"unknown view {kind!r}; the views are {', '.join(VIEWS)}")
        if kind != "eq" and not self.ordered:
            self._weight(kind, None)  # raises the TypeError that explains why
        return View(self, kind)

    def _numbers(self) -> list:
        if self.kind == "bool":
            return [int(o) for o in self.outcomes]
        if all(_numeric(o) for o in self.outcomes):
            return list(self.outcomes)
        raise TypeError(
            f"`{self.expression}` has outcomes that are not numbers (labels or tuples): "
            "no mean or variance; see .probability() and .mode"
        )

    @property
    def mean(self) -> Fraction:
        """The exact mean (true counts as 1)."""
        xs = self._numbers()
        return Fraction(sum(x * q for x, q in zip(xs, self.quantities)), 1) / self.denominator

    @property
    def variance(self) -> Fraction:
        """The exact variance, E[(X - mean)²]."""
        xs, mean = self._numbers(), self.mean
        second = Fraction(sum(x * x * q for x, q in zip(xs, self.quantities)), 1) / self.denominator
        return second - mean * mean

    @property
    def standard_deviation(self) -> float:
        return float(self.variance) ** 0.5

    @property
    def mode(self) -> tuple:
        """The outcomes of greatest probability, ascending."""
        top = max(self.quantities, default=0)
        return tuple(o for o, q in zip(self.outcomes, self.quantities) if q == top)

    # -- Python's protocols -------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.outcomes)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.outcomes)

    def __contains__(self, outcome: Any) -> bool:
        return _hashable(outcome) and outcome in self._index

    def __getitem__(self, outcome: Any) -> Fraction:
        """P(outcome); ``KeyError`` for a value that is not an outcome."""
        if not _hashable(outcome) or outcome not in self._index:
            raise KeyError(outcome)
        return self.probability(outcome)

    def items(self) -> Iterator[tuple[Any, int]]:
        """(outcome, quantity) pairs, as icepool's ``Die.items()``."""
        return zip(self.outcomes, self.quantities)

    def __eq__(self, other: object) -> bool:
        """Equal when every outcome has the same probability (quantities may differ by a factor)."""
        if not isinstance(other, Distribution):
            return NotImplemented
        return self.outcomes == other.outcomes and all(
            a * other.denominator == b * self.denominator
            for a, b in zip(self.quantities, other.quantities)
        )

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self, view: str = "eq") -> dict:
        """``{outcome: Fraction}`` for the view (P(=) by default), in the outcomes' order."""
        v = self.view(view)
        return {o: v[o] for o in self.outcomes}

    def to_pandas(self):
        """A ``pandas.DataFrame`` indexed by outcome, with the quantity and exact P(=), P(≥), P(≤) as
        Fractions (an ``object`` column; ``.astype(float)`` for plotting)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "to_pandas() needs pandas, which is not installed: pip install pandas"
            ) from None
        columns = {"quantity": list(self.quantities), "eq": list(self.eq.values())}
        if self.ordered:
            columns["ge"] = list(self.ge.values())
            columns["le"] = list(self.le.values())
        return pd.DataFrame(
            columns,
            index=pd.Index(list(self.outcomes), name="outcome"),
        )

    def to_icepool(self):
        """An ``icepool.Die`` with the same outcomes and quantities."""
        try:
            import icepool
        except ImportError:
            raise ImportError(
                "to_icepool() needs icepool, which is not installed: pip install icepool"
            ) from None
        return icepool.Die(dict(self.items()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{o!r}: {q}" for o, q in list(self.items())[:8])
        more = ", …" if len(self) > 8 else ""
        return (
            f"Distribution({self.expression!r}, {{{shown}{more}}}, "
            f"denominator={self.denominator})"
        )

    def _repr_markdown_(self) -> str:
        return _render.distribution_markdown(self)

    def _repr_html_(self) -> str:
        return _render.distribution_html(self)


def _hashable(x: Any) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True
