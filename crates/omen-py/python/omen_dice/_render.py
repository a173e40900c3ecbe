"""How distributions and comparisons show in a notebook: a table first (exact fractions, with
percentages), then a small inline SVG chart. Floats are used here only, for display."""

from __future__ import annotations

import base64
import html
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._compare import Comparison
    from ._distribution import Distribution

# A longer fraction is shown as a decimal in tables (`to_dict()` has it whole).
LONGEST_FRACTION = 24
# Rows shown before the table is cut in the middle.
MOST_ROWS = 60
CHART_WIDTH, CHART_HEIGHT = 360, 120
COLOURS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1")

VIEW_HEADERS = {"eq": "P(=)", "ge": "P(≥)", "le": "P(≤)", "gt": "P(>)", "lt": "P(<)"}


def outcome_text(o: Any) -> str:
    if isinstance(o, bool):
        return "true" if o else "false"
    if isinstance(o, tuple):
        inner = ", ".join(f'"{x}"' if isinstance(x, str) else outcome_text(x) for x in o)
        return f"({inner},)" if len(o) == 1 else f"({inner})"
    return str(o)


def fraction_text(p: Fraction) -> str:
    text = str(p)
    if len(text) <= LONGEST_FRACTION:
        return text
    return f"≈ {float(p):.6g}"


def percent(p: Fraction) -> str:
    return f"{float(p) * 100:.2f}%"


def _rows(n: int) -> list[int | None]:
    """Row indices to show; None marks the cut."""
    if n <= MOST_ROWS:
        return list(range(n))
    half = MOST_ROWS // 2
    return [*range(half), None, *range(n - half, n)]


def _table(dist: "Distribution") -> tuple[list[str], list[list[str]]]:
    # Labels have no order, so no cumulative columns (as `omen prob` prints them).
    head = ["outcome", "P(=)", "%"] + (["P(≥)", "P(≤)"] if dist.ordered else [])
    eq = dist.eq
    ge, le = (dist.ge, dist.le) if dist.ordered else (None, None)
    rows = []
    for i in _rows(len(dist)):
        if i is None:
            rows.append(["…"] * len(head))
            continue
        o = dist.outcomes[i]
        p = eq[o]
        row = [outcome_text(o), fraction_text(p), percent(p)]
        if ge is not None:
            row += [fraction_text(ge[o]), fraction_text(le[o])]
        rows.append(row)
    return head, rows


def _summary(dist: "Distribution") -> list[str]:
    lines = [f"reading: `{dist.reading}`"]
    try:
        mean, variance = dist.mean, dist.variance
        lines.append(
            f"mean {fraction_text(mean)} (≈ {float(mean):.4f}), "
            f"standard deviation ≈ {float(variance) ** 0.5:.4f}"
        )
    except TypeError:
        lines.append("mode: " + ", ".join(outcome_text(o) for o in dist.mode))
    if dist.truncated:
        lines.append(
            f"explosion depth limit reached with probability {fraction_text(dist.truncated)}: "
            "raise explode_depth for less cut off"
        )
    if len(dist) > MOST_ROWS:
        lines.append(f"{len(dist)} outcomes; `to_dict()` or `to_pandas()` has every one")
    return lines


def _markdown_table(head: list[str], rows: list[list[str]]) -> str:
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|")

    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f'<td style="text-align:right">{html.escape(c)}</td>' for c in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def bar_chart(labels: list[str], values: list[float]) -> str:
    """An SVG bar chart of `values` (probabilities), one bar per label."""
    n = max(len(values), 1)
    top = max(values, default=0) or 1.0
    step = CHART_WIDTH / n
    bars = []
    for i, (label, v) in enumerate(zip(labels, values)):
        h = v / top * (CHART_HEIGHT - 20)
        x, y = i * step, CHART_HEIGHT - 14 - h
        tip = html.escape(f"{label}: {v * 100:.3f}%")
        bars.append(
            f'<rect x="{x + step * 0.1:.2f}" y="{y:.2f}" width="{step * 0.8:.2f}" '
            f'height="{h:.2f}" fill="{COLOURS[0]}"><title>{tip}</title></rect>'
        )
    ends = ""
    if labels:
        ends = (
            f'<text x="0" y="{CHART_HEIGHT - 2}" font-size="10">{html.escape(labels[0])}</text>'
            f'<text x="{CHART_WIDTH}" y="{CHART_HEIGHT - 2}" font-size="10" text-anchor="end">'
            f"{html.escape(labels[-1])}</text>"
        )
    return _svg("".join(bars) + ends)


