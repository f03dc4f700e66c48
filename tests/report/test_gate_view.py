"""The gate's HTML page: in headless Chromium it shows the effect with its interval, every
scenario's paired outcomes and the cost, runs nothing and breaks no CSP rule; hostile text
arrives as text."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.report.html._internal import render_gate_html
from sessionproof.runs import gate
from sessionproof.runs._internal import gate_page
from sessionproof.scoring._internal import cost_summary, shipped_prices

from .test_html_browser import ARGS, CHROMIUM

AGENTS = "python:tests.runs.gate_agents"


def _hostile() -> dict[str, object]:
    row = {
        "scenario_id": "<script>alert(1)</script>",
        "pairs": 2,
        "baseline_successes": 2,
        "candidate_successes": 0,
        "only_baseline": 2,
        "only_candidate": 0,
        "unjudged": 0,
    }
    side = cost_summary([], shipped_prices()).model_dump(mode="json")
    side["unpriced_models"] = ["<script>x</script>"]
    return {
        "verdict": "worse",
        "effect": {"estimate": -1.0, "ci": [-1.0, -0.5], "margin": 0.05},
        "mde": 0.4,
        "sessions": {"baseline": 2, "candidate": 2},
        "trials_per_scenario": 2,
        "stopped_because": "decided",
        "rounds_planned": 3,
        "alpha": 0.05,
        "cost": {"baseline": side, "candidate": side},
        "scenarios": [row],
        "runs": {"baseline": "<b>x</b>", "candidate": "y"},
        "notes": ["<img src=x onerror=1>"],
        "looks": [
            {
                "round": 1,
                "pairs": 1,
                "estimate": -1.0,
                "low": -1.0,
                "high": 0.4,
                "critical": 4.3,
                "verdict": "inconclusive",
            }
        ],
    }


def test_hostile_text_is_escaped() -> None:
    page = render_gate_html(_hostile(), "cost: <i>none</i>")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img src=x" not in page and "<b>x</b>" not in page and "<i>none</i>" not in page


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_gate_page_renders_in_a_browser(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    result = gate(f"{AGENTS}:steady", f"{AGENTS}:shaky", suite="demo", store=tmp_path / "g.duckdb")
    path = tmp_path / "gate.html"
    path.write_text(gate_page(result, "demo"), encoding="utf-8")
    problems: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(path.as_uri())
        for sid in ("gate", "scenarios", "cost"):
            box = page.locator(f"#{sid}").bounding_box()
            assert box is not None and box["width"] > 0 and box["height"] > 0, sid
        plot = page.locator("svg.plot")
        assert plot.count() == 1
        box = plot.bounding_box()
        assert box is not None and box["height"] > 20
        # One interval line per round, and the two reference lines (0 and −margin).
        assert page.locator("svg.plot circle").count() == result.rounds
        assert page.locator("#scenarios tbody tr").count() == 16
        lost = sum(r.lost for r in result.scenarios)
        assert lost > 0 and page.locator("#scenarios tr.lost").count() == lost
        assert "worse" in page.locator("#gate").inner_text()
        cost = page.locator("#cost").inner_text()
        assert "per successful session" in cost and "baseline" in cost
        # The styles applied (hash-pinned CSP): a lost scenario's row is tinted.
        colour = page.locator("#scenarios tr.lost td").first.evaluate(
            "e => getComputedStyle(e).backgroundColor"
        )
        assert colour not in ("rgba(0, 0, 0, 0)", "transparent")
        browser.close()
    assert problems == []
