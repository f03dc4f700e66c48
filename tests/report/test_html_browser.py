"""The report in a real browser: Debian's headless Chromium, driven by playwright.

The page must render every section and plot with a size, open a session from the verdict grid,
and show the hostile transcript as text: no dialog, no console error (a CSP violation is one).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.runs import report

from ._hostile import build_store

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/test.sh installs it)"
)


@pytest.mark.slow
def test_report_renders_and_runs_nothing_from_transcripts(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    store, demo, hostile = build_store(tmp_path)
    page_path = report([demo, hostile], tmp_path / "r.html", store)
    dialogs: list[str] = []
    problems: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(page_path.as_uri())
        for sid in ("headline", "survival", "recovery", "failures", "patterns", "grid", "compare"):
            box = page.locator(f"#{sid}").bounding_box()
            assert box is not None and box["width"] > 0 and box["height"] > 0, sid
        plots = page.locator("svg.plot")
        assert plots.count() >= 2
        for i in range(plots.count()):
            box = plots.nth(i).bounding_box()
            assert box is not None and box["width"] > 0 and box["height"] > 0
        # Open the hostile session: its text arrives as text, and nothing runs.
        # The hostile run is the last in the grid.
        page.locator("#grid a.c").last.click()
        title = page.locator("#drill-title")
        assert title.is_visible()
        drill = page.locator("#drill").inner_text()
        assert "<script>alert(1)</script>" in drill
        assert "<img src=x onerror=alert(2)>" in drill
        assert page.locator("#drill img, #drill script").count() == 0
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        # A demo session opens too, with its events listed.
        page.locator("#grid a.c").first.click()
        assert page.locator("#drill .ev").count() > 0
        browser.close()
    assert (tmp_path / "report.png").stat().st_size > 0
    assert dialogs == [] and problems == []
