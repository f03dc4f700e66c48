"""tau2-telecom against tau2-bench's own evaluator: sessions run here, re-graded by tau2.

Runs the oracle and the `python:` support agent of tests/suites/tau2/telecom_guide.py (with
its `python:` user) on the 20 shipped telecom tasks, then hands every session to tau2-bench's
`evaluate_simulation` (strict replay: each recorded output of a state-changing tool, on
either side, must equal what tau2's own tools return) in an interpreter that has tau2
importable, and prints both verdicts (reward and db_match) per session.

    .venv/bin/python benchmarks/telecom_fidelity.py --tau2-python VENV/bin/python \\
        --tau2-src TAU2/src --tau2-data TAU2/data

`--tau2-src` is a tau2-bench checkout's `src` (its domains, environment and evaluator import
with loguru, pydantic, deepdiff, addict, PyYAML, toml, python-dotenv, docstring-parser, rich
and tabulate installed); `--tau2-data` its `data` directory (db.toml, user_db.toml, policies).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = "python:tests.suites.tau2.telecom_guide"


async def _sessions() -> list[dict[str, object]]:
    sys.path.insert(0, str(ROOT))
    from sessionproof.agents import OracleAgent, make_agent
    from sessionproof.engine import execute_run
    from sessionproof.engine._internal import RunPlan, SessionList
    from sessionproof.suites.tau2._evaluate import judge_tau2
    from sessionproof.suites.tau2.telecom._suite import telecom_suite

    suite = telecom_suite("tau2-telecom")
    by_id = {s.id: s for s in suite.scenarios}
    rows: list[dict[str, object]] = []
    runs = [
        ("oracle", OracleAgent(), None),
        ("guide", make_agent(f"{GUIDE}:agent"), make_agent(f"{GUIDE}:user")),
    ]
    for label, agent, user in runs:
        plan = RunPlan(run_id=label, concurrency=4)
        for s in await execute_run(suite, agent, plan, SessionList(), user_model=user):
            judged = judge_tau2(by_id[s.scenario_id], s)  # offline: replayed from the trace
            rows.append(
                {
                    "run": label,
                    "task": by_id[s.scenario_id].metadata["tau2_task"],
                    "termination": s.termination.value,
                    "reward": s.outcome.reward if s.outcome else None,
                    "offline_reward": judged.outcome.reward,
                    "db_match": judged.db_match,
                    "events": [
                        {"kind": e.kind.value, "payload": e.payload.model_dump(mode="json")}
                        for e in s.events
                    ],
                }
            )
    return rows


def _regrade(path: str) -> None:
    """Runs in the tau2 interpreter: each session as tau2 messages, graded by tau2."""
    from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.data_model.tasks import Task
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    def result(p: dict, side: str) -> ToolMessage:
        failed = p.get("error_class") is not None
        return ToolMessage(
            id=p["call_id"], role="tool", content=p["output"], requestor=side, error=failed
        )

    rows = json.loads(Path(path).read_text())
    for row in rows:
        msgs: list = []
        for e in row["events"]:
            kind, p = e["kind"], e["payload"]
            if kind == "user_message":
                msgs.append(UserMessage(role="user", content=p["content"]))
            elif kind == "assistant_message":
                calls = [
                    ToolCall(id=c["id"], name=c["name"], arguments=c["arguments"] or {})
                    for c in p["tool_calls"]
                ]
                if calls:
                    msgs.append(AssistantMessage(role="assistant", tool_calls=calls))
                elif p.get("content"):
                    msgs.append(AssistantMessage(role="assistant", content=p["content"]))
            elif kind == "tool_result":
                msgs.append(result(p, "assistant"))
            elif kind == "user_tool_call":
                call = ToolCall(
                    id=p["id"], name=p["name"], arguments=p["arguments"] or {}, requestor="user"
                )
                msgs.append(UserMessage(role="user", tool_calls=[call]))
            elif kind == "user_tool_result":
                msgs.append(result(p, "user"))
        ended = {"transfer": "user_stop"}.get(row["termination"], row["termination"])
        sim = SimulationRun(
            id="s",
            task_id=row["task"]["id"],
            start_time="",
            end_time="",
            duration=0.0,
            termination_reason=TerminationReason(ended),
            messages=msgs,
        )
        info = evaluate_simulation(
            sim, Task.model_validate(row["task"]), EvaluationType.ALL, False, "telecom"
        )
        row["tau2_reward"] = info.reward
        row["tau2_db_match"] = info.db_check.db_match if info.db_check else None
        del row["events"]
    Path(path).write_text(json.dumps(rows))


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--regrade":
        _regrade(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tau2-python", required=True)
    parser.add_argument("--tau2-src", required=True)
    parser.add_argument("--tau2-data", required=True)
    args = parser.parse_args()
    rows = asyncio.run(_sessions())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sessions.json"
        path.write_text(json.dumps(rows))
        env = {**os.environ, "PYTHONPATH": args.tau2_src, "TAU2_DATA_DIR": args.tau2_data}
        subprocess.run(
            [args.tau2_python, __file__, "--regrade", str(path)],
            env=env,
            check=True,
            capture_output=True,
        )
        graded = json.loads(path.read_text())
    for label in ("oracle", "guide"):
        mine = [r for r in graded if r["run"] == label]
        same = sum(r["reward"] == r["tau2_reward"] for r in mine)
        offline = sum(r["reward"] == r["offline_reward"] for r in mine)
        db = sum(r["db_match"] == r["tau2_db_match"] for r in mine)
        passed = sum(r["reward"] == 1.0 for r in mine)
        print(
            f"{label}: {len(mine)} sessions, {passed} at reward 1; reward equal to tau2's on "
            f"{same}/{len(mine)}, db_match on {db}/{len(mine)}; offline replay equal to live "
            f"on {offline}/{len(mine)}"
        )
        for r in mine:
            if r["reward"] != r["tau2_reward"] or r["db_match"] != r["tau2_db_match"]:
                print(f"  differs: {r['task']['id']}: {r}")


if __name__ == "__main__":
    main()
