"""The report answers the A/B question: per-arm figures, the paired table against the first
arm, readable pass^k, categorical data as bars, names never cut, rows in natural order, and
sessions that were not judged shown as such and kept out of every accuracy."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sessionproof
from sessionproof.cli._internal import app
from sessionproof.records import Session
from sessionproof.runs import report
from sessionproof.store import Store

from .test_html_browser import ARGS, CHROMIUM

TAU2 = (
    Path(__file__).parents[1] / "fixtures" / "tau" / "gpt-4.1_airline_default_gpt-4.1_1trials.json"
)
LONG_ARM = "faults=rate_limited:30%,unavailable:10% guard"


@pytest.fixture(scope="module")
def multi(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("ab") / "s.duckdb"
    done = sessionproof.run_suite(
        "demo", "oracle", limit=4, trials=2, store=store, arms=["baseline", "faults=30%", LONG_ARM]
    )
    return store, done.run_id


def _cells(page: str, table_class: str) -> list[list[str]]:
    body = page.split(f'<table class="{table_class}">', 1)[1].split("</table>", 1)[0]
    return [
        [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
        if "<td>" in row
    ]


@pytest.mark.slow
def test_the_arms_section_has_per_arm_rows_and_the_paired_table(multi: tuple[Path, str]) -> None:
    store, run_id = multi
    page = report([run_id], store.parent / "ab.html", store).read_text(encoding="utf-8")
    assert 'id="arms"' in page and 'href="#arms"' in page
    arms = _cells(page, "arms")
    assert [r[0] for r in arms] == ["baseline", "faults=30%", LONG_ARM]
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(run_id)
    for row in arms:
        mine = [s for s in sessions if s.arm == row[0]]
        passed = sum(bool(s.verdict) for s in mine)
        assert row[1] == str(len(mine)) and f"({passed}/{len(mine)})" in row[2]
        faults = sum(1 for s in mine for e in s.events if e.kind.value == "fault_injected")
        assert row[4] == str(faults)
    assert arms[0][4] == "0" and int(arms[1][4]) > 0
    paired = _cells(page, "paired")
    assert [(r[0], r[1]) for r in paired] == [
        ("faults=30%", "baseline"),
        (LONG_ARM, "baseline"),
    ]
    for row in paired:
        assert row[2] == "8"  # 4 scenarios × 2 trials, judged in both arms
        assert re.fullmatch(r"[+-]\d+\.\d% … [+-]\d+\.\d%", row[6]), row[6]
        assert 0.0 <= float(row[7]) <= 1.0


def test_pass_k_reads_as_words_and_percentages(multi: tuple[Path, str]) -> None:
    store, run_id = multi
    page = report([run_id], store.parent / "k.html", store).read_text(encoding="utf-8")
    head = _cells(page, "headline")
    assert head[0][7].splitlines()[0] == "pass^1 100% · pass@1 100%"
    assert head[0][7].splitlines()[1].startswith("pass^2 ")
    assert "^1 " not in page.replace("pass^1 ", "")


def test_categorical_data_is_bars_and_names_are_never_cut(multi: tuple[Path, str]) -> None:
    store, run_id = multi
    page = report([run_id], store.parent / "c.html", store).read_text(encoding="utf-8")
    needs = page.split("success by gold writes needed</h3>", 1)[1].split("</section>", 1)[0]
    assert '<svg class="plot gbars"' in needs and "<polyline" not in needs
    assert needs.count("<rect ") >= 3  # one bar per arm in the first category at least
    # Every legend names the whole arm spec; no label is cut with an ellipsis.
    legends = re.findall(r'<div class="legend">(.*?)</div>', page, re.S)
    assert legends and all(html.escape(LONG_ARM) in item for item in legends)
    svg_text = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", page))
    assert "…" not in svg_text


def _scored_tau2(tmp: Path) -> tuple[Path, str]:
    store = tmp / "t.duckdb"
    out = CliRunner().invoke(
        app, ["score", str(TAU2), "--json", "--no-report", "--store", str(store)]
    )
    assert out.exit_code in (0, 1), out.output
    return store, json.loads(out.stdout)["run_id"]


def test_verdict_rows_sort_naturally(tmp_path: Path) -> None:
    store, run_id = _scored_tau2(tmp_path)
    page = report([run_id], tmp_path / "n.html", store).read_text(encoding="utf-8")
    rows = re.findall(r"<span class=sid>([^<]*)</span>", page)
    assert len(rows) == 20 and all(r.isdigit() for r in rows)
    assert rows == sorted(rows, key=int)  # 2, 6, 8, 13, … not 13, 16, 18, 19, 2, …


def _unjudged(session: Session, run_id: str) -> Session:
    assert session.outcome is not None
    outcome = session.outcome.model_copy(
        update={"success": False, "not_judged": "no criterion can be checked on its domain"}
    )
    events = [e.model_copy(update={"run_id": run_id}) for e in session.events]
    return session.model_copy(update={"run_id": run_id, "outcome": outcome, "events": events})


def test_sessions_not_judged_are_shown_apart_and_out_of_accuracy(tmp_path: Path) -> None:
    store = tmp_path / "u.duckdb"
    base = sessionproof.run_suite("demo", "oracle", limit=3, trials=1, store=store).run_id
    run_id = "r-unjudged"
    with Store.open(store) as db:
        db.create_run(db.get_run(base).model_copy(update={"run_id": run_id}))
        sessions = db.load_sessions(base)
        assert all(s.verdict for s in sessions)
        kept = [
            s.model_copy(
                update={
                    "run_id": run_id,
                    "events": [e.model_copy(update={"run_id": run_id}) for e in s.events],
                }
            )
            for s in sessions[:1]
        ]
        db.write_sessions([*kept, *(_unjudged(s, run_id) for s in sessions[1:])])
    page = report([run_id], tmp_path / "u.html", store).read_text(encoding="utf-8")
    row = _cells(page, "headline")[0]
    assert row[4] == "1/1" and row[5] == "100.0%"  # the one judged session passed
    assert row[7] == "pass^1 100% · pass@1 100%"  # over the one scenario judged
    assert row[8] == "2: no criterion can be checked on its domain 2"
    assert page.count('<a class="c unjudged"') == 2 and '<a class="c fail"' not in page


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_multi_arm_report_in_a_browser(multi: tuple[Path, str]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    store, run_id = multi
    path = report([run_id], store.parent / "b.html", store)
    problems: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(path.as_uri())
        arms = page.locator("#arms table.arms tbody tr")
        assert arms.count() == 3
        for i in range(3):
            assert arms.nth(i).is_visible()
        paired = page.locator("#arms table.paired tbody tr")
        assert paired.count() == 2 and paired.first.is_visible()
        assert paired.nth(1).locator("td").first.inner_text() == LONG_ARM
        # Legend names are whole and not clipped by their box.
        items = page.locator("div.legend .li")
        assert items.count() >= 6
        for i in range(items.count()):
            item = items.nth(i)
            assert item.is_visible()
            assert item.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        assert LONG_ARM in page.locator("div.legend").first.inner_text()
        page.locator("#arms").screenshot(path=str(store.parent / "arms.png"))
        browser.close()
    assert problems == []


def test_imported_traces_without_an_outcome_are_not_judged_not_failed(tmp_path: Path) -> None:
    # Issue 41.23: an unlabelled import read 0% in the report.
    atif = Path(__file__).parents[1] / "fixtures" / "atif" / "two.trajectories.jsonl"
    store = tmp_path / "i.duckdb"
    out = CliRunner().invoke(app, ["import", str(atif), "--json", "--store", str(store)])
    assert out.exit_code == 0, out.output
    run_id = json.loads(out.stdout)["run_id"]
    page = report([run_id], tmp_path / "i.html", store).read_text(encoding="utf-8")
    row = _cells(page, "headline")[0]
    assert row[3:9] == ["2", "0/0", "–", "–", "–", "2: no outcome 2"]
    assert page.count('<a class="c none"') == 2 and '<a class="c fail"' not in page


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_an_unjudged_sessions_drill_down_says_not_judged(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    atif = Path(__file__).parents[1] / "fixtures" / "atif" / "two.trajectories.jsonl"
    store = tmp_path / "i.duckdb"
    out = CliRunner().invoke(app, ["import", str(atif), "--json", "--store", str(store)])
    run_id = json.loads(out.stdout)["run_id"]
    path = report([run_id], tmp_path / "i.html", store)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page()
        page.goto(path.as_uri())
        page.locator("#grid a.c").first.click()
        title = page.locator("#drill-title").inner_text()
        assert "no outcome: not judged" in title and "fail" not in title
        browser.close()
