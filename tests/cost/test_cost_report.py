"""The HTML report's Cost section: per run × arm, split by role, the price table's date, a
model without a price named (escaped), shown in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.report.html._data import ReportRun
from sessionproof.report.html._internal import render_html
from sessionproof.runs import RunReport, report
from sessionproof.scoring._internal import cost_summary, price_table

from ..report._hostile import EVIL
from ..report.test_html_browser import ARGS, CHROMIUM
from .sessions import call, session


def test_the_cost_section_splits_by_role_and_escapes_model_names() -> None:
    sessions = [
        session([call("agent", "agent-m", 1_000_000, 0), call("user", EVIL, 10, 1)], True, "a"),
        session([call("agent", "agent-m", 1_000_000, 0)], False, "b"),
    ]
    cost = cost_summary(sessions, price_table(flags=["agent-m=2/8"]))
    run = ReportRun("r1", "run", "demo", "m", {}, sessions, costs={"baseline": cost})
    page = render_html([run])
    section = page.split('<section id="cost"', 1)[1].split("</section>", 1)[0]
    assert '<a href="#cost">cost</a>' in page
    assert EVIL not in page and "&lt;script&gt;" in section
    assert "$4.0000 · 2,000,000 tokens · 2 calls" in section  # the agent: 2M input at $2/1M
    assert "tokens only · 11 tokens · 1 call<" in section  # the user's model has no price
    assert "<td>1/2</td>" in section and "USD unknown" in section
    assert "prices as of 2026-12-06, overridden by --price agent-m" in section


def test_a_page_without_costs_has_no_cost_section() -> None:
    page = render_html([ReportRun("r1", "run", "demo", "m", {}, [])])
    assert 'id="cost"' not in page and 'href="#cost"' not in page


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_report_of_a_judged_run_shows_its_cost_in_a_browser(
    judged_run: tuple[Path, RunReport], tmp_path: Path
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    store, done = judged_run
    prices = price_table(flags=["agent-m=2.5/10", "user-m=0.5/1"])
    path = report([done.run_id], tmp_path / "r.html", store, prices=prices)
    problems: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(path.as_uri())
        box = page.locator("#cost").bounding_box()
        assert box is not None and box["width"] > 0 and box["height"] > 0
        text = page.locator("#cost").inner_text()
        cells = page.locator("#cost table.cost tbody tr td").all_inner_texts()
        browser.close()
    assert problems == []
    assert cells[0] == done.run_id and cells[1] == "baseline"
    agent, user, judge = cells[3], cells[4], cells[5]
    assert agent.startswith("$0.00") and user.startswith("$0.00")
    assert judge.startswith("tokens only · 1,050 tokens · 1 call")
    assert "no price for openai-compat:judge-m: tokens only" in text
    assert "undefined (no successful session)" in text
