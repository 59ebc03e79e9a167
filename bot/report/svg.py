"""Small inline SVG charts, built by pure functions (no script, no external resource).

Every mark carries its value twice: in a ``<title>`` (shown on hover) and in ``data-*``
attributes, so the page is readable without the picture and checkable by a test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

WIDTH, HEIGHT = 560, 240
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 150, 28, 40
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f")

Series = Mapping[str, Sequence[float | None]]  # name -> one value per x label


def _fmt(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") if abs(value) < 10 else f"{value:.0f}"


def _frame(title: str, chart_id: str, body: list[str], y_max: float, unit: str) -> str:
    plot_h = HEIGHT - _TOP - _BOTTOM
    grid = []
    for i in range(5):
        value = y_max * i / 4
        y = _TOP + plot_h - plot_h * i / 4
        grid.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{WIDTH - _RIGHT}" y2="{y:.1f}" '
                    'stroke="#ddd"/>'
                    f'<text x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end" '
                    f'font-size="10">{escape(_fmt(value))}{escape(unit)}</text>')
    return (f'<svg class="chart" id="{escape(chart_id)}" '
            f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
            f'<text x="{_LEFT}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>'
            + "".join(grid) + "".join(body) + "</svg>")


def _legend(names: Sequence[str]) -> list[str]:
    out = []
    for i, name in enumerate(names):
        y = _TOP + 14 * i
        color = PALETTE[i % len(PALETTE)]
        out.append(f'<rect x="{WIDTH - _RIGHT + 10}" y="{y}" width="10" height="10" '
                   f'fill="{color}"/><text x="{WIDTH - _RIGHT + 24}" y="{y + 9}" '
                   f'font-size="10">{escape(name[:22])}</text>')
    return out


def _x_labels(labels: Sequence[str], xs: Sequence[float]) -> list[str]:
    return [f'<text x="{x:.1f}" y="{HEIGHT - _BOTTOM + 14}" text-anchor="middle" '
            f'font-size="10">{escape(label[:14])}</text>' for label, x in zip(labels, xs,
                                                                                 strict=True)]


def _y_max(series: Series, fixed: float | None) -> float:
    if fixed is not None:
        return fixed
    values = [v for vs in series.values() for v in vs if v is not None and math.isfinite(v)]
    top = max(values, default=1.0)
    if top <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(top))
    return float(math.ceil(top / magnitude) * magnitude)


def line_chart(title: str, chart_id: str, labels: Sequence[str], series: Series, *,
               y_max: float | None = None, unit: str = "") -> str:
    """Lines over ``labels`` (e.g. eval runs in time order); a None value breaks the line."""
    top = _y_max(series, y_max)
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    step = plot_w / max(1, len(labels) - 1) if len(labels) > 1 else 0
    xs = [_LEFT + (step * i if len(labels) > 1 else plot_w / 2) for i in range(len(labels))]
    body = _x_labels(labels, xs)
    for i, (name, values) in enumerate(series.items()):
        color = PALETTE[i % len(PALETTE)]
        points = [(x, _TOP + plot_h - plot_h * min(v, top) / top, label, v)
                  for x, v, label in zip(xs, values, labels, strict=True)
                  if v is not None and math.isfinite(v)]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in points)
            body.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" '
                        f'points="{path}"/>')
        for x, y, label, v in points:
            body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}" '
                        f'data-series="{escape(name)}" data-x="{escape(label)}" '
                        f'data-value="{_fmt(v)}"><title>{escape(name)} · {escape(label)}: '
                        f'{_fmt(v)}{escape(unit)}</title></circle>')
    return _frame(title, chart_id, body + _legend(list(series)), top, unit)


def bar_chart(title: str, chart_id: str, labels: Sequence[str], series: Series, *,
              unit: str = "") -> str:
    """Grouped bars: one group per label, one bar per series (e.g. 👍 and 👎 per week)."""
    top = _y_max(series, None)
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    group = plot_w / max(1, len(labels))
    bar = group * 0.8 / max(1, len(series))
    body = _x_labels(labels, [_LEFT + group * (i + 0.5) for i in range(len(labels))])
    for j, (name, values) in enumerate(series.items()):
        color = PALETTE[j % len(PALETTE)]
        for i, (label, v) in enumerate(zip(labels, values, strict=True)):
            value = v or 0.0
            h = plot_h * value / top
            x = _LEFT + group * i + group * 0.1 + bar * j
            body.append(f'<rect x="{x:.1f}" y="{_TOP + plot_h - h:.1f}" width="{bar:.1f}" '
                        f'height="{h:.1f}" fill="{color}" data-series="{escape(name)}" '
                        f'data-x="{escape(label)}" data-value="{_fmt(value)}">'
                        f'<title>{escape(name)} · {escape(label)}: {_fmt(value)}'
                        f'{escape(unit)}</title></rect>')
    return _frame(title, chart_id, body + _legend(list(series)), top, unit)
