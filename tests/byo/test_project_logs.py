"""A user's own chat log scored, rerun and mined against the user's own project (issue 34
item 8): `score`/`rerun`/`patterns --suite PROJECT` know the project's domains (its
`python:` toolkit imported from the project folder) and judge a session of one of its
scenarios against that scenario; a session with nothing to judge it by is not judged, never
graded 0; `--domain recorded` works for `score` too; broken input is one line.

The project is the real `init` scaffold (a Python toolkit `shop`, three scenarios, one with
its own `initial_state`); the log is OpenAI chat-completions JSONL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.store import Store

runner = CliRunner()
_CLI = (sys.executable, "-m", "sessionproof.cli")


def _call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {
        "id": cid,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def _turn(calls: list[dict[str, Any]], results: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "assistant", "content": None, "tool_calls": calls}]
    for call, result in zip(calls, results, strict=True):
        out.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    return out


def _log(path: Path) -> Path:
    """Four sessions: two of the project's scenarios done right (one needs the scenario's own
    `initial_state`: order O1003 exists only there), one done wrong, one plain chat."""
    cancel = [
        {"role": "user", "content": "Please cancel order O1002, I ordered it by mistake."},
        *_turn([_call("c1", "get_order", order_id="O1002")], [{"status": "pending"}]),
        *_turn(
            [_call("c2", "cancel_order", order_id="O1002", reason="ordered_by_mistake")],
            [{"status": "cancelled"}],
        ),
        {"role": "assistant", "content": "Done: order O1002 is cancelled."},
    ]
    moved = [
        {"role": "user", "content": "I moved to 22 Birch Road. Order O1003 is still coming."},
        *_turn(
            [_call("m1", "update_address", order_id="O1003", address="22 Birch Road")],
            [{"status": "pending"}],
        ),
        {"role": "assistant", "content": "Updated."},
        {"role": "user", "content": "Thanks. Actually, cancel it instead, I changed my mind."},
        *_turn(
            [_call("m2", "cancel_order", order_id="O1003", reason="changed_mind")],
            [{"status": "cancelled"}],
        ),
        {"role": "assistant", "content": "Cancelled."},
    ]
    lazy = [
        {"role": "user", "content": "Hi, where is my order O1001?"},
        {"role": "assistant", "content": "I cannot tell, sorry."},
    ]
    chat = [
        {"role": "user", "content": "Do you sell teapots?"},
        {"role": "assistant", "content": "Yes, we do."},
    ]
    lines = [
        {"id": "cancel-teapot", "messages": cancel, "outcome": True},
        {"id": "moved-house", "messages": moved, "outcome": True},
        {"id": "order-status", "messages": lazy, "outcome": False},
        {"id": "teapot-question", "messages": chat},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    made = runner.invoke(app, ["init", str(tmp_path / "proj")])
    assert made.exit_code == 0, made.output
    return tmp_path / "proj"


def _json(*args: str, code: int = 0) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.slow
def test_score_judges_an_own_log_against_the_own_project(tmp_path: Path, project: Path) -> None:
    log = _log(tmp_path / "support.jsonl")
    store = tmp_path / "s.duckdb"
    out = _json("score", str(log), "--suite", str(project), "--store", str(store), "--no-report")
    assert out["suite"] == str(project.resolve())
    assert out["sessions"] == 4
    assert out["not_judged"] == 1
    assert out["session_accuracy"] == pytest.approx(2 / 3)
    assert out["agreement"]["reward"] == {"match": 3, "total": 3}
    with Store.open_for_reading(store) as db:
        sessions = {s.session_id: s for s in db.load_sessions(out["run_id"])}
    verdicts = {sid: s.verdict for sid, s in sessions.items()}
    # moved-house passes only if its own initial_state was applied (O1003 is only there).
    assert verdicts == {
        "cancel-teapot": True,
        "moved-house": True,
        "order-status": False,
        "teapot-question": None,
    }
    unjudged = sessions["teapot-question"].outcome
    assert (
        unjudged is not None
        and unjudged.not_judged
        and "no task or scenario" in unjudged.not_judged
    )
    # Embedded: `show --metrics` finds the scenario; the project named to `score` is loaded
    # again for its domains (a fresh process: nothing registered by this test).
    assert sessions["moved-house"].metadata["scenario"]["id"] == "moved-house"
    shown = subprocess.run(
        [*_CLI, "show", out["run_id"], "--store", str(store), "--metrics", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    calls = json.loads(shown.stdout)["arms"]["baseline"]["calls"]
    assert (calls["gold_actions"], calls["gold_actions_matched"]) == (5, 4)


def test_a_log_without_domain_is_not_judged_never_graded_zero(tmp_path: Path) -> None:
    log = _log(tmp_path / "support.jsonl")
    store = tmp_path / "s.duckdb"
    out = _json("score", str(log), "--store", str(store), "--no-report")
    assert out["sessions"] == 4
    # Issue 38.6: a line's own `outcome` is kept as its verdict (a `label` criterion, the
    # file's word, not graded here, so no accuracy of ours); the line without one is not
    # judged, never graded 0.
    assert out["session_accuracy"] is None
    assert out["not_judged"] == 1
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(out["run_id"])
    assert [s.verdict for s in sessions] == [True, True, False, None]
    for s in sessions[:3]:
        assert s.outcome is not None and [c.name for c in s.outcome.criteria] == ["label"]
    last = sessions[3].outcome
    assert last is not None and last.not_judged


def test_score_domain_recorded_is_not_judged_and_counts_divergences(tmp_path: Path) -> None:
    log = _log(tmp_path / "support.jsonl")
    lines = log.read_text(encoding="utf-8").splitlines()
    # One call that no recorded result answers.
    dangling = {
        "id": "dangling",
        "messages": [
            {"role": "user", "content": "Cancel O1002."},
            {"role": "assistant", "content": None, "tool_calls": [_call("d1", "get_order")]},
        ],
    }
    log.write_text("\n".join([*lines, json.dumps(dangling)]) + "\n", encoding="utf-8")
    out = _json(
        "score",
        str(log),
        "--domain",
        "recorded",
        "--store",
        str(tmp_path / "s.duckdb"),
        "--no-report",
    )
    assert out["sessions"] == 5
    assert out["session_accuracy"] is None
    assert out["not_judged"] == 5
    assert out["divergences"] == 1
    assert all("recorded" in reason for reason in out["not_judged_reasons"])


def test_rerun_and_patterns_of_an_own_log_in_the_own_project(tmp_path: Path, project: Path) -> None:
    log = _log(tmp_path / "support.jsonl")
    store = tmp_path / "s.duckdb"
    out = _json(
        "rerun",
        str(log),
        "--suite",
        str(project),
        "--model",
        "oracle",
        "--store",
        str(store),
        "--no-report",
    )
    rows = {t["id"]: t for t in out["per_transcript"]}
    for sid in ("cancel-teapot", "moved-house", "order-status"):
        assert rows[sid]["judged_by"] == "criteria", rows[sid]
        assert rows[sid]["rerun"] == [True], rows[sid]
    assert rows["order-status"]["original"] is False
    assert rows["teapot-question"]["rerun"] == [None]
    assert out["recorded_responses"] == 0
    mined = _json("patterns", str(log), "--suite", str(project), "--min-support", "1")
    assert mined["sessions"] == 3
    assert mined["failures"] == 1


def test_a_python_domain_resolves_from_the_project_folder_in_rerun(
    tmp_path: Path, project: Path
) -> None:
    log = _log(tmp_path / "support.jsonl")
    out = _json(
        "rerun",
        str(log),
        "--suite",
        str(project),
        "--domain",
        "python:shop_tools:ShopTools",
        "--model",
        "oracle",
        "--store",
        str(tmp_path / "s.duckdb"),
        "--limit",
        "1",
        "--no-report",
    )
    # The toolkit module was imported from the project folder: the transcript reran in it
    # (not against its recorded responses, the fallback for a domain that is not known).
    assert out["per_transcript"][0]["judged_by"] == "criteria"
    assert out["recorded_responses"] == 0
    assert out["skipped"] == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "{log}", "--domain", "bank"], "unknown domain 'bank'"),
        (["score", "{log}", "--suite", "{tmp}/nowhere"], "nowhere"),
        (["score", "{log}", "--suite", "{project}", "--domain", "bank"], "project's domains: shop"),
        (["rerun", "{log}", "--model", "oracle", "--domain", "bank"], "unknown domain 'bank'"),
        (["rerun", "{log}", "--model", "oracle", "--suite", "{tmp}/no.yaml"], "no.yaml"),
        (["patterns", "{log}", "--suite", "{tmp}/nowhere"], "nowhere"),
    ],
)
def test_broken_input_is_one_line(
    tmp_path: Path, project: Path, args: list[str], needle: str
) -> None:
    log = _log(tmp_path / "support.jsonl")
    filled = [a.format(log=log, tmp=tmp_path, project=project) for a in args]
    # The real entry point, in its own process: what a user sees (and no domain registered
    # by another test).
    result = subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *filled, "--store", str(tmp_path / "s.duckdb")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert lines[0].startswith("error: ")
    assert not (tmp_path / "s.duckdb").exists()


@pytest.mark.slow
def test_a_trace_of_a_project_run_is_judged_again_with_suite(tmp_path: Path, project: Path) -> None:
    """The whole path: a run of the project, its trace exported, the trace scored. The
    trace names the project, but only `--suite` loads it."""
    store = tmp_path / "s.duckdb"
    ran = _json(
        "run", "--suite", str(project), "--model", "oracle", "--store", str(store), "--no-report"
    )
    assert ran["session_accuracy"] == 1.0
    trace = tmp_path / "trace.json"
    export = ["export", ran["run_id"], "--store", str(store), "--format", "otlp-json"]
    exported = runner.invoke(app, [*export, "-o", str(trace), "--otel-content"])
    assert exported.exit_code == 0, exported.output
    alone = _json("score", str(trace), "--store", str(store), "--no-report")
    # Not loaded: no scenario to judge by, so the sessions keep the trace's own verdicts.
    assert alone["session_accuracy"] is None
    assert alone["agreement"]["reward"]["total"] == 0
    named = _json(
        "score", str(trace), "--suite", str(project), "--store", str(store), "--no-report"
    )
    assert named["sessions"] == 3
    assert named["session_accuracy"] == 1.0
    assert named["agreement"]["reward"] == {"match": 3, "total": 3}
    rerun = _json(
        "rerun",
        str(trace),
        "--suite",
        str(project),
        "--model",
        "oracle",
        "--store",
        str(store),
        "--no-report",
    )
    assert {t["judged_by"] for t in rerun["per_transcript"]} == {"criteria"}
    assert [t["rerun"] for t in rerun["per_transcript"]] == [[True]] * 3
    assert rerun["recorded_responses"] == 0
