"""The gate as one self-contained HTML page: the verdict, the paired effect with its interval
against 0 and the margin (and how the interval narrowed round by round), each scenario's paired
outcomes, and the cost block. Reads the gate's `--json` object; no script, no network."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from .._gate_outputs import design_line, effect_line, verdict_words

CSS = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;color:#222}"
    "h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}"
    "table{border-collapse:collapse;width:100%}td,th{padding:.25rem .5rem;"
    "border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child{text-align:left}"
    ".v-better,.v-not_worse{color:#176f2c}.v-worse{color:#b00020}.v-inconclusive{color:#8a6d00}"
    "tr.lost td{background:#fdecea}svg.plot{width:100%;height:auto;display:block}"
    ".muted{color:#666}"
)
_CSP = (
    "default-src 'none'; img-src data:; "
    f"style-src 'sha256-{base64.b64encode(hashlib.sha256(CSS.encode()).digest()).decode()}'"
)

_W, _H, _PAD = 640, 40, 24


def _x(value: float, lo: float, hi: float) -> float:
    return _PAD + (value - lo) / (hi - lo) * (_W - 2 * _PAD)


def _span(looks: Sequence[Mapping[str, Any]], margin: float) -> tuple[float, float]:
    ends = [float(v) for x in looks for v in (x["low"], x["high"])] + [0.0, -margin]
    lo, hi = min(ends), max(ends)
    pad = max(0.02, (hi - lo) * 0.08)
    return max(-1.0, lo - pad), min(1.0, hi + pad)


def effect_plot(data: Mapping[str, Any]) -> str:
    """An SVG of the interval after every round (the last one bold), with 0 and −margin."""
    looks: Sequence[Mapping[str, Any]] = data.get("looks") or [
        {
            "round": 1,
            "low": data["effect"]["ci"][0],
            "high": data["effect"]["ci"][1],
            "estimate": data["effect"]["estimate"],
        }
    ]
    margin = float(data["effect"]["margin"])
    lo, hi = _span(looks, margin)
    rows = len(looks)
    height = _H + rows * 18
    parts = [
        f'<svg class="plot" viewBox="0 0 {_W} {height}" role="img" '
        f'aria-label="paired effect with its interval, round by round">'
    ]
    for value, label, colour, anchor, nudge in (
        (0.0, "0", "#444", "start", 3),
        (-margin, "−margin", "#b00020", "end", -3),
    ):
        x = _x(value, lo, hi)
        parts.append(
            f'<line x1="{x:.1f}" y1="14" x2="{x:.1f}" y2="{height - 6}" stroke="{colour}" '
            f'stroke-dasharray="4 3"/><text x="{x + nudge:.1f}" y="11" font-size="10" '
            f'text-anchor="{anchor}" fill="{colour}">{escape(label)}</text>'
        )
    for i, row in enumerate(looks):
        y = 24 + i * 18
        last = i == rows - 1
        x1, x2 = _x(float(row["low"]), lo, hi), _x(float(row["high"]), lo, hi)
        xe = _x(float(row["estimate"]), lo, hi)
        width = 3 if last else 1.5
        colour = "#1f4e9c" if last else "#8aa4cf"
        parts.append(
            f'<line x1="{x1:.1f}" y1="{y}" x2="{x2:.1f}" y2="{y}" stroke="{colour}" '
            f'stroke-width="{width}"/><circle cx="{xe:.1f}" cy="{y}" r="{3 if last else 2}" '
            f'fill="{colour}"/><text x="4" y="{y + 3}" font-size="9" fill="#666">'
            f"r{int(row['round'])}</text>"
        )
    parts.append(
        f'<text x="{_PAD}" y="{height - 1}" font-size="9" fill="#666">{lo * 100:+.0f} pts</text>'
        f'<text x="{_W - _PAD}" y="{height - 1}" font-size="9" fill="#666" '
        f'text-anchor="end">{hi * 100:+.0f} pts</text></svg>'
    )
    return "".join(parts)


def _scenario_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    out = []
    for r in rows:
        lost = int(r["only_baseline"]) > int(r["only_candidate"])
        out.append(
            f"<tr{' class=lost' if lost else ''}><td>{escape(str(r['scenario_id']))}</td>"
            f"<td>{int(r['pairs'])}</td><td>{int(r['baseline_successes'])}</td>"
            f"<td>{int(r['candidate_successes'])}</td><td>{int(r['only_baseline'])}</td>"
            f"<td>{int(r['only_candidate'])}</td><td>{int(r['unjudged'])}</td></tr>"
        )
    return "".join(out)


def _cost_rows(cost: Mapping[str, Mapping[str, Any]]) -> str:
    """One row per side: sessions, successes, tokens and USD by role, and per successful
    session (USD only where every call was priced; "tokens only" otherwise)."""

    def tokens(c: Mapping[str, Any], role: str) -> int:
        t = c.get("tokens", {}).get(role, {})
        return int(t.get("input_tokens", 0)) + int(t.get("output_tokens", 0))

    def usd(v: Any) -> str:
        return "tokens only" if v is None else f"${float(v):.4g}"

    def per(unit: Mapping[str, Any]) -> str:
        if unit.get("undefined"):
            return escape(str(unit["undefined"]))
        money = unit.get("usd")
        shown = f"{float(unit.get('tokens') or 0):,.0f} tokens"
        return shown if money is None else f"{usd(money)} ({shown})"

    rows = []
    for side, c in cost.items():
        roles = "".join(
            f"<td>{tokens(c, role):,} · {usd(c.get('usd', {}).get(role))}</td>"
            for role in ("agent", "user", "judge")
        )
        rows.append(
            f"<tr><td>{escape(side)}</td><td>{int(c.get('sessions', 0))}</td>"
            f"<td>{int(c.get('successes', 0))}</td>{roles}"
            f"<td>{per(c.get('per_session', {}))}</td><td>{per(c.get('per_success', {}))}</td></tr>"
        )
    return "".join(rows)


def render_gate_html(data: Mapping[str, Any], cost_line: str, title: str = "") -> str:
    """The gate's page (a complete HTML document with a strict Content-Security-Policy)."""
    verdict = str(data["verdict"])
    name = f"sessionproof gate{f': {title}' if title else ''}"
    notes = "".join(f"<li>{escape(str(n))}</li>" for n in data.get("notes", []))
    runs = data.get("runs", {})
    body = (
        f'<section id="gate"><h1>{escape(name)}</h1>'
        f'<p class="v-{escape(verdict)}"><strong>{escape(verdict_words(verdict))}</strong> — '
        f"{escape(effect_line(data))}</p><p>{escape(design_line(data))}</p>"
        f'<p class="muted">baseline run {escape(str(runs.get("baseline", "")))}, candidate run '
        f"{escape(str(runs.get('candidate', '')))}</p>"
        f"{f'<ul>{notes}</ul>' if notes else ''}"
        f"<h2>Paired effect, round by round</h2>{effect_plot(data)}</section>"
        '<section id="scenarios"><h2>Per-scenario paired outcomes</h2>'
        "<table><thead><tr><th>scenario</th><th>pairs</th><th>baseline ✓</th>"
        "<th>candidate ✓</th><th>candidate lost</th><th>candidate won</th><th>unjudged</th>"
        f"</tr></thead><tbody>{_scenario_rows(data.get('scenarios', []))}</tbody></table>"
        "</section>"
        f'<section id="cost"><h2>Cost</h2><p>{escape(cost_line)}</p>'
        "<table><thead><tr><th>side</th><th>sessions</th><th>successes</th>"
        "<th>agent (tokens · USD)</th><th>simulated user</th><th>judge</th>"
        "<th>per session</th><th>per successful session</th></tr></thead>"
        f"<tbody>{_cost_rows(data.get('cost', {}))}</tbody></table></section>"
    )
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(name)}</title><style>{CSS}</style></head><body>{body}</body></html>"
    )
