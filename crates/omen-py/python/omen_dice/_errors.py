"""Omen's errors and warnings as Python exceptions and warnings.

Every error the language reports has a ``kind`` (a stable name such as ``unexpected-token`` or
``work-budget``), a span into the source, a message and often a hint. ``str()`` of the exception draws
the source with a caret under the span, exactly as the ``omen`` command does.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

__all__ = [
    "Diagnostic",
    "OmenError",
    "OmenLimitError",
    "OmenCancelled",
    "OmenWarning",
    "error_from",
]

# The kinds that mean "a limit was reached", not "the input is wrong": raising the limit (a keyword
# argument of the same name as the CLI's flag) may let the computation finish.
LIMIT_KINDS = frozenset(
    {
        "too-many-dice",
        "too-many-sides",
        "explode-depth",
        "too-many-outcomes",
        "too-many-states",
        "too-many-chain-states",
        "too-many-steps",
        "work-budget",
        "too-much-output",
        "nested-too-deeply",
        "reroll-limit",
    }
)

# Kinds that mean the computation was stopped from outside (a timeout) rather than refused.
CANCEL_KINDS = frozenset({"cancelled", "deadline"})


@dataclass(frozen=True)
class Diagnostic:
    """One error or warning: ``source[start:end]`` is the text it points at (offsets count
    characters)."""

    severity: str
    kind: str
    message: str
    hint: str | None
    start: int
    end: int
    rendered: str

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    def __str__(self) -> str:
        return self.rendered.rstrip("\n")


class OmenError(Exception):
    """The input could not be computed: ``kind``, ``span``, ``message`` and ``hint`` describe the
    first error; ``errors`` holds every error found, ``warnings`` the warnings that came with them."""

    def __init__(self, source: str, errors: list[Diagnostic], warnings: list[Diagnostic]):
        first = errors[0]
        super().__init__(first.message)
        self.source = source
        self.errors = errors
        self.warnings = warnings
        self.kind = first.kind
        self.span = first.span
        self.message = first.message
        self.hint = first.hint

    def __str__(self) -> str:
        return "".join(d.rendered for d in self.errors).rstrip("\n")

    def __reduce__(self):
        # Rebuilt from its parts, so that it survives pickling (multiprocessing, concurrent.futures).
        return (type(self), (self.source, self.errors, self.warnings))

    def _repr_html_(self) -> str:
        text = html.escape(str(self))
        return f'<pre style="color:#b00020;white-space:pre-wrap">{text}</pre>'

    def _repr_markdown_(self) -> str:
        return "```text\n" + str(self) + "\n```"


class OmenLimitError(OmenError):
    """A limit stopped the computation; the hint names the keyword argument to raise."""


class OmenCancelled(OmenError):
    """The computation passed its ``timeout`` (or was cancelled)."""


class OmenWarning(UserWarning):
    """An input a player could mean two ways, read the documented way; the message names the other
    reading."""


def _diagnostic(d: dict) -> Diagnostic:
    return Diagnostic(**d)


def error_from(source: str, errors: list[dict], warnings: list[dict]) -> OmenError:
    """The exception for diagnostics from the engine (called by the Rust module)."""
    errors_ = [_diagnostic(d) for d in errors]
    warnings_ = [_diagnostic(d) for d in warnings]
    kind = errors_[0].kind
    if kind in CANCEL_KINDS:
        cls = OmenCancelled
    elif kind in LIMIT_KINDS:
        cls = OmenLimitError
    else:
        cls = OmenError
    return cls(source, errors_, warnings_)
