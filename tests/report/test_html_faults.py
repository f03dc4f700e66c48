"""The report's fault detection and recovery section: one row per run × arm × group with
both rates, present only for arms that met faults, visible in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

import sessionproof
from sessionproof.records import Session
from sessionproof.report.html._data import ReportRun
from sessionproof.report.html._internal import render_html
from sessionproof.scoring import run_metrics
from sessionproof.suites import load_suite

from .test_html_browser import ARGS, CHROMIUM

FAULTY = "faults=timeout:60%"


def _run() -> ReportRun:
    done = sessionproof.run_suite(
        "demo", "oracle", limit=3, trials=2, store=None, arms=["baseline", FAULTY]
    )
    sessions: list[Session] = list(done.sessions)
    suite = load_suite("demo")
    scenarios = {s.id: s for s in suite.scenarios}
    arms = {
        arm: run_metrics([s for s in sessions if s.arm == arm], scenarios, suite.domain_for)
        for arm in ("baseline", FAULTY)
    }
    return ReportRun("r1", "run", "demo", "oracle", arms, sessions)


def _section(page: str) -> str:
    return page.split('<section id="faults"', 1)[1].split("</section>", 1)[0]


def test_the_section_has_each_faulted_arm_and_its_groups() -> None:
    run = _run()
    found = run.arms[FAULTY].faults
    assert found is not None and run.arms["baseline"].faults is None
    page = render_html([run])
    section = _section(page)
    assert '<a href="#faults">faults</a>' in page
    assert "Fault detection and recovery" in section
    rows = section.count("<tr>") - 1  # the header
    assert rows == 4  # all, explicit, transient, timeout
    assert f"<td>{FAULTY}</td>" in section and "<td>baseline</td>" not in section
    assert "fault_recovery_rate:" in section and "perturbation recovery rate" in section
    n = found.overall.detection.n
    assert f"<td>all</td><td>{n}</td>" in section


def test_without_faults_there_is_no_section() -> None:
    run = _run()
    plain = ReportRun("r1", "run", "demo", "oracle", {"baseline": run.arms["baseline"]}, [])
    page = render_html([plain])
    assert 'id="faults"' not in page and 'href="#faults"' not in page


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_section_renders_in_chromium(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    path = tmp_path / "r.html"
    path.write_text(render_html([_run()]))
    problems: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(path.as_uri())
        box = page.locator("#faults").bounding_box()
        assert box is not None and box["width"] > 0 and box["height"] > 0
        text = page.locator("#faults").inner_text()
        browser.close()
    assert "Fault detection and recovery" in text and FAULTY in text
    assert problems == []
