"""Transcript files for the rerun tests: the shared tau2 trajectories, and derived files."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from sessionproof.domains import get_domain
from sessionproof.errors import ToolError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tau"
AIRLINE_GPT = FIXTURES / "gpt-4.1_airline_default_gpt-4.1_1trials.json"
AIRLINE_CLAUDE = FIXTURES / "claude-sonnet-4-5_airline_default_gpt4.1_1trials.json"
RETAIL_GPT = FIXTURES / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json"
TRAJECTORIES = (AIRLINE_GPT, RETAIL_GPT, AIRLINE_CLAUDE)


def load(path: Path) -> dict[str, Any]:
    """A tau2 results file, parsed."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def domain_name(data: dict[str, Any]) -> str:
    """The domain a tau2 results file names."""
    name: str = data["info"]["environment_info"]["domain_name"]
    return name


def gold_calls(task: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The agent-side reference calls of a tau2 task."""
    crit = task.get("evaluation_criteria") or {}
    return [
        (a["name"], a.get("arguments") or {})
        for a in crit.get("actions") or []
        if a.get("requestor", "assistant") == "assistant"
    ]


def idle_agent_passes(task: dict[str, Any], domain: str) -> bool:
    """True when doing nothing already meets a DB + COMMUNICATE task: its reference calls
    leave the DB as it starts (none writes, or every write is refused) and it asks for no
    fact. Worked out by running the calls on the domain directly, not through the scorer."""
    crit = task.get("evaluation_criteria") or {}
    if crit.get("communicate_info"):
        return False
    spec = get_domain(domain)
    fresh, after = spec.create(), spec.create()
    for name, args in gold_calls(task):
        with contextlib.suppress(ToolError):
            after.call(name, dict(args))
    return bool(fresh.state_hash() == after.state_hash())


def openai_call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI chat-completions tool call."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def write_jsonl(path: Path, records: list[Any]) -> Path:
    """One JSON value per line (a str is written as the raw line)."""
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
