"""Inline SVG plots: step/line curves, grouped bars for categories and horizontal bars, no
script and no external load. Series names go in an HTML legend under the plot, which wraps a
long name instead of cutting it; bar labels are never cut either (the plot widens)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

# A colour-blind-safe palette (Okabe-Ito); series beyond it cycle.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
_W, _H, _PAD_L, _PAD_B, _PAD_T, _PAD_R = 560, 240, 44, 30, 12, 16
_CHAR_W = 6.6
"""Width of one character of an 11 px tick label, generously (labels are sized by it)."""


@dataclass(frozen=True)
class Series:
    """One named line: (x, y) points with y in [0, 1]."""

    name: str
    points: Sequence[tuple[float, float]]


def _x(value: float, top: float) -> float:
    return _PAD_L + (value / top if top else 0.0) * (_W - _PAD_L - _PAD_R)


def _y(value: float) -> float:
    return _PAD_T + (1.0 - min(max(value, 0.0), 1.0)) * (_H - _PAD_T - _PAD_B)


def _axes(x_label: str, top: float, *, ticks: bool = True) -> list[str]:
    parts = [
        f'<line x1="{_PAD_L}" y1="{_y(0)}" x2="{_W - _PAD_R}" y2="{_y(0)}" class="ax"/>',
        f'<line x1="{_PAD_L}" y1="{_y(0)}" x2="{_PAD_L}" y2="{_y(1)}" class="ax"/>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        parts.append(f'<line x1="{_PAD_L}" y1="{y}" x2="{_W - _PAD_R}" y2="{y}" class="grid"/>')
        parts.append(f'<text x="{_PAD_L - 4}" y="{y + 4}" class="tk" text-anchor="end">')
        parts.append(f"{tick:.0%}</text>")
    step = max(1, round(top / 8)) if top else 1
    for xv in range(0, int(top) + 1 if ticks else 0, step):
        x = _x(xv, top)
        parts.append(f'<text x="{x}" y="{_H - _PAD_B + 14}" class="tk" text-anchor="middle">')
        parts.append(f"{xv}</text>")
    parts.append(
        f'<text x="{(_W - _PAD_R + _PAD_L) / 2}" y="{_H - 2}" class="tk" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    return parts


def legend(names: Sequence[str]) -> str:
    """An HTML legend, one swatch and the full name per series, in palette order; it wraps
    (a name is never cut)."""
    items = "".join(
        f'<span class=li><svg width="10" height="10" aria-hidden="true"><rect width="10" '
        f'height="10" fill="{PALETTE[i % len(PALETTE)]}"/></svg>{escape(name)}</span>'
        for i, name in enumerate(names)
    )
    return f'<div class="legend">{items}</div>'


def line_plot(series: Sequence[Series], x_label: str, *, step: bool = True) -> str:
    """An SVG plot of `series` (y as a share, 0-100 %), a step curve unless told otherwise."""
    top = max((x for s in series for x, _ in s.points), default=1.0) or 1.0
    parts = [f'<svg class="plot" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" role="img">']
    parts += _axes(x_label, top)
    for i, s in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        coords: list[str] = []
        last_y: float | None = None
        for xv, yv in s.points:
            if step and last_y is not None:
                coords.append(f"{_x(xv, top):.1f},{last_y:.1f}")
            last_y = _y(yv)
            coords.append(f"{_x(xv, top):.1f},{last_y:.1f}")
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
            f'points="{" ".join(coords)}"/>'
        )
    parts.append("</svg>")
    return "".join(parts) + legend([s.name for s in series])


def bar_plot(rows: Sequence[tuple[str, float, str]], *, share: bool = True) -> str:
    """Horizontal bars: (label, value, annotation). `share`: values in [0, 1]; else counts
    scaled to the largest."""
    if not rows:
        return ""
    top = 1.0 if share else max((v for _, v, _ in rows), default=1.0) or 1.0
    longest = max(len(label) for label, _, _ in rows)
    height, label_w, bar_w = 20 * len(rows) + 8, max(190, int(longest * _CHAR_W) + 12), 300
    parts = [
        f'<svg class="plot bars" viewBox="0 0 {label_w + bar_w + 110} {height}" '
        f'width="{label_w + bar_w + 110}" height="{height}" role="img">'
    ]
    for i, (label, value, note) in enumerate(rows):
        y = 4 + 20 * i
        w = max(1.0, bar_w * min(value / top, 1.0))
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 13}" class="tk" text-anchor="end">'
            f"{escape(label)}</text>"
        )
        parts.append(
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="15" '
            f'fill="{PALETTE[i % len(PALETTE)]}"/>'
        )
        parts.append(
            f'<text x="{label_w + w + 6:.1f}" y="{y + 13}" class="tk">{escape(note)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def grouped_bars(series: Sequence[Series], x_label: str) -> str:
    """Categories on x (each series' x values, e.g. writes needed), one bar per series in
    each, its height the y share with the value on top: for categorical data, not a line."""
    cats = sorted({x for s in series for x, _ in s.points})
    if not cats:
        return ""
    slot = (_W - _PAD_L - _PAD_R) / len(cats)
    bar = max(4.0, min(36.0, (slot - 12) / max(len(series), 1)))
    parts = [
        f'<svg class="plot gbars" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" role="img">'
    ]
    parts += _axes(x_label, 0.0, ticks=False)
    for c, cat in enumerate(cats):
        left = _PAD_L + slot * c + (slot - bar * len(series)) / 2
        for i, s in enumerate(series):
            value = dict(s.points).get(cat)
            if value is None:
                continue
            x, y = left + bar * i, _y(value)
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" height="{_y(0) - y:.1f}" '
                f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(s.name)}: {value:.0%}'
                "</title></rect>"
            )
            parts.append(
                f'<text x="{x + (bar - 2) / 2:.1f}" y="{y - 3:.1f}" class="tk" '
                f'text-anchor="middle">{value:.0%}</text>'
            )
        mid = _PAD_L + slot * (c + 0.5)
        parts.append(
            f'<text x="{mid:.1f}" y="{_H - _PAD_B + 14}" class="tk" text-anchor="middle">'
            f"{escape(_num(cat))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts) + legend([s.name for s in series])


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
