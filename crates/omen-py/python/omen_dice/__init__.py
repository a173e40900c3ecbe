"""Omen's exact dice probabilities and seeded rolls in Python.

>>> import omen_dice as omen
>>> d = omen.prob("4d6kh3")
>>> d.denominator, d.probability(18)
(1296, Fraction(7, 432))
>>> omen.roll("4d6kh3 + 2", seed=7).total == omen.roll("4d6kh3 + 2", seed=7).total
True

Expressions and scripts are Omen's notation (docs/language.md), or another roller's with
``dialect=`` (docs/dialects.md). Every limit of the ``omen`` command is a keyword argument with the
same name and default (``omen_dice.LIMITS``). Computations release the GIL, and Ctrl-C stops them.
"""

from __future__ import annotations

import inspect
import os
import secrets
import warnings as _warnings
from collections.abc import Iterable, Mapping
from typing import Any

from . import _omen
from ._compare import Comparison
from ._distribution import Distribution, View
from ._errors import Diagnostic, OmenCancelled, OmenError, OmenLimitError, OmenWarning
from ._roll import Roll
from ._rules import Table, analyse, reference_table, rule_sets

__all__ = [
    "prob",
    "compare",
    "roll",
    "rule_sets",
    "analyse",
    "reference_table",
    "Table",
    "Distribution",
    "View",
    "Comparison",
    "Roll",
    "Diagnostic",
    "OmenError",
    "OmenLimitError",
    "OmenCancelled",
    "OmenWarning",
    "LIMITS",
    "DIALECTS",
]

__version__ = "0.1.0"

# {name: default} of every limit keyword, as the CLI's flags (`--work-budget` is `work_budget`).
LIMITS: dict[str, int] = {name: d for name, (d, _, _) in _omen.limit_defaults().items()}
# {name: (lowest, highest)} each limit accepts.
LIMIT_RANGES: dict[str, tuple[int, int]] = {
    name: (lo, hi) for name, (_, lo, hi) in _omen.limit_defaults().items()
}
DIALECTS: tuple[str, ...] = tuple(_omen.dialects())


def _source(expr: str | os.PathLike) -> str:
    """An expression, or a script read from a path (like ``omen prob -f FILE``)."""
    if isinstance(expr, os.PathLike):
        with open(expr, encoding="utf-8-sig") as f:
            return f.read().rstrip()
    if not isinstance(expr, str):
        raise TypeError(f"expected an expression (str) or a path, not {type(expr).__name__}")
    return expr


def _warn(diagnostics: list[Diagnostic]) -> None:
    for d in diagnostics:
        # stacklevel 3: the caller of prob()/roll().
        _warnings.warn(OmenWarning(str(d)), stacklevel=3)


def prob(
    expr: str | os.PathLike,
    *,
    dialect: str | None = None,
    params: Mapping[str, Any] | None = None,
    timeout: float | None = None,
    **limits: int,
) -> Distribution:
    """The exact distribution of an expression or script.

    ``dialect`` reads another roller's notation (one of ``DIALECTS``); ``params`` sets the script's
    ``param`` values (int, bool, str, Fraction or tuples of those); ``timeout`` stops the computation
    after that many seconds (``OmenCancelled``); ``limits`` are the CLI's limit flags
    (``explode_depth=4``, ``work_budget=10**10``; defaults in ``LIMITS``).

    Raises ``OmenError`` (``OmenLimitError`` when a limit stopped it) with the caret drawn in its
    message; warnings go through Python's ``warnings`` as ``OmenWarning`` and stay on ``.warnings``.
    """
    source = _source(expr)
    raw = _omen.prob(
        source, dialect=dialect, params=dict(params or {}), limits=limits, timeout=timeout
    )
    dist = Distribution(source, raw)
    _warn(dist.warnings)
    return dist


def compare(
    exprs: str | Iterable[str | Distribution] | Mapping[str, str | Distribution],
    view: str = "eq",
    *,
    dialect: str | None = None,
    params: Mapping[str, Any] | None = None,
    timeout: float | None = None,
    **limits: int,
) -> Comparison:
    """Several distributions side by side: ``view`` is ``eq``, ``ge``, ``le``, ``gt`` or ``lt`` (P(=),
    at least, at most, more than, less than). ``exprs`` is a list of expressions (or computed
    Distributions), or a dict ``{label: expression}``, or one expression.

    A parameter given as a ``range`` or a ``list`` of values gives one column per value and
    expression (``omen prob --param level=1..5``), labelled ``level=1`` and so on."""
    if isinstance(exprs, (str, os.PathLike)):
        exprs = [exprs]
    items = list(exprs.items()) if isinstance(exprs, Mapping) else [(None, e) for e in exprs]
    given = dict(params or {})
    ranged = [name for name, value in given.items() if isinstance(value, (range, list))]
    if len(ranged) > 1:
        raise ValueError(f"one parameter may take a range of values, not {len(ranged)}: {ranged}")
    settings = [(None, given)]
    if ranged:
        name = ranged[0]
        settings = [(f"{name}={v}", {**given, name: v}) for v in given[name]]
    labels, dists = [], []
    for label, e in items:
        for setting, values in settings:
            d = e if isinstance(e, Distribution) else prob(
                e, dialect=dialect, params=values, timeout=timeout, **limits
            )
            name = label if label is not None else d.expression
            if setting is not None and not isinstance(e, Distribution):
                name = setting if len(items) == 1 else f"{name} ({setting})"
            labels.append(name)
            dists.append(d)
            if isinstance(e, Distribution):
                break
    return Comparison(labels, dists, view)


def roll(
    expr: str | os.PathLike,
    seed: int | None = None,
    *,
    dice: Iterable[int] | None = None,
    dialect: str | None = None,
    params: Mapping[str, Any] | None = None,
    timeout: float | None = None,
    **limits: int,
) -> Roll:
    """One roll with every die shown. ``seed`` (0 to 2**64-1) replays a roll exactly (Omen's ChaCha
    roller, as ``omen roll --seed``); without one a fresh seed is drawn and kept on ``.seed``.
    ``dice`` gives the faces instead, in order (``omen roll --dice``)."""
    source = _source(expr)
    given = None if dice is None else [int(x) for x in dice]
    if given is None and seed is None:
        seed = secrets.randbits(64)
    if seed is not None and not (isinstance(seed, int) and 0 <= seed < 2**64):
        raise ValueError(f"seed must be an integer from 0 to 2**64-1, got {seed!r}")
    raw = _omen.roll(
        source,
        seed=None if given is not None else seed,
        dice=given,
        dialect=dialect,
        params=dict(params or {}),
        limits=limits,
        timeout=timeout,
    )
    rolled = Roll(source, raw, None if given is not None else seed, given)
    _warn(rolled.warnings)
    if rolled.unused_dice:
        _warnings.warn(
            OmenWarning(f"dice given but not used by the roll: {rolled.unused_dice}"), stacklevel=2
        )
    return rolled


def _with_limit_keywords(f):
    """Shows every limit keyword with its default in ``help()`` and ``inspect.signature``."""
    sig = inspect.signature(f)
    params = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d) for n, d in LIMITS.items()]
    f.__signature__ = sig.replace(parameters=params)
    return f


for _f in (prob, compare, roll, analyse):
    _with_limit_keywords(_f)
del _f
