"""Seed inputs for the fuzzer: small, valid files of every kind, cut from the shipped fixtures.

Each seed holds a few records only (the shortest tau2 simulations, a handful of BFCL ids,
three demo scenarios), so a mutated case runs in a fraction of a second. Every seed is built
once per process and handed out as a fresh deep copy.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..suites.tau2._data import (
    AIRLINE_CLAUDE,
    AIRLINE_GPT,
    RETAIL_GPT,
    anthropic_messages,
    load,
    openai_messages,
)
from ._mutate import copy_tree

ROOT = Path(__file__).resolve().parents[2]
BFCL_VERDICTS = ROOT / "tests" / "fixtures" / "bfcl" / "bfcl_ast_checker_verdicts.jsonl"
BFCL_IDS = (
    "simple_python_0",
    "simple_python_1",
    "multiple_0",
    "parallel_0",
    "parallel_1",
    "parallel_multiple_0",
)
"""Questions the BFCL seeds hold (every AST-checked category)."""

_TAU_FILES = (AIRLINE_GPT, AIRLINE_CLAUDE, RETAIL_GPT)


@functools.cache
def _tau2_small(index: int) -> dict[str, Any]:
    """One shipped tau2 results file cut to its two shortest simulations and their tasks."""
    data = load(_TAU_FILES[index])
    sims = sorted(data["simulations"], key=lambda s: len(s["messages"]))[:2]
    ids = {s["task_id"] for s in sims}
    return {**data, "simulations": sims, "tasks": [t for t in data["tasks"] if t["id"] in ids]}


def tau2_seeds() -> list[dict[str, Any]]:
    """Small tau2 results files (airline and retail)."""
    return [copy_tree(_tau2_small(i)) for i in range(len(_TAU_FILES))]


def taubench_seeds() -> list[list[dict[str, Any]]]:
    """tau-bench trajectory lists built from the same simulations."""
    seeds = []
    for i in range(len(_TAU_FILES)):
        data = _tau2_small(i)
        tasks = {t["id"]: t for t in data["tasks"]}
        records = []
        for sim in data["simulations"]:
            crit = tasks[sim["task_id"]]["evaluation_criteria"]
            records.append(
                {
                    "task_id": int(sim["task_id"]),
                    "trial": sim["trial"],
                    "reward": sim["reward_info"]["reward"],
                    "info": {
                        "task": {
                            "user_id": "someone",
                            "instruction": str(
                                tasks[sim["task_id"]]["user_scenario"]["instructions"]
                            ),
                            "actions": [
                                {"name": a["name"], "kwargs": a["arguments"]}
                                for a in crit["actions"] or []
                            ],
                            "outputs": list(crit.get("communicate_info") or []),
                        },
                        "reward_info": {"reward": sim["reward_info"]["reward"], "info": {}},
                    },
                    "traj": [
                        {"role": "system", "content": "policy"},
                        *openai_messages(sim["messages"]),
                    ],
                }
            )
        seeds.append(copy_tree(records))
    return seeds


def _demo_chat(order: str) -> list[dict[str, Any]]:
    args = json.dumps({"order_id": order, "reason": "ordered_by_mistake"})
    return [
        {"role": "system", "content": "You are a helpful support agent."},
        {"role": "user", "content": f"elena.petrova@example.com here; cancel order {order}."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "cancel_order", "arguments": args},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "cancelled"}'},
        {"role": "assistant", "content": "Cancelled; the refund is on its way."},
    ]


def _anthropic_chat(order: str) -> tuple[str, list[dict[str, Any]]]:
    return "You are a helpful support agent.", [
        {"role": "user", "content": f"elena.petrova@example.com here; cancel order {order}."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Cancelling it."},
                {
                    "type": "tool_use",
                    "id": "c1",
                    "name": "cancel_order",
                    "input": {"order_id": order, "reason": "ordered_by_mistake"},
                },
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "cancelled"}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Done, refund issued."}]},
    ]


def chat_seeds(fmt: str) -> list[list[dict[str, Any]]]:
    """JSONL chat logs (`openai` or `anthropic`): lines with an attached tau2 task and outcome
    (airline), and demo-domain lines with only an outcome."""
    convert = openai_messages if fmt == "openai" else anthropic_messages
    data = _tau2_small(0)
    tasks = {t["id"]: t for t in data["tasks"]}
    tau_lines = [
        {
            "id": sim["id"],
            "domain": "airline",
            "task": tasks[sim["task_id"]],
            "outcome": {
                "reward": sim["reward_info"]["reward"],
                "db_match": sim["reward_info"]["db_check"]["db_match"],
            },
            "messages": convert(sim["messages"]),
        }
        for sim in data["simulations"]
    ]
    demo_lines: list[dict[str, Any]] = []
    for n, order in enumerate(("1055", "1042")):
        line: dict[str, Any] = {"id": f"demo-{n}", "domain": "demo", "outcome": n == 0}
        if fmt == "openai":
            line["messages"] = _demo_chat(order)
        else:
            line["system"], line["messages"] = _anthropic_chat(order)
        demo_lines.append(line)
    return [copy_tree(tau_lines[:1] + demo_lines), copy_tree(tau_lines), copy_tree(demo_lines)]


def _bfcl_package(name: str) -> bytes:
    import sessionproof.suites.bfcl as bfcl

    return resources.files(bfcl).joinpath("data", name).read_bytes()


@functools.cache
def _bfcl() -> tuple[list[Any], list[Any], list[Any]]:
    wanted = set(BFCL_IDS)
    questions: list[Any] = []
    answers: list[Any] = []
    for category in ("simple_python", "multiple", "parallel", "parallel_multiple"):
        name = f"BFCL_v4_{category}.json"
        questions += [
            r for r in map(json.loads, _bfcl_package(name).splitlines()) if r["id"] in wanted
        ]
        answers += [
            r
            for r in map(json.loads, _bfcl_package(f"possible_answer/{name}").splitlines())
            if r["id"] in wanted
        ]
    outputs: list[Any] = []
    per_id: dict[str, int] = {}
    with BFCL_VERDICTS.open(encoding="utf-8") as handle:
        for text in handle:
            row = json.loads(text)
            if row["id"] in wanted and per_id.get(row["id"], 0) < 2:
                per_id[row["id"]] = per_id.get(row["id"], 0) + 1
                outputs.append(
                    {
                        "id": row["id"],
                        "model_output_decoded": row["model_output_decoded"],
                        "variant": row["variant"],
                    }
                )
    return questions, answers, outputs


def bfcl_seeds() -> tuple[list[Any], list[Any], list[Any]]:
    """(questions, possible answers, decoded outputs) for `BFCL_IDS`, one record a line."""
    q, a, o = _bfcl()
    return copy_tree(q), copy_tree(a), copy_tree(o)


@functools.cache
def _suite() -> list[Any]:
    import sessionproof.domains.demo as demo

    raw = resources.files(demo).joinpath("scenarios.yaml").read_bytes()
    scenarios: list[Any] = yaml.safe_load(raw)[:3]
    scenarios[0]["max_steps"] = 12
    scenarios[1]["metadata"] = {"source": "fuzz seed", "trial": 0}
    # A simulated-user scenario too: the oracle then states the instructions as one message.
    scenarios[2]["user"] = {"instructions": " ".join(scenarios[2]["user"]["turns"])}
    return scenarios


def suite_seeds() -> list[list[Any]]:
    """A scenario suite of three demo scenarios (scripted and simulated users)."""
    return [copy_tree(_suite())]
