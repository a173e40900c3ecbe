"""One roll, with every die shown: the total and the roll's tree (the same tree `omen roll --format
json` prints), and the seed that replays it."""

from __future__ import annotations

import html
import json
from typing import Any

from ._errors import Diagnostic
from ._render import outcome_text

__all__ = ["Roll"]


class Roll:
    """``total`` is the roll's result (an int, a Fraction, a bool, a str or a tuple); ``tree`` the
    transcript as nested dicts; ``seed`` replays it: ``roll(expression, seed=r.seed)``."""

    __slots__ = ("expression", "total", "tree", "seed", "dice", "reading", "warnings", "unused_dice")

    def __init__(self, expression: str, raw: dict, seed: int | None, dice: list[int] | None):
        self.expression = expression
        self.total: Any = raw["result"]
        self.tree: dict = json.loads(raw["tree"])
        self.seed = seed
        self.dice = dice
        self.reading: str = raw["reading"]
        self.warnings = [Diagnostic(**d) for d in raw["warnings"]]
        # Faces given with `dice=` that the roll never used.
        self.unused_dice: list[int] = raw["unused_dice"]

    def dice_terms(self) -> list[dict]:
        """Every dice term the roll rolled, in order: its notation and its dice (value, marks)."""
        found: list[dict] = []
        stack = [self.tree]
        while stack:
            node = stack.pop()
            if node.get("node") == "dice":
                found.append(node)
            children = []
            for value in node.values():
                if isinstance(value, dict) and "node" in value:
                    children.append(value)
                elif isinstance(value, list):
                    children.extend(v for v in value if isinstance(v, dict) and "node" in v)
            stack.extend(reversed(children))
        return found

    def transcript(self) -> str:
        """One line per dice term: ``4d6kh3: 6 2(dropped) 5 6``, then the total."""
        lines = []
        for term in self.dice_terms():
            shown = []
            for die in term["dice"]:
                marks = [m for m in die["marks"] if m != "kept"]
                shown.append(str(die["value"]) + (f"({','.join(marks)})" if marks else ""))
            lines.append(f"{term['notation']}: {' '.join(shown)}")
        lines.append(f"= {outcome_text(self.total)}")
        return "\n".join(lines)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Roll):
            return NotImplemented
        return (self.expression, self.total, self.tree) == (other.expression, other.total, other.tree)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        how = f"seed={self.seed}" if self.seed is not None else f"dice={self.dice}"
        return f"Roll({self.expression!r}, total={self.total!r}, {how})"

    def _repr_markdown_(self) -> str:
        how = f"seed {self.seed}" if self.seed is not None else "dice given"
        return f"**`{self.expression}`** → **{outcome_text(self.total)}** ({how})\n\n```text\n{self.transcript()}\n```\n"

    def _repr_html_(self) -> str:
        how = f"seed {self.seed}" if self.seed is not None else "dice given"
        return (
            f"<p><b><code>{html.escape(self.expression)}</code></b> → "
            f"<b>{html.escape(outcome_text(self.total))}</b> ({how})</p>"
            f"<pre>{html.escape(self.transcript())}</pre>"
        )
