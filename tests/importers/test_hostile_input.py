"""Importers on hostile input: nesting too deep, byte-order marks, a value the store cannot
hold, an unknown domain on one line, and calls that would otherwise vanish without a word."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.importers import ImportResult, RecordError, import_file
from sessionproof.suites.tau2._internal import import_tau2

from ..suites.tau2._data import AIRLINE_GPT, anthropic_messages, load, openai_messages
from .test_taubench import _records as taubench_records

BOM = b"\xef\xbb\xbf"
TOO_DEEP = "[" * 1100 + "]" * 1100  # past orjson's limit and the standard decoder's recursion
DEEP = "[" * 300 + "]" * 300  # parses, but deeper than any store write can serialise


def _chat_lines(fmt: str, n: int = 4) -> list[dict[str, Any]]:
    data = load(AIRLINE_GPT)
    tasks = {t["id"]: t for t in data["tasks"]}
    convert = anthropic_messages if fmt == "anthropic" else openai_messages
    return [
        {
            "id": sim["id"],
            "domain": "airline",
            "task": tasks[sim["task_id"]],
            "outcome": {"reward": sim["reward_info"]["reward"]},
            "messages": convert(sim["messages"]),
        }
        for sim in data["simulations"][:n]
    ]


def _jsonl(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def _only(result: ImportResult, fatal: bool = True) -> RecordError:
    (problem,) = [e for e in result.errors if e.fatal is fatal]
    return problem


def test_a_tau2_file_nested_past_every_parser_limit_is_an_error_not_a_traceback(
    tmp_path: Path,
) -> None:
    raw = AIRLINE_GPT.read_text(encoding="utf-8")
    data = load(AIRLINE_GPT)
    tail = tmp_path / "tail.json"
    tail.write_text(raw.rstrip()[:-1] + ', "x": ' + TOO_DEEP + "}", encoding="utf-8")
    result = import_file(tail, "auto", run_id="r")
    assert len(result.sessions) == 20
    assert "deep" in _only(result).message
    # Inside the sixth simulation: the five before it are kept, the file's problem is named.
    data["simulations"][5]["messages"][0]["content"] = "DEEP-HERE"
    text = json.dumps(data).replace('"DEEP-HERE"', TOO_DEEP)
    inner = tmp_path / "inner.json"
    inner.write_text(text, encoding="utf-8")
    result = import_file(inner, "tau2", run_id="r")
    assert len(result.sessions) == 5
    problem = _only(result)
    assert problem.index == 5 and "deep" in problem.message


def test_a_deep_simulation_costs_only_itself(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    call = next(m for m in data["simulations"][2]["messages"] if m.get("tool_calls"))
    call["tool_calls"][0]["arguments"] = {"x": json.loads(DEEP)}
    result = import_tau2(json.dumps(data).encode(), source="f", run_id="r")
    assert len(result.sessions) == 19
    problem = _only(result)
    assert problem.index == 2 and "deep" in problem.message


@pytest.mark.parametrize("deep", [TOO_DEEP, DEEP])
def test_a_deep_jsonl_line_costs_only_itself(tmp_path: Path, deep: str) -> None:
    lines: list[Any] = ['{"messages": ' + deep + "}", *_chat_lines("openai", 3)]
    result = import_file(_jsonl(tmp_path / "log.jsonl", lines), "auto", run_id="r")
    assert result.format == "openai" and len(result.sessions) == 3
    problem = _only(result)
    assert problem.index == 0 and "deep" in problem.message


@pytest.mark.parametrize("fmt", ["tau2", "tau-bench", "openai", "anthropic"])
def test_byte_order_marks_are_accepted_by_every_importer(tmp_path: Path, fmt: str) -> None:
    if fmt == "tau2":
        body = AIRLINE_GPT.read_bytes()
    elif fmt == "tau-bench":
        body = json.dumps(taubench_records()).encode()
    else:
        body = _jsonl(tmp_path / "plain.jsonl", _chat_lines(fmt)).read_bytes()
    plain = tmp_path / "plain"
    plain.write_bytes(body)
    marked = tmp_path / "marked"
    marked.write_bytes(BOM + body)
    ref = import_file(plain, "auto", run_id="r")
    got = import_file(marked, "auto", run_id="r")
    assert got.format == ref.format == fmt
    assert got.errors == ref.errors == []
    assert [s.session.session_id for s in got.sessions] == [
        s.session.session_id for s in ref.sessions
    ]


def test_a_trial_the_store_cannot_hold_costs_only_its_record(tmp_path: Path) -> None:
    data = load(AIRLINE_GPT)
    data["simulations"][3]["trial"] = 2**31
    result = import_tau2(json.dumps(data).encode(), source="f", run_id="r")
    assert len(result.sessions) == 19
    problem = _only(result)
    assert (problem.index, problem.field) == (3, "trial")
    lines: list[Any] = _chat_lines("openai")
    lines[1]["trial"] = 2**31
    lines[2]["trial"] = "2"
    result = import_file(_jsonl(tmp_path / "log.jsonl", lines), "auto", run_id="r")
    assert [(e.index, e.field) for e in result.errors] == [(1, "trial"), (2, "trial")]
    assert len(result.sessions) == 2
    records = taubench_records()
    records[4]["trial"] = -1
    tb = tmp_path / "tb.json"
    tb.write_text(json.dumps(records))
    result = import_file(tb, "tau-bench", run_id="r")
    assert len(result.sessions) == len(records) - 1
    assert (_only(result).index, _only(result).field) == (4, "trial")


def test_an_unknown_domain_on_one_line_costs_only_that_line(tmp_path: Path) -> None:
    lines: list[Any] = _chat_lines("openai")
    lines[2]["domain"] = "nowhere"
    result = import_file(_jsonl(tmp_path / "log.jsonl", lines), "auto", run_id="r")
    assert len(result.sessions) == 3
    problem = _only(result)
    assert (problem.index, problem.field) == (2, "domain") and "nowhere" in problem.message


def test_an_anthropic_block_of_unknown_or_missing_type_is_a_warning(tmp_path: Path) -> None:
    lines: list[Any] = _chat_lines("anthropic", 2)
    uses = [
        (j, k)
        for j, m in enumerate(lines[0]["messages"])
        if isinstance(m["content"], list)
        for k, b in enumerate(m["content"])
        if b["type"] == "tool_use"
    ]
    (j0, k0), (j1, k1) = uses[:2]
    lines[0]["messages"][j0]["content"][k0]["type"] = "Tool_Use"
    del lines[0]["messages"][j1]["content"][k1]["type"]
    result = import_file(_jsonl(tmp_path / "log.jsonl", lines), "anthropic", run_id="r")
    assert len(result.sessions) == 2 and result.skipped == []
    warned = {e.field: e for e in result.errors if e.index == 0}
    assert f"messages.{j0}.content.{k0}.type" in warned
    assert "Tool_Use" in warned[f"messages.{j0}.content.{k0}.type"].message
    assert f"messages.{j1}.content.{k1}.type" in warned


@pytest.mark.parametrize("kind", [{"name": "tool_use"}, ["text"], 7])
def test_an_anthropic_block_type_that_is_not_text_is_a_warning(
    tmp_path: Path, kind: object
) -> None:
    lines: list[Any] = _chat_lines("anthropic", 2)
    j, k = next(
        (j, k)
        for j, m in enumerate(lines[1]["messages"])
        if isinstance(m["content"], list)
        for k, _ in enumerate(m["content"])
    )
    lines[1]["messages"][j]["content"][k]["type"] = kind
    result = import_file(_jsonl(tmp_path / "log.jsonl", lines), "anthropic", run_id="r")
    assert len(result.sessions) == 2 and result.skipped == []
    (warning,) = [e for e in result.errors if e.index == 1]
    assert warning.field == f"messages.{j}.content.{k}.type" and not warning.fatal
    assert "without a text `type`" in warning.message


def _first_result(messages: list[dict[str, Any]], is_result: Any) -> dict[str, Any]:
    return next(m for m in messages if is_result(m))


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "tau2"])
def test_orphan_results_and_repeated_call_ids_are_warnings(tmp_path: Path, fmt: str) -> None:
    if fmt == "tau2":
        data = load(AIRLINE_GPT)
        data["simulations"] = data["simulations"][:3]
        sims = [s["messages"] for s in data["simulations"]]
    else:
        lines = _chat_lines(fmt, 3)
        sims = [line["messages"] for line in lines]
    # Record 0: a result answering no call. Record 1: two calls under one id.
    if fmt == "anthropic":
        for m in sims[0]:
            blocks = [b for b in m["content"] if b.get("type") == "tool_result"]
            if blocks:
                blocks[0]["tool_use_id"] = "nobody"
                break
        ids = [b for m in sims[1] for b in m["content"] if b.get("type") == "tool_use"]
        ids[1]["id"] = ids[0]["id"]
    else:
        key = "id" if fmt == "tau2" else "tool_call_id"
        _first_result(sims[0], lambda m: m["role"] == "tool")[key] = "nobody"
        calls = [c for m in sims[1] for c in m.get("tool_calls") or []]
        calls[1]["id"] = calls[0]["id"]
    path = tmp_path / "f"
    if fmt == "tau2":
        path.write_text(json.dumps(data))
    else:
        _jsonl(path, lines)
    result = import_file(path, fmt, run_id="r")
    assert len(result.sessions) == 3 and result.skipped == []
    warnings = [e for e in result.errors if not e.fatal]
    assert {e.index for e in warnings} == {0, 1}
    assert any("nobody" in e.message for e in warnings if e.index == 0)
    assert any("repeat" in e.message for e in warnings if e.index == 1)
