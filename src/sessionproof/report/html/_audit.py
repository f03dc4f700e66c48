"""An audit of a task set as HTML: the report section (counts, then every finding by task) and
the self-contained page `sessionproof audit SUITE --html FILE` writes. Reads the audit's
`--json` object; every value passes `html.escape`; no script, no network."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ._sections import section

AUDIT_ID = "audit"
"""The section's id (the table of contents and the browser test find it by it)."""

CSS = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:64rem;color:#222}"
    "h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}"
    "table{border-collapse:collapse;width:100%}td,th{padding:.25rem .5rem;"
    "border-bottom:1px solid #ddd;text-align:left;vertical-align:top}"
    ".s-error{color:#b00020;font-weight:600}.s-warning{color:#8a6d00}.s-note{color:#666}"
    ".muted{color:#666}"
)
_CSP = (
    "default-src 'none'; "
    f"style-src 'sha256-{base64.b64encode(hashlib.sha256(CSS.encode()).digest()).decode()}'"
)


def _counts(data: Mapping[str, Any]) -> str:
    oracle = data.get("oracle") or {}
    rows = [
        ("tasks", str(data.get("tasks", 0))),
        ("readings", ", ".join(data.get("readings") or [])),
        ("oracle", ", ".join(f"{k} {v}" for k, v in oracle.items())),
        ("do-nothing agent passes", str(data.get("do_nothing_passes", 0))),
        ("read-only agent passes (gold writes)", str(data.get("read_only_passes", 0))),
    ]
    store = data.get("store")
    if isinstance(store, Mapping):
        rows.append(
            (
                "store",
                f"{store.get('store')}: {len(store.get('runs') or [])} runs, "
                f"{store.get('judged_sessions', 0)} judged sessions",
            )
        )
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def _flags(flags: Sequence[Mapping[str, Any]]) -> str:
    if not flags:
        return '<p class="muted">no finding: every check passed on every task</p>'
    head = "".join(f"<th>{h}</th>" for h in ("task", "check", "severity", "reason"))
    rows = []
    for f in flags:
        sev = str(f.get("severity", ""))
        rows.append(
            f"<tr><td>{escape(str(f.get('scenario', '')))}</td>"
            f"<td>{escape(str(f.get('check', '')))}</td>"
            f'<td class="s-{escape(sev, quote=True)}">{escape(sev)}</td>'
            f"<td>{escape(str(f.get('reason', '')))}</td></tr>"
        )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def audit_section(data: Mapping[str, Any]) -> str:
    """The audit's report section: its counts, then every finding, task by task."""
    flags = data.get("flags") or []
    errors = sum(f.get("severity") == "error" for f in flags)
    verdict = (
        f'<p class="s-error">{errors} error(s): these tasks cannot be trusted as they are</p>'
        if errors
        else '<p class="muted">no error</p>'
    )
    return section(
        AUDIT_ID, f"Audit of {data.get('suite', '?')}", verdict + _counts(data) + _flags(flags)
    )


def audit_page(data: Mapping[str, Any]) -> str:
    """A whole page holding the audit's section."""
    title = f"sessionproof audit: {data.get('suite', '?')}"
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>{audit_section(data)}</body></html>"
    )
