"""Seed inputs for the trace-format fuzz kinds: OTLP traces (the project's own export of a
small imported run, and a foreign GenAI trace), Harbor ATIF trajectories (the shipped
fixtures) and an inspect_ai eval log (made once by inspect_ai itself with its offline
`mockllm` model, kept in a per-user cache folder so every worker and run reuses it)."""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ._mutate import copy_tree
from ._seeds import ROOT, chat_seeds

ATIF = ROOT / "tests" / "fixtures" / "atif"


def _attr(key: str, value: object) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(
    trace: str, span: str, parent: str, name: str, start: int, attrs: dict[str, object]
) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent,
        "name": name,
        "startTimeUnixNano": str(start * 10**9),
        "endTimeUnixNano": str((start + 1) * 10**9),
        "attributes": [_attr(k, v) for k, v in attrs.items()],
    }


def _foreign() -> dict[str, Any]:
    """A foreign agent's GenAI trace: two conversations, a chat span with usage, a good and
    a failed tool call, a feedback label on each root."""
    spans = []
    for k, trace in enumerate(("a" * 32, "b" * 32)):
        root, base, conv = trace[:16], 100 + 100 * k, f"conv-{k}"
        root_attrs: dict[str, object] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": conv,
            "user.feedback": "thumbs_up" if k else "thumbs_down",
        }
        spans += [
            _span(trace, root, "", "invoke_agent shop", base, root_attrs),
            _span(
                trace,
                "1" + trace[1:16],
                root,
                "chat m",
                base + 1,
                {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 12},
            ),
            _span(
                trace,
                "2" + trace[1:16],
                root,
                "execute_tool find_order",
                base + 2,
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "find_order",
                    "gen_ai.tool.call.id": f"{conv}-c1",
                    "gen_ai.tool.call.arguments": json.dumps({"order_id": "1055"}),
                    "gen_ai.tool.call.result": '{"status": "shipped"}',
                },
            ),
            {
                **_span(
                    trace,
                    "3" + trace[1:16],
                    root,
                    "execute_tool cancel",
                    base + 3,
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "cancel",
                        "gen_ai.tool.call.id": f"{conv}-c2",
                        "error.type": "RateLimitError",
                    },
                ),
                "status": {"code": 2, "message": "429 Too Many Requests"},
                "events": [{"name": "retry", "timeUnixNano": str((base + 3) * 10**9)}],
            },
        ]
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}


@functools.cache
def _ours() -> dict[str, Any]:
    """The project's own OTLP-JSON export (with content) of a small imported chat log."""
    from sessionproof.runs import export_traces, import_traces

    with tempfile.TemporaryDirectory(prefix="sessionproof-fuzz-seed-") as tmp:
        log = Path(tmp) / "log.jsonl"
        log.write_text("\n".join(json.dumps(line) for line in chat_seeds("openai")[0]) + "\n")
        store = Path(tmp) / "s.duckdb"
        run = import_traces(log, store=store)
        out = Path(tmp) / "t.json"
        export_traces(run.run_id, store=store, fmt="otlp-json", output=out, content=True)
        doc: dict[str, Any] = json.loads(out.read_text())
    return doc


def otlp_seeds() -> list[dict[str, Any]]:
    """OTLP-JSON requests: our export, and a foreign GenAI trace."""
    return [copy_tree(_ours()), copy_tree(_foreign())]


def atif_seeds() -> list[Any]:
    """ATIF documents: one trajectory, and a list of two (from the JSONL fixture)."""
    one = json.loads((ATIF / "exchange.trajectory.json").read_text())
    two = [json.loads(line) for line in (ATIF / "two.trajectories.jsonl").read_text().splitlines()]
    return [copy_tree(one), copy_tree(two)]


def _inspect_dir() -> Path:
    import inspect_ai

    return Path(tempfile.gettempdir()) / (
        f"sessionproof-fuzz-inspect-{os.getuid()}-{inspect_ai.__version__}"
    )


def inspect_log() -> Path:
    """A real two-sample `.eval` log, made by inspect_ai on first use and then reused."""
    path = _inspect_dir() / "log.eval"
    if path.exists():
        return path
    from ..importers.test_inspect import _eval_log

    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        made = _eval_log(Path(tmp))
        os.replace(made, path)  # whole or absent, for a concurrent reader
    return path


@functools.cache
def inspect_json() -> dict[str, Any]:
    """The same log in inspect's `.json` form, as a value."""
    from inspect_ai.log import read_eval_log, write_eval_log

    out = _inspect_dir() / "log.json"
    if not out.exists():
        tmp = out.with_suffix(f".{os.getpid()}.json")
        write_eval_log(read_eval_log(str(inspect_log())), str(tmp), format="json")
        os.replace(tmp, out)
    doc: dict[str, Any] = json.loads(out.read_text())
    return doc
