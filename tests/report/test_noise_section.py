"""The report's noise-floor section: each run × arm's numbers as `show --metrics` has them,
what is not estimable said, text from a run escaped, and the section visible in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

import sessionproof
from sessionproof.records import Session
from sessionproof.report.html._data import ReportRun
from sessionproof.report.html._internal import render_html
from sessionproof.scoring import run_metrics
from sessionproof.scoring._internal import noise_of_report
from sessionproof.suites import load_suite

from ._hostile import EVIL

CHROMIUM = Path("/usr/bin/chromium")


def _run(trials: int, run_id: str = "r1", arm: str = "baseline") -> ReportRun:
    done = sessionproof.run_suite("demo", "oracle", limit=3, trials=trials, store=None)
    sessions: list[Session] = list(done.sessions)
    suite = load_suite("demo")
    report = run_metrics(sessions, {s.id: s for s in suite.scenarios}, suite.domain_for)
    return ReportRun(run_id, "run", "demo", "oracle", {arm: report}, sessions)


def _section(page: str) -> str:
    return page.split('<section id="noise"', 1)[1].split("</section>", 1)[0]


def test_every_run_and_arm_has_its_row_and_notes() -> None:
    one, two = _run(1, "r-one"), _run(2, "r-two", arm=EVIL)
    page = render_html([one, two])
    assert '<a href="#noise">noise</a>' in page
    section = _section(page)
    assert section.count("<tr>") == 3  # the head and one row per run × arm
    assert "3 scenarios × 1 judged trials" in section and "3 scenarios × 2 judged trials" in section
    # The oracle always succeeds: no variance, said, never a made-up MDE.
    assert "r-one · baseline: one judged trial per scenario" in section
    assert "no verdict variance (accuracy 0 or 1)" in section
    assert section.count("not estimable") >= 4
    floor = noise_of_report(two.arms[EVIL])
    assert floor.flip_rate == 0.0 and floor.mde is None
    # A hostile arm name arrives as text.
    assert EVIL not in page and "&lt;script&gt;" in section
    assert "flip_rate: " in section and "Fleiss 1981" in section


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_section_renders_in_chromium(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    path = tmp_path / "r.html"
    path.write_text(render_html([_run(2)]), encoding="utf-8")
    problems: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto(path.as_uri())
        box = page.locator("#noise").bounding_box()
        assert box is not None and box["width"] > 0 and box["height"] > 0
        text = page.locator("#noise table.noise").inner_text()
        assert "flip rate" in text and "0.0%" in text
        browser.close()
    assert problems == []
