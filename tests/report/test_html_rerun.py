"""A rerun in the report: its own report sets each transcript's original verdict beside its
reruns (the numbers `rerun --json` gives), and a report of a score run with its rerun pairs
them by transcript (their scenario ids differ: task ids against transcript ids)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.runs import compare, report
from sessionproof.store import Store

from .test_html_browser import ARGS, CHROMIUM

pytestmark = pytest.mark.slow  # most tests here take seconds each

TAU2 = (
    Path(__file__).parents[1] / "fixtures" / "tau" / "gpt-4.1_airline_default_gpt-4.1_1trials.json"
)
runner = CliRunner()


def _json(args: list[str]) -> dict[str, Any]:
    out = runner.invoke(app, [*args, "--json", "--no-report"])
    assert out.exit_code in (0, 1), out.output
    data: dict[str, Any] = json.loads(out.stdout)
    return data


@pytest.fixture(scope="module")
def scored_and_rerun(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, Any]]:
    store = tmp_path_factory.mktemp("rerun") / "s.duckdb"
    scored = _json(["score", str(TAU2), "--store", str(store)])["run_id"]
    rerun = _json(
        [
            "rerun",
            str(TAU2),
            "--model",
            "oracle",
            "--limit",
            "8",
            "--trials",
            "2",
            "--store",
            str(store),
        ]
    )
    return store, scored, rerun


def _rows(page: str, cls: str) -> list[list[str]]:
    body = page.split(f'<table class="{cls}">', 1)[1].split("</table>", 1)[0]
    return [
        [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
        if "<td>" in row
    ]


def test_a_reruns_report_sets_the_originals_beside_the_reruns(
    scored_and_rerun: tuple[Path, str, dict[str, Any]],
) -> None:
    store, _, rerun = scored_and_rerun
    page = report([rerun["run_id"]], store.parent / "r.html", store).read_text(encoding="utf-8")
    assert 'id="rerun"' in page and 'href="#rerun"' in page
    per = _rows(page, "reruns")
    expected = {t["id"]: t for t in rerun["per_transcript"]}
    assert len(per) == 8 and {r[0] for r in per} == set(expected)
    word = {True: "pass", False: "fail", None: "not judged"}
    for transcript, task, original, trials, _ in per:
        t = expected[transcript]
        assert task == t["task"] and original == word[t["original"]]
        assert trials.split() == [word[v] for v in t["rerun"]]
    # The paired row is the one `rerun` printed: same pairs, rates and McNemar p.
    paired = rerun["paired"]
    row = _rows(page, "compare")[0]
    assert row[0] == "session_success" and row[1] == str(paired["scenarios"])
    assert row[2] == f"{paired['rate_a']:.1%}" and row[3] == f"{paired['rate_b']:.1%}"
    assert row[6] == f"{paired['mcnemar_p']:.3g}"
    assert paired["rate_a"] != paired["rate_b"]  # the originals failed some the oracle passes


def test_a_score_run_and_its_rerun_pair_by_transcript(
    scored_and_rerun: tuple[Path, str, dict[str, Any]],
) -> None:
    store, scored, rerun = scored_and_rerun
    for a, b in ((scored, rerun["run_id"]), (rerun["run_id"], scored)):
        result = compare(a, b, store)
        success = next(m for m in result.metrics if m.metric == "session_success")
        assert success.pairs == 16  # 8 transcripts × 2 rerun trials
        assert result.paired_on.startswith("transcript × trial")
    result = compare(scored, rerun["run_id"], store)
    success = next(m for m in result.metrics if m.metric == "session_success")
    assert success.rate_a == pytest.approx(rerun["paired"]["rate_a"])
    assert success.rate_b == pytest.approx(rerun["paired"]["rate_b"])
    page = report([scored, rerun["run_id"]], store.parent / "two.html", store)
    text = page.read_text(encoding="utf-8")
    assert "session_success — not measured" not in text
    assert _rows(text, "compare")[0][1] == "16"


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_the_reruns_report_in_a_browser_cuts_no_transcript_id(
    scored_and_rerun: tuple[Path, str, dict[str, Any]],
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    store, _, rerun = scored_and_rerun
    path = report([rerun["run_id"]], store.parent / "rb.html", store)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(path.as_uri())
        assert page.locator("#rerun table.reruns tbody tr").count() == 8
        assert page.locator("#rerun table.compare").is_visible()
        rows = page.locator("#grid .sid")
        assert rows.count() == 8
        for i in range(rows.count()):
            row = rows.nth(i)
            # A transcript id (a 36-character UUID) is shown whole: it wraps, it is not cut.
            assert row.inner_text() in {t["id"] for t in rerun["per_transcript"]}
            assert row.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), row.inner_text()
        browser.close()


def test_a_rerun_pairs_by_task_with_another_file_of_the_same_tasks(
    scored_and_rerun: tuple[Path, str, dict[str, Any]],
) -> None:
    # Another model's trajectories of the same tasks: no transcript id in common, the tasks
    # are (each trial of a rerun against that file's verdict of its task).
    store, _, rerun = scored_and_rerun
    other = TAU2.with_name("claude-sonnet-4-5_airline_default_gpt4.1_1trials.json")
    scored = _json(["score", str(other), "--store", str(store)])["run_id"]
    result = compare(scored, rerun["run_id"], store)
    assert result.paired_on == "task × trial (original vs rerun)"
    success = next(m for m in result.metrics if m.metric == "session_success")
    tasks = {t["task"] for t in rerun["per_transcript"]}
    with Store.open_for_reading(store) as db:
        theirs = {s.scenario_id: s.verdict for s in db.load_sessions(scored)}
    shared = tasks & theirs.keys()
    assert shared and success.pairs == 2 * len(shared)
    assert success.rate_a == pytest.approx(sum(bool(theirs[t]) for t in shared) / len(shared))
