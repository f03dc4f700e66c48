"""Inline SVG plots: step/line curves and horizontal bars, no script and no external load."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

# A colour-blind-safe palette (Okabe-Ito); series beyond it cycle.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
_W, _H, _PAD_L, _PAD_B, _PAD_T, _PAD_R = 560, 240, 44, 30, 12, 140


@dataclass(frozen=True)
class Series:
    """One named line: (x, y) points with y in [0, 1]."""

    name: str
    points: Sequence[tuple[float, float]]


def _x(value: float, top: float) -> float:
    return _PAD_L + (value / top if top else 0.0) * (_W - _PAD_L - _PAD_R)


def _y(value: float) -> float:
    return _PAD_T + (1.0 - min(max(value, 0.0), 1.0)) * (_H - _PAD_T - _PAD_B)


def _axes(x_label: str, top: float) -> list[str]:
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
    for xv in range(0, int(top) + 1, step):
        x = _x(xv, top)
        parts.append(f'<text x="{x}" y="{_H - _PAD_B + 14}" class="tk" text-anchor="middle">')
        parts.append(f"{xv}</text>")
    parts.append(
        f'<text x="{(_W - _PAD_R + _PAD_L) / 2}" y="{_H - 2}" class="tk" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    return parts


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
        ly = _PAD_T + 14 + 16 * i
        parts.append(
            f'<rect x="{_W - _PAD_R + 8}" y="{ly - 9}" width="10" height="10" fill="{colour}"/>'
        )
        parts.append(f'<text x="{_W - _PAD_R + 22}" y="{ly}" class="tk">{escape(s.name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def bar_plot(rows: Sequence[tuple[str, float, str]], *, share: bool = True) -> str:
    """Horizontal bars: (label, value, annotation). `share`: values in [0, 1]; else counts
    scaled to the largest."""
    if not rows:
        return ""
    top = 1.0 if share else max((v for _, v, _ in rows), default=1.0) or 1.0
    height, label_w, bar_w = 20 * len(rows) + 8, 190, 300
    parts = [
        f'<svg class="plot bars" viewBox="0 0 {label_w + bar_w + 110} {height}" '
        f'width="{label_w + bar_w + 110}" height="{height}" role="img">'
    ]
    for i, (label, value, note) in enumerate(rows):
        y = 4 + 20 * i
        w = max(1.0, bar_w * min(value / top, 1.0))
        short = label if len(label) <= 30 else label[:29] + "…"
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 13}" class="tk" text-anchor="end">'
            f"{escape(short)}</text>"
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
