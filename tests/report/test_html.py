"""The HTML report: sections, escaping, the CSP, compare, and the report written by commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.report.html._internal import CSP
from sessionproof.report.html._page import _json_for_script
from sessionproof.runs import RunConfig, compare, report, run

from ._hostile import EVIL, build_store, hostile_transcript

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    return build_store(tmp_path_factory.mktemp("report"))


def test_report_has_every_section_and_no_live_markup(store: tuple[Path, str, str]) -> None:
    path, demo, hostile = store
    out = report([demo, hostile], path.parent / "r.html", path)
    html = out.read_text(encoding="utf-8")
    for sid in ("headline", "survival", "recovery", "failures", "patterns", "grid", "compare"):
        assert f'id="{sid}"' in html, sid
    assert f'content="{CSP}"' in html and "default-src 'none'" in CSP
    assert "<script>alert(1)</script>" not in html and "<img src=x" not in html
    # The hostile text is there, as escaped data: only the page's own two script elements.
    assert "alert(1)" in html
    assert len(re.findall(r"<script", html)) == 2
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?https?://", html)
    # The survival curve is drawn for the demo run (its domain has write tools).
    assert html.count("<polyline") >= 2


def test_a_section_without_data_says_not_measured(store: tuple[Path, str, str]) -> None:
    path, _, hostile = store
    html = report([hostile], path.parent / "h.html", path).read_text(encoding="utf-8")
    assert "not measured in this run" in html
    assert 'id="survival"' in html and "<polyline" not in html


def test_compare_pairs_shared_trials(store: tuple[Path, str, str]) -> None:
    path, demo, _ = store
    result = compare(demo, demo, path)
    success = next(m for m in result.metrics if m.metric == "session_success")
    assert success.pairs == 12 and success.only_a == success.only_b == 0
    assert success.mcnemar_p == 1.0 and success.pairs_needed is None
    shown = runner.invoke(app, ["compare", demo, demo, "--json", "--store", str(path)])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["metrics"][0]["pairs"] == 12


@pytest.mark.slow
def test_compare_judges_each_run_on_its_own_gold_path(tmp_path: Path) -> None:
    # Two runs of one suite share session ids ("0.t0"); each run's "on gold path" must come
    # from its own walks (both rates were run B's before).
    db = tmp_path / "two.duckdb"
    clean = run(RunConfig(suite="demo", model="oracle", trials=2, store=db)).run_id
    faulty = RunConfig(suite="demo", model="oracle", trials=2, faults="60%", seed=1, store=db)
    broken = run(faulty).run_id
    for a, b in ((clean, broken), (broken, clean)):
        result = {m.metric: m for m in compare(a, b, db).metrics}
        for name in ("session_success", "on_gold_path"):
            assert result[name].rate_a != result[name].rate_b, (a, name)
        on_path = result["on_gold_path"]
        assert (on_path.rate_a == 1.0) is (a == clean)
        assert on_path.only_a + on_path.only_b > 0


def test_report_cli_writes_the_file_and_prints_its_path(store: tuple[Path, str, str]) -> None:
    path, demo, _ = store
    target = path.parent / "cli.html"
    result = runner.invoke(app, ["report", demo, "-o", str(target), "--store", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(target) and target.stat().st_size > 0


def test_unknown_run_is_one_line_error(store: tuple[Path, str, str]) -> None:
    path, _, _ = store
    result = runner.invoke(app, ["report", "nosuchrun", "--store", str(path)])
    assert result.exit_code != 0 and "Traceback" not in result.output


def test_score_writes_its_report_into_the_folder_beside_the_store_unless_told_not(
    tmp_path: Path,
) -> None:
    # Issue 34.14 moves the run's report from report-RUN.html beside the store into one
    # folder beside it (STORE-reports/RUN.html).
    src = hostile_transcript(tmp_path / "x.jsonl")
    store = tmp_path / "s.duckdb"
    args = ["score", str(src), "--format", "openai", "--json", "--store", str(store)]
    result = runner.invoke(app, args)
    run_id = json.loads(result.stdout)["run_id"]  # stdout stays pure JSON
    written = list((tmp_path / "s-reports").glob("*.html"))
    assert [p.name for p in written] == [f"{run_id}.html"]
    assert list(tmp_path.glob("*.html")) == []
    assert f"report: {written[0]}" in result.stderr
    assert EVIL not in written[0].read_text(encoding="utf-8")
    again = runner.invoke(app, [*args, "--no-report"])
    assert len(list((tmp_path / "s-reports").glob("*.html"))) == 1
    assert "report: " not in again.stderr


def test_runs_in_the_working_folder_leave_one_folder_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--store x.duckdb` names a store in the working folder: its reports go to x-reports/,
    # never loose into the working folder.
    monkeypatch.chdir(tmp_path)
    args = ["run", "--suite", "demo", "--model", "oracle", "--limit", "1", "--store", "x.duckdb"]
    ids = []
    for _ in range(3):
        out = runner.invoke(app, [*args, "--json"])
        assert out.exit_code == 0, out.output
        ids.append(json.loads(out.stdout)["run_id"])
        assert f"report: {Path('x-reports') / (ids[-1] + '.html')}" in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x-reports", "x.duckdb"]
    assert sorted(p.name for p in (tmp_path / "x-reports").iterdir()) == sorted(
        f"{i}.html" for i in ids
    )
    # `report` without -o writes there too, and prints the path.
    shown = runner.invoke(app, ["report", ids[0], ids[1], "--store", "x.duckdb"])
    assert shown.exit_code == 0, shown.output
    both = Path("x-reports") / f"{ids[0]}+{ids[1]}.html"
    assert shown.stdout.strip() == str(both) and both.stat().st_size > 0


def test_the_report_mines_without_the_risk_model(store: tuple[Path, str, str]) -> None:
    from sessionproof.patterns import MineOptions, mine
    from sessionproof.store import Store

    path, demo, _ = store
    with Store.open_for_reading(path) as db:
        sessions = db.load_sessions(demo)
    arm = "faults=40%"  # the arm with failures: mining stops early without any
    quick = mine(sessions, MineOptions(early_warning=False), arm=arm)
    assert quick.risk.folds == 0 and quick.risk.cv_auc_by_prefix == {}
    assert "not computed" in quick.risk.note
    full = mine(sessions, MineOptions(), arm=arm)
    assert [f.pattern for f in quick.findings] == [f.pattern for f in full.findings]


def test_the_embedded_data_is_json_a_script_cannot_be_broken_out_of() -> None:
    # The fast encoder and the fallback a lone surrogate takes give the same data, with
    # "<", ">" and "&" escaped so no text can close the <script> it sits in.
    value = {"text": "</script><b>&", "n": [1, 2.5, None], "ü": "日本"}
    text = _json_for_script(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value
    broken = {"text": "half a pair \ud800 </script>"}
    out = _json_for_script(broken)
    assert "<" not in out and json.loads(out) == broken
