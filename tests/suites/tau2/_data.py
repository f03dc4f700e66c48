"""Paths of the shared tau fixtures and helpers that derive other formats from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tau"
AIRLINE_GPT = FIXTURES / "gpt-4.1_airline_default_gpt-4.1_1trials.json"
AIRLINE_CLAUDE = FIXTURES / "claude-sonnet-4-5_airline_default_gpt4.1_1trials.json"
RETAIL_GPT = FIXTURES / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json"
TRAJECTORIES = (AIRLINE_CLAUDE, AIRLINE_GPT, RETAIL_GPT)


def domain_of(path: Path) -> str:
    """retail or airline, from a fixture's file name."""
    return "retail" if "retail" in path.name else "airline"


def load(path: Path) -> dict[str, Any]:
    """A tau2 results file, parsed."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def openai_messages(tau2_messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A tau2 simulation's messages as OpenAI chat-completions messages."""
    out: list[dict[str, Any]] = []
    for m in tau2_messages:
        if m["role"] == "tool":
            out.append({"role": "tool", "tool_call_id": m["id"], "content": m["content"]})
        elif m["role"] == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": m.get("content")}
            if m.get("tool_calls"):
                msg["tool_calls"] = [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                    }
                    for c in m["tool_calls"]
                ]
            out.append(msg)
        else:
            out.append({"role": m["role"], "content": m.get("content")})
    return out


def anthropic_messages(tau2_messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A tau2 simulation's messages as Anthropic Messages API messages (tool results are
    user-role tool_result blocks; consecutive same-role blocks merge into one message)."""
    out: list[dict[str, Any]] = []

    def add(role: str, block: dict[str, Any]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"].append(block)
        else:
            out.append({"role": role, "content": [block]})

    for m in tau2_messages:
        if m["role"] == "tool":
            add(
                "user",
                {
                    "type": "tool_result",
                    "tool_use_id": m["id"],
                    "content": m["content"],
                    "is_error": bool(m.get("error")),
                },
            )
        elif m["role"] == "assistant":
            if m.get("content"):
                add("assistant", {"type": "text", "text": m["content"]})
            for c in m.get("tool_calls") or []:
                add(
                    "assistant",
                    {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["arguments"]},
                )
        elif m["role"] == "user":
            add("user", {"type": "text", "text": m.get("content") or ""})
    return out
