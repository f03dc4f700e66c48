"""A tau-bench trajectory file, built from the shared tau2 trajectories, scores as tau-bench
scores: reward 1 iff the DB after the recorded calls equals the DB after the gold actions AND
every `outputs` text appears in some agent reply; a null reward_info scores 0."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from sessionproof.domains import get_domain
from sessionproof.errors import ToolError
from sessionproof.importers import import_file
from sessionproof.suites._score import score_transcripts

from ._data import RETAIL_GPT, TRAJECTORIES, domain_of, load, openai_messages

UNSAID = "a fact nobody said"


def _record(sim: dict[str, Any], task: dict[str, Any], n: int) -> dict[str, Any]:
    crit = task["evaluation_criteria"]
    outputs = list(crit.get("communicate_info") or [])
    if n % 7 == 3:
        outputs.append(UNSAID)  # some records need an output the agent never gave
    reward_info = None if n % 11 == 5 else {"reward": 1.0, "info": {}, "actions": []}
    return {
        "task_id": int(sim["task_id"]),
        "trial": sim["trial"],
        "reward": 1.0,  # deliberately wrong half the time: the file's claim is not our input
        "info": {
            "task": {
                "user_id": "someone",
                "instruction": str(task["user_scenario"]["instructions"]),
                "actions": [
                    {"name": a["name"], "kwargs": a["arguments"]} for a in crit["actions"] or []
                ],
                "outputs": outputs,
            },
            "reward_info": reward_info,
        },
        "traj": [{"role": "system", "content": "policy"}, *openai_messages(sim["messages"])],
    }


def _build(path: Path, out: Path) -> list[dict[str, Any]]:
    data = load(path)
    tasks = {t["id"]: t for t in data["tasks"]}
    records = [_record(s, tasks[s["task_id"]], n) for n, s in enumerate(data["simulations"])]
    out.write_text(json.dumps(records), encoding="utf-8")
    return records


def _final_db(domain_name: str, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    domain = get_domain(domain_name).create()
    for name, args in calls:
        with contextlib.suppress(ToolError):
            domain.call(name, args)
    return domain.db


def _expected(record: dict[str, Any], domain_name: str) -> float:
    if record["info"]["reward_info"] is None:
        return 0.0
    recorded = []
    for m in record["traj"]:
        for c in m.get("tool_calls") or []:
            recorded.append((c["function"]["name"], json.loads(c["function"]["arguments"])))
    gold = [
        (a["name"], a["kwargs"])
        for a in record["info"]["task"]["actions"]
        if a["name"] != "transfer_to_human_agents"
    ]
    # Whole-DB equality of the two models: independent of any hashing scheme.
    same_db = _final_db(domain_name, recorded) == _final_db(domain_name, gold)
    said = [
        m["content"].lower().replace(",", "")
        for m in record["traj"]
        if m["role"] == "assistant" and m.get("content")
    ]
    outputs = all(any(o.lower() in t for t in said) for o in record["info"]["task"]["outputs"])
    return 1.0 if same_db and outputs else 0.0


def test_taubench_file_scores_as_specified(tmp_path: Path) -> None:
    totals = {"one": 0, "zero": 0, "null": 0, "unsaid": 0}
    for path in TRAJECTORIES:
        out = tmp_path / f"tb-{path.name}"
        records = _build(path, out)
        report = score_transcripts(out, "auto", None, tmp_path / "s.duckdb")
        assert report.format == "tau-bench"
        assert report.domain == f"taubench-{domain_of(path)}"
        assert report.sessions == len(records) and report.errors == []
        got = {s.session_id: s.reward for s in report.scores}
        for record in records:
            sid = f"{record['task_id']}-{record['trial']}"
            want = _expected(record, f"taubench-{domain_of(path)}")
            assert got[sid] == want, sid
            totals["one" if want else "zero"] += 1
            totals["null"] += record["info"]["reward_info"] is None
            totals["unsaid"] += UNSAID in record["info"]["task"]["outputs"]
    assert totals["one"] >= 40 and totals["zero"] >= 40
    assert totals["null"] >= 8 and totals["unsaid"] >= 14


def test_null_reward_info_is_a_step_limit_session(tmp_path: Path) -> None:
    out = tmp_path / "tb.json"
    records = _build(RETAIL_GPT, out)
    result = import_file(out, "tau-bench", run_id="r")
    nulls = [r for r in records if r["info"]["reward_info"] is None]
    limited = [s for s in result.sessions if s.session.termination.value == "max_steps"]
    assert len(limited) == len(nulls) >= 3


def test_taubench_semantics_change_two_retail_verdicts(tmp_path: Path) -> None:
    # In tasks 97 and 111 the agent changed the items of an order and then its address;
    # tau2 allows an address change on "pending (item modified)", tau-bench only on
    # "pending": under tau-bench the address change fails and the DB no longer matches gold.
    out = tmp_path / "tb.json"
    _build(RETAIL_GPT, out)
    tb = {s.scenario_id: s for s in score_transcripts(out, "tau-bench", "retail", None).scores}
    t2 = {s.scenario_id: s for s in score_transcripts(RETAIL_GPT, "tau2", "retail", None).scores}
    flipped = sorted(
        k for k in t2 if tb[k].db_match is not None and t2[k].db_match != tb[k].db_match
    )
    assert flipped == ["111", "97"]
    assert all(t2[k].db_match and not tb[k].db_match for k in flipped)
