"""The report's per-turn section: both readings of a multi-turn suite, only when a run has
per-turn verdicts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sessionproof import runs
from sessionproof.runs import report

from .test_html_browser import ARGS, CHROMIUM

SLOPPY = "python:tests.suites.wild.agents:loses_the_thread"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], str]:
    """(store, ids of the wild runs in both readings, id of a run without per-turn verdicts)."""
    path = tmp_path_factory.mktemp("turns") / "s.duckdb"
    ids = []
    for reading in ("own", "gold-prefix"):
        config = runs.RunConfig(suite="wild", model=SLOPPY, limit=4, reading=reading, store=path)
        ids.append(runs.run(config).run_id)
    demo = runs.run(runs.RunConfig(suite="demo", model="oracle", limit=2, store=path)).run_id
    return path, ids, demo


def _section(html: str) -> str:
    found = re.search(r'<section id="turns".*?</section>', html, re.S)
    assert found is not None
    return found.group(0)


@pytest.mark.slow
def test_the_report_shows_both_readings_per_turn(store: tuple[Path, list[str], str]) -> None:
    path, ids, demo = store
    html = report([*ids, demo], path.parent / "r.html", path).read_text(encoding="utf-8")
    turns = _section(html)
    assert '<a href="#turns">' in html
    # One table per wild run: its own reading filled, the other a dash.
    assert turns.count("<table>") == 2
    own, prefix = turns.split("<table>")[1:]
    rows = [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", own)[1:]]
    assert [r[0] for r in rows] == ["1", "2", "3", "4"]
    # The agent fails task 2 (a chat task passes with its non-answer).
    assert rows[0][1].startswith("100.0% (4/4)") and not rows[1][1].startswith("100.0%")
    assert all(r[3] == "–" for r in rows)
    prefix_rows = re.findall(r"<tr>(.*?)</tr>", prefix)[1:]
    assert all("(4/4)" in r for i, r in enumerate(prefix_rows) if i != 1)
    assert "turn_accuracy_gold_prefix" in turns and "turn_accuracy_own_history" in turns


def test_a_report_without_per_turn_verdicts_has_no_turn_section(
    store: tuple[Path, list[str], str],
) -> None:
    path, _, demo = store
    html = report([demo], path.parent / "d.html", path).read_text(encoding="utf-8")
    assert 'id="turns"' not in html and "#turns" not in html


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_turn_section_renders_in_a_browser(store: tuple[Path, list[str], str]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    path, ids, _ = store
    page_path = report(ids, path.parent / "b.html", path)
    problems: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto(page_path.as_uri())
        box = page.locator("#turns").bounding_box()
        assert box is not None and box["width"] > 0 and box["height"] > 0
        assert page.locator("#turns table").count() == 2
        assert "gold prefix" in page.locator("#turns").inner_text()
        browser.close()
    assert problems == []
