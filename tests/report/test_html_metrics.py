"""The report's Metrics section and the terminal table of registered metrics: one row per run ×
arm × metric, every text from a plug-in escaped (its name, definition and the reasons its
values are missing), and no section at all when nothing is registered."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from rich.console import Console

import sessionproof
from sessionproof.records import Session
from sessionproof.report._internal import render_metrics
from sessionproof.report.html._data import ReportRun
from sessionproof.report.html._internal import render_html
from sessionproof.scoring import SessionInput, metric, run_metrics
from sessionproof.scoring._metric import METRICS
from sessionproof.suites import load_suite

from ._hostile import EVIL

NAME = "evil[bold]" + EVIL


@pytest.fixture
def hostile() -> Iterator[None]:
    def value(item: SessionInput) -> float:
        if item.session.trial:
            raise RuntimeError(EVIL)
        return 1.0

    metric(NAME, "definition " + EVIL)(value)
    yield
    METRICS.remove(NAME)


def _run() -> ReportRun:
    done = sessionproof.run_suite("demo", "oracle", limit=2, trials=2, store=None)
    sessions: list[Session] = list(done.sessions)
    suite = load_suite("demo")
    report = run_metrics(sessions, {s.id: s for s in suite.scenarios}, suite.domain_for)
    return ReportRun("r1", "run", "demo", "oracle", {"baseline": report}, sessions)


def test_a_hostile_metric_is_escaped_in_the_page_and_the_terminal(hostile: None) -> None:
    run = _run()
    page = render_html([run])
    section = page.split('<section id="metrics"', 1)[1].split("</section>", 1)[0]
    assert EVIL not in page and "<script>" not in section
    assert (
        section.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 4
    )  # name and reason in the row; name and text of the definition
    assert '<a href="#metrics">metrics</a>' in page
    out = io.StringIO()
    render_metrics(Console(file=out, width=400), run.arms["baseline"])
    text = out.getvalue()
    assert "registered metrics" in text
    assert "evil[bold]<script>" in text  # printed as text, not read as markup
    assert "2 missing (e.g. " in text and "RuntimeError: <script>alert(1)</script>" in text


def test_without_registered_metrics_the_page_has_no_metrics_section() -> None:
    page = render_html([_run()])
    assert 'id="metrics"' not in page and 'href="#metrics"' not in page
