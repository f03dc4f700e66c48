"""The gate's files: JUnit XML, the Markdown summary and the HTML page, each written beside
its path and renamed over it (a failed write keeps what was there)."""

from __future__ import annotations

from pathlib import Path

from .._atomic import write_atomic
from ..errors import InputFileError
from ..report._internal import design_line, headline, junit_xml, markdown_summary
from ..report.html._internal import render_gate_html
from ._gate_cost import cost_sentence
from ._gate_result import GateResult


def gate_summary(result: GateResult, title: str = "") -> str:
    """The gate as Markdown (a CI step summary or a pull-request comment)."""
    return markdown_summary(result.to_json(), cost_sentence(result.cost), title=title)


def gate_junit(result: GateResult, *, fail_inconclusive: bool = False, suite: str = "") -> str:
    """The gate as JUnit XML: a test case per scenario, and the gate's own."""
    return junit_xml(result.to_json(), fail_inconclusive=fail_inconclusive, suite=suite)


def gate_page(result: GateResult, title: str = "") -> str:
    """The gate as a self-contained HTML page."""
    return render_gate_html(result.to_json(), cost_sentence(result.cost), title)


def gate_lines(result: GateResult) -> list[str]:
    """The gate for a terminal: the verdict and effect, the design as run, the cost, notes."""
    data = result.to_json()
    lines = [headline(data), design_line(data), cost_sentence(result.cost)]
    unpriced = dict.fromkeys(n for side in result.cost.values() for n in side.notes())
    return lines + [f"note: {n}" for n in [*result.notes, *unpriced]]


def write_text(path: str | Path, text: str, what: str) -> Path:
    """Write `text` to `path` atomically (its folder made); `InputFileError` naming `what`."""
    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, text.encode("utf-8"))
    except OSError as exc:
        raise InputFileError(f"cannot write the {what} to {out}: {exc.strerror}") from None
    return out
