"""One record the store cannot hold (an integer past 64 bits in tool arguments or token
usage, a trial, turn or step past its column) costs that record, named, never the import:
the other sessions are stored in a real DuckDB file, and the store takes later writes."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sessionproof.errors import InputFileError
from sessionproof.runs import import_traces
from sessionproof.store import Store

HUGE = 2**70
"""Past every integer column of the store, and past what JSON text in it may hold."""


def _chat_line(i: int, argument: int = 1) -> str:
    messages = [
        {"role": "user", "content": f"hello {i}"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "find", "arguments": json.dumps({"n": argument})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "found"},
        {"role": "assistant", "content": "done"},
    ]
    return json.dumps({"id": f"chat-{i}", "messages": messages})


def _attr(key: str, value: int | str) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _conversation(i: int) -> list[dict[str, Any]]:
    """A foreign GenAI trace of one conversation: a root, a chat span and a tool span."""
    trace = f"{i + 1:032x}"
    root = f"{i + 1:016x}"

    def span(n: int, name: str, attrs: dict[str, int | str], parent: str) -> dict[str, Any]:
        return {
            "traceId": trace,
            "spanId": root if n == 0 else f"{n:x}{i + 1:015x}",
            "parentSpanId": parent,
            "name": name,
            "startTimeUnixNano": str((100 + n) * 10**9),
            "endTimeUnixNano": str((101 + n) * 10**9),
            "attributes": [_attr(k, v) for k, v in attrs.items()],
        }

    return [
        span(
            0,
            "invoke_agent a",
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": f"conv-{i}"},
            "",
        ),
        span(
            1,
            "chat m",
            {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 12},
            root,
        ),
        span(
            2,
            "execute_tool find",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "find",
                "gen_ai.tool.call.id": f"c{i}",
                "gen_ai.tool.call.arguments": json.dumps({"n": 1}),
            },
            root,
        ),
    ]


def _set(spans: list[dict[str, Any]], index: int, key: str, value: int | str) -> None:
    attrs = [a for a in spans[index]["attributes"] if a["key"] != key]
    spans[index]["attributes"] = [*attrs, _attr(key, value)]


POISONS: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "tool arguments": lambda s: _set(s, 2, "gen_ai.tool.call.arguments", f'{{"n": {HUGE}}}'),
    "input tokens": lambda s: _set(s, 1, "gen_ai.usage.input_tokens", HUGE),
    "output tokens": lambda s: _set(s, 1, "gen_ai.usage.output_tokens", -HUGE),
    "trial": lambda s: _set(s, 0, "sessionproof.trial", HUGE),
    "step": lambda s: _set(s, 2, "sessionproof.step", HUGE),
    "turn": lambda s: _set(s, 2, "sessionproof.turn", 2**40),
}
"""Each way one conversation of a trace can hold a number the store cannot."""


def _otlp(path: Path, conversations: list[list[dict[str, Any]]]) -> Path:
    spans = [span for conv in conversations for span in conv]
    doc = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}
    path.write_text(json.dumps(doc))
    return path


def _stored(store: Path, run_id: str) -> list[str]:
    with Store.open_for_reading(store) as db:
        return sorted(s.session_id for s in db.load_sessions(run_id))


def test_a_chat_log_line_with_a_huge_argument_costs_that_line(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([_chat_line(0), _chat_line(1, HUGE), _chat_line(2)]) + "\n")
    store = tmp_path / "s.duckdb"
    report = import_traces(log, store=store)
    assert _stored(store, report.run_id) == ["chat-0", "chat-2"]
    assert report.summary.sessions == 2
    (skipped,) = [e for e in report.errors if e.fatal]
    assert skipped.index == 1 and skipped.record_id == "chat-1"
    assert "cannot be stored" in str(skipped) and "64-bit" in str(skipped)
    assert report.to_json()["skipped"] == [str(skipped)]


@pytest.mark.parametrize("kind", sorted(POISONS))
def test_one_poisoned_conversation_in_a_trace_costs_only_itself(kind: str, tmp_path: Path) -> None:
    # Property over the record kinds and the bad record's place in the file (seeded).
    rng = random.Random(f"unstorable-{kind}")
    store = tmp_path / "s.duckdb"
    for attempt in range(3):
        count = rng.randint(2, 6)
        bad = rng.randrange(count)
        conversations = [_conversation(i) for i in range(count)]
        POISONS[kind](conversations[bad])
        report = import_traces(_otlp(tmp_path / f"t{attempt}.json", conversations), store=store)
        expected = sorted(f"conv-{i}" for i in range(count) if i != bad)
        assert _stored(store, report.run_id) == expected, (kind, attempt)
        (skipped,) = [e for e in report.errors if e.fatal]
        assert skipped.record_id == f"conv-{bad}"
        assert "cannot be stored" in skipped.message
        assert "bit" in skipped.message
    # The store still takes a clean import after the skipped ones (no aborted transaction).
    clean = import_traces(_otlp(tmp_path / "clean.json", [_conversation(0)]), store=store)
    assert _stored(store, clean.run_id) == ["conv-0"]


def test_a_trace_whose_every_conversation_is_unstorable_is_one_clear_error(
    tmp_path: Path,
) -> None:
    conversations = [_conversation(i) for i in range(2)]
    for conv in conversations:
        POISONS["step"](conv)
    with pytest.raises(InputFileError, match="none of its 2 sessions can be stored"):
        import_traces(_otlp(tmp_path / "t.json", conversations), store=tmp_path / "s.duckdb")


def test_a_session_repeating_an_earlier_ones_key_or_id_costs_itself(tmp_path: Path) -> None:
    # Two conversations that both say scenario s1 trial 0 (a file concatenated with itself,
    # say), and two chat-log lines with one id: the store keeps one of each, and refused the
    # whole batch before.
    conversations = [_conversation(i) for i in range(3)]
    for conv in conversations[:2]:
        _set(conv, 0, "sessionproof.scenario.id", "s1")
        _set(conv, 0, "sessionproof.trial", 0)
    store = tmp_path / "s.duckdb"
    report = import_traces(_otlp(tmp_path / "t.json", conversations), store=store)
    assert _stored(store, report.run_id) == ["conv-0", "conv-2"]
    (skipped,) = [e for e in report.errors if e.fatal]
    assert skipped.record_id == "conv-1" and "repeats scenario 's1' trial 0" in skipped.message
    log = tmp_path / "log.jsonl"
    lines = [_chat_line(0), _chat_line(1), _chat_line(0)]
    log.write_text("\n".join(lines) + "\n")
    report = import_traces(log, store=store)
    assert _stored(store, report.run_id) == ["chat-0", "chat-1"]
    (skipped,) = [e for e in report.errors if e.fatal]
    assert skipped.index == 2 and "repeats the session id 'chat-0' of record #0" in skipped.message


def test_an_atif_trajectory_with_huge_token_counts_costs_itself(tmp_path: Path) -> None:
    fixture = Path(__file__).parent.parent / "fixtures" / "atif" / "two.trajectories.jsonl"
    first, second = (json.loads(line) for line in fixture.read_text().splitlines())
    second["steps"][1]["metrics"] = {"prompt_tokens": HUGE, "completion_tokens": 3}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    store = tmp_path / "s.duckdb"
    report = import_traces(path, store=store)
    assert _stored(store, report.run_id) == ["run-a"]
    (skipped,) = [e for e in report.errors if e.fatal]
    assert skipped.record_id == "run-b"  # named by the reader (its token count's field)