def line_chart(labels: list[str], series: list[tuple[str, list[float]]]) -> str:
    """An SVG line chart: one line per series over the shared outcomes, with a legend."""
    n = max(len(labels) - 1, 1)
    top = max((v for _, vs in series for v in vs), default=0) or 1.0
    parts = []
    for k, (name, values) in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        points = " ".join(
            f"{i / n * CHART_WIDTH:.2f},{CHART_HEIGHT - 14 - v / top * (CHART_HEIGHT - 30):.2f}"
            for i, v in enumerate(values)
        )
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>')
        parts.append(
            f'<text x="{CHART_WIDTH}" y="{10 + 11 * k}" font-size="10" text-anchor="end" '
            f'fill="{colour}">{html.escape(name)}</text>'
        )
    if labels:
        parts.append(
            f'<text x="0" y="{CHART_HEIGHT - 2}" font-size="10">{html.escape(labels[0])}</text>'
            f'<text x="{CHART_WIDTH}" y="{CHART_HEIGHT - 2}" font-size="10" text-anchor="end">'
            f"{html.escape(labels[-1])}</text>"
        )
    return _svg("".join(parts))


def _svg(body: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_WIDTH}" height="{CHART_HEIGHT}" '
        f'viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" font-family="sans-serif">{body}</svg>'
    )


def _svg_image(svg: str, alt: str) -> str:
    """The chart as a Markdown image: Markdown renderers drop inline <svg>, but show data URIs."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f"![{alt}](data:image/svg+xml;base64,{data})"


def _chart(dist: "Distribution") -> str:
    labels = [outcome_text(o) for o in dist.outcomes]
    return bar_chart(labels, [q / dist.denominator for q in dist.quantities])


def distribution_markdown(dist: "Distribution") -> str:
    head, rows = _table(dist)
    title = f"**`{dist.expression}`**"
    summary = "  \n".join(_summary(dist))
    chart = _svg_image(_chart(dist), f"P(=) of {dist.expression}")
    return f"{title}\n\n{_markdown_table(head, rows)}\n\n{summary}\n\n{chart}\n"


def distribution_html(dist: "Distribution") -> str:
    head, rows = _table(dist)
    title = f"<p><b><code>{html.escape(dist.expression)}</code></b></p>"
    summary = "<br>".join(html.escape(line).replace("`", "") for line in _summary(dist))
    return f"<div>{title}{_html_table(head, rows)}<p>{summary}</p>{_chart(dist)}</div>"


def _comparison_table(c: "Comparison") -> tuple[list[str], list[list[str]]]:
    head = ["outcome"] + [f"{label} {VIEW_HEADERS[c.view]}" for label in c.labels]
    rows = []
    for i in _rows(len(c.outcomes)):
        if i is None:
            rows.append(["…"] * len(head))
            continue
        o = c.outcomes[i]
        rows.append([outcome_text(o)] + [fraction_text(col[i]) for col in c.columns])
    return head, rows


def _comparison_chart(c: "Comparison") -> str:
    labels = [outcome_text(o) for o in c.outcomes]
    return line_chart(labels, [(l, [float(p) for p in col]) for l, col in zip(c.labels, c.columns)])


def comparison_markdown(c: "Comparison") -> str:
    head, rows = _comparison_table(c)
    chart = _svg_image(_comparison_chart(c), "comparison")
    return f"{_markdown_table(head, rows)}\n\n{chart}\n"


def comparison_html(c: "Comparison") -> str:
    head, rows = _comparison_table(c)
    return f"<div>{_html_table(head, rows)}{_comparison_chart(c)}</div>"
