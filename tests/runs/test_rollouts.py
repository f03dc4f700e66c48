"""`export --format rollouts`: one line per session, valid against the shipped JSON Schema, with
credit that sums as docs/rollouts.md defines it, in a chat shape trainers read."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.domains import get_domain
from sessionproof.errors import ConfigError, InputFileError, StoreError
from sessionproof.runs import RunConfig, RunReport, export_traces, run
from sessionproof.runs._rollouts import SCHEMA_FILE
from sessionproof.store import Store

AGENT = "python:tests.runs.rollout_agents:mixed"
POLICY = get_domain("demo").create().policy
ARMS = ["faults=20%", "faults=20% guard", "drift=rename_param"]


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunReport]:
    """The demo suite under faults, the guard and drift, played by an agent that passes, spoils
    its writes mid-session, or never answers (sessions with no verdict)."""
    store = tmp_path_factory.mktemp("rollouts") / "s.duckdb"
    return store, run(RunConfig(suite="demo", model=AGENT, arms=ARMS, trials=2, store=store))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def lines(mixed_run: tuple[Path, RunReport], tmp_path_factory: pytest.TempPathFactory) -> list:
    store, report = mixed_run
    out = tmp_path_factory.mktemp("ro") / "all.jsonl"
    written = export_traces(report.run_id, store=store, fmt="rollouts", output=out)
    found = _lines(out)
    assert written == len(found)
    return found


def test_one_line_per_session_each_valid_against_the_shipped_schema(
    mixed_run: tuple[Path, RunReport], lines: list[dict[str, Any]]
) -> None:
    store, report = mixed_run
    with Store.open_for_reading(store) as db:
        ids = {s.session_id for s in db.load_sessions(report.run_id)}
    assert {line["session_id"] for line in lines} == ids and len(lines) == len(ids) == 96
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for line in lines:
        assert list(validator.iter_errors(line)) == [], line["session_id"]
    bad = dict(lines[0], reward="1")  # the schema does reject
    assert list(validator.iter_errors(bad))


def test_the_run_has_every_kind_of_session(lines: list[dict[str, Any]]) -> None:
    bases = {line["credit"]["basis"] for line in lines}
    assert bases == {"divergence", "outcome", "none"}
    kinds = {line["credit"]["divergence"]["kind"] for line in lines if line["credit"]["divergence"]}
    assert "wrong_argument" in kinds
    assert any(line["credit"]["recovered_faults"] for line in lines)
    assert any(line["drift"] for line in lines)


def test_credit_sums_as_documented(lines: list[dict[str, Any]]) -> None:
    for line in lines:
        credit, reward = line["credit"], line["reward"]
        steps = credit["steps"]
        if credit["basis"] == "none":  # no verdict: no credit, never a zero
            assert reward is None and line["outcome"]["judged"] is False
            assert all(s["credit"] is None for s in steps)
            assert all(t["credit"] is None for t in credit["turns"])
            continue
        assert reward == line["outcome"]["reward"]
        total = sum(s["credit"] for s in steps) + credit["unassigned"]
        assert math.isclose(total, reward, abs_tol=1e-9), line["session_id"]
        for turn in credit["turns"]:
            mine = [s["credit"] for s in steps if s["turn"] == turn["turn"]]
            assert math.isclose(turn["credit"], sum(mine), abs_tol=1e-9)
            assert turn["decisions"] == len(mine)
        n = len(steps)
        if credit["basis"] == "outcome":
            assert credit["reason"] and all(math.isclose(s["credit"], reward / n) for s in steps)
            continue
        div = credit["divergence"]
        settle = div["index"] if div else n - 1
        for s in steps:
            if s["index"] < settle:
                assert s["on_path"] and math.isclose(s["credit"], 1 / n)
            elif s["index"] == settle:
                assert math.isclose(s["credit"], reward - settle / n)
            else:
                assert s["credit"] == 0.0 and s["on_path"] is False
        if div:
            assert credit["broken_turn"] == div["turn"]
            assert [t["turn"] for t in credit["turns"] if t["broke"]] == [div["turn"]]
            assert [s["index"] for s in steps if s["diverged"]] == [div["index"]]


def test_a_mid_session_divergence_credits_the_reads_before_it(lines: list[dict]) -> None:
    # The spoiled write after correct lookups: the lookups earn, the write pays for them.
    mid = [
        line
        for line in lines
        if line["credit"]["divergence"]
        and line["credit"]["divergence"]["index"] >= 2
        and line["credit"]["divergence"]["kind"] == "wrong_argument"
    ]
    assert mid
    for line in mid:
        steps = line["credit"]["steps"]
        k = line["credit"]["divergence"]["index"]
        assert all(s["credit"] > 0 for s in steps[:k])
        assert steps[k]["credit"] < 0 and steps[k]["decision"] == "call"


def test_steps_point_at_their_assistant_messages(lines: list[dict[str, Any]]) -> None:
    for line in lines:
        messages = line["messages"]
        for s in line["credit"]["steps"]:
            if s["decision"] == "end":
                assert s["message"] is None
                continue
            msg = messages[s["message"]]
            assert msg["role"] == "assistant"
            if s["decision"] == "call":
                assert s["call_id"] in [c["id"] for c in msg.get("tool_calls", [])]
            else:
                assert "tool_calls" not in msg
        for s in line["credit"]["steps"]:
            for fault in s["faults"]:
                assert s["call_id"] is not None and isinstance(fault["recovered"], bool)


# -- the chat formats trainers read ---------------------------------------------------------
# The OpenAI fine-tuning chat format (platform docs, "Preparing your dataset" and "Fine-tuning
# with function calling/tools"): an example is {"messages": [...], "tools": [...]}; roles
# system | user | assistant | tool; user/system content is a string; an assistant message
# has string content or tool_calls (each {id, type: "function", function: {name, arguments:
# a JSON string}}); a tool message answers an earlier call by tool_call_id with string
# content; the example has at least one assistant message to learn from; tools are
# {type: "function", function: {name, description?, parameters: a JSON Schema object}}.
# TRL's conversational format (dataset_formats: "Conversational" language modeling): a
# "messages" list of {role, content} dicts, roles among system/user/assistant/tool, and an
# optional "tools" list of the same JSON-Schema function entries.

_ROLES = {"system", "user", "assistant", "tool"}


def openai_chat_problems(example: dict[str, Any]) -> list[str]:
    """Every way `example` breaks the OpenAI fine-tuning chat format's documented rules."""
    problems: list[str] = []
    messages = example.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["no messages list"]
    called: set[str] = set()
    for i, m in enumerate(messages):
        role = m.get("role")
        if role not in _ROLES:
            problems.append(f"{i}: unknown role {role!r}")
        allowed = {"role", "content", "name", "tool_calls", "tool_call_id", "weight"}
        if set(m) - allowed:
            problems.append(f"{i}: unknown keys {set(m) - allowed}")
        content = m.get("content")
        if role in ("system", "user") and not isinstance(content, str):
            problems.append(f"{i}: {role} content is not a string")
        if role == "assistant":
            calls = m.get("tool_calls") or []
            if not calls and not isinstance(content, str):
                problems.append(f"{i}: assistant with neither text nor tool calls")
            if content is not None and not isinstance(content, str):
                problems.append(f"{i}: assistant content is not a string")
            for c in calls:
                fn = c.get("function", {})
                if c.get("type") != "function" or not c.get("id") or not fn.get("name"):
                    problems.append(f"{i}: malformed tool call {c}")
                try:
                    if not isinstance(json.loads(fn.get("arguments")), dict):
                        problems.append(f"{i}: arguments are not a JSON object")
                except (TypeError, ValueError):
                    problems.append(f"{i}: arguments are not JSON text")
                called.add(c.get("id"))
        if role == "tool":
            if m.get("tool_call_id") not in called:
                problems.append(f"{i}: tool message answers no earlier call")
            if not isinstance(content, str):
                problems.append(f"{i}: tool content is not a string")
    if not any(m.get("role") == "assistant" for m in messages):
        problems.append("no assistant message")
    for t in example.get("tools", []):
        fn = t.get("function", {})
        params = fn.get("parameters")
        if t.get("type") != "function" or not fn.get("name") or not isinstance(params, dict):
            problems.append(f"malformed tool {t}")
        elif params.get("type") != "object":
            problems.append(f"tool {fn['name']}: parameters are not an object schema")
    return problems


def trl_conversational_problems(example: dict[str, Any]) -> list[str]:
    """Every way `example` breaks TRL's conversational language-modeling format."""
    messages = example.get("messages")
    if not isinstance(messages, list):
        return ["no messages list"]
    out = [
        f"{i}: {m}"
        for i, m in enumerate(messages)
        if not isinstance(m, dict) or m.get("role") not in _ROLES or "content" not in m
    ]
    if not isinstance(example.get("tools", []), list):
        out.append("tools is not a list")
    return out


def test_the_validators_reject_what_the_rules_forbid() -> None:
    good = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}
    assert openai_chat_problems(good) == [] and trl_conversational_problems(good) == []
    orphan = {"messages": [*good["messages"], {"role": "tool", "tool_call_id": "x", "content": ""}]}
    assert openai_chat_problems(orphan) == ["2: tool message answers no earlier call"]
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
    bad_args = {"messages": [{"role": "assistant", "content": None, "tool_calls": [call]}]}
    assert openai_chat_problems(bad_args) == ["0: arguments are not JSON text"]
    assert trl_conversational_problems({"messages": [{"role": "bot", "content": ""}]})


def test_every_line_reads_as_an_openai_and_a_trl_chat_example(lines: list[dict]) -> None:
    for line in lines:
        example = {"messages": line["messages"], "tools": line["tools"]}
        if line["outcome"]["termination"] == "infra_error" and not any(
            m["role"] == "assistant" for m in line["messages"]
        ):
            # The provider never answered: no assistant message to learn from (and no credit).
            assert line["credit"]["steps"] == []
            continue
        assert openai_chat_problems(example) == [], line["session_id"]
        assert trl_conversational_problems(example) == [], line["session_id"]
        assert line["tools"], "the demo domain's tool schemas ride along"
        # The system message the agent was given: the domain's policy.
        assert line["messages"][0] == {"role": "system", "content": POLICY}


def test_the_openai_sdks_own_request_types_accept_every_line(lines: list[dict]) -> None:
    # openai-python's typed request parameters: what `chat.completions.create` takes.
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
    from pydantic import TypeAdapter, ValidationError

    messages = TypeAdapter(list[ChatCompletionMessageParam])
    tools = TypeAdapter(list[ChatCompletionToolParam])
    for line in lines:
        messages.validate_python(line["messages"])
        tools.validate_python(line["tools"])
    with pytest.raises(ValidationError):  # they do reject: a tool message answering nothing
        messages.validate_python([{"role": "tool", "content": "x"}])


# -- filters and broken input ---------------------------------------------------------------


def test_filters_keep_what_they_name(mixed_run: tuple[Path, RunReport], tmp_path: Path) -> None:
    store, report = mixed_run
    out = tmp_path / "f.jsonl"
    n = export_traces(
        report.run_id, store=store, fmt="rollouts", output=out, outcome="fail", arm="faults=20%"
    )
    kept = _lines(out)
    assert n == len(kept) > 0
    assert all(line["outcome"]["success"] is False for line in kept)
    assert {line["arm"] for line in kept} == {"faults=20%"}
    export_traces(report.run_id, store=store, fmt="rollouts", output=out, outcome="pass")
    assert all(line["outcome"]["success"] is True for line in _lines(out))


@pytest.mark.parametrize("fmt", ["rollouts", "atif"])
def test_broken_input_gets_one_clear_line(
    mixed_run: tuple[Path, RunReport], tmp_path: Path, fmt: str
) -> None:
    store, report = mixed_run
    out = tmp_path / "x.jsonl"
    with pytest.raises(StoreError, match="nope"):
        export_traces("nope", store=store, fmt=fmt, output=out)
    with pytest.raises(ConfigError, match="no arm 'guard'; arms: faults=20%"):
        export_traces(report.run_id, store=store, fmt=fmt, output=out, arm="guard")
    with pytest.raises(ConfigError, match="--outcome must be pass or fail"):
        export_traces(report.run_id, store=store, fmt=fmt, output=out, outcome="ok")
    with pytest.raises(ConfigError, match="give -o FILE"):
        export_traces(report.run_id, store=store, fmt=fmt)
    with pytest.raises(InputFileError, match="cannot write"):
        export_traces(report.run_id, store=store, fmt=fmt, output=tmp_path / "no" / "x")
    assert not out.exists()


def test_an_empty_filter_writes_nothing_and_says_so(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    report = run(RunConfig(suite="demo", model="oracle", limit=2, store=store))
    out = tmp_path / "f.jsonl"
    out.write_text("earlier\n")
    for fmt in ("rollouts", "atif"):
        with pytest.raises(ConfigError, match=r"no session of run .* matches --outcome fail"):
            export_traces(report.run_id, store=store, fmt=fmt, output=out, outcome="fail")
    assert out.read_text() == "earlier\n"  # nothing lost


def test_the_cli_writes_rollouts_and_refuses_filters_elsewhere(
    mixed_run: tuple[Path, RunReport], tmp_path: Path
) -> None:
    store, report = mixed_run
    out = tmp_path / "c.jsonl"
    args = ["export", report.run_id, "--format", "rollouts", "-o", str(out), "--store", str(store)]
    result = CliRunner().invoke(app, [*args, "--arm", "faults=20% guard"])
    assert result.exit_code == 0, result.output
    assert "32 sessions to" in result.output
    assert {line["arm"] for line in _lines(out)} == {"faults=20% guard"}
    otlp = CliRunner().invoke(app, [*args, "--otel-content"])
    assert isinstance(otlp.exception, ConfigError)
    assert "the OTLP options" in str(otlp.exception)
    other = CliRunner().invoke(app, ["export", str(tmp_path / "d"), "--outcome", "fail"])
    assert isinstance(other.exception, ConfigError)
    assert "filter rollouts and atif exports only" in str(other.exception)


@pytest.mark.parametrize("fmt", ["rollouts", "atif"])
def test_a_secret_known_at_export_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    store = tmp_path / "s.duckdb"
    report = run(RunConfig(suite="demo", model="oracle", limit=1, store=store))
    with Store.open_for_reading(store) as db:
        (session,) = db.load_sessions(report.run_id)
    said = session.messages()[0].content or ""
    email = next(w for w in said.split() if "@" in w).strip(".,")
    # A value the run stored, made a secret after it (an environment credential).
    monkeypatch.setenv("ROLLOUT_TEST_API_KEY", email)
    out = tmp_path / "out"
    export_traces(report.run_id, store=store, fmt=fmt, output=out)
    text = out.read_text()
    assert email not in text and "[redacted]" in text


def test_a_scored_tau2_transcript_file_exports_with_divergence_credit(tmp_path: Path) -> None:
    # Real transcripts (tau2-bench's gpt-4.1 airline run): the scenarios are re-read from the
    # file, the airline domain replays the writes, the failures get their divergence classes.
    from sessionproof.runs import score

    name = "gpt-4.1_airline_default_gpt-4.1_1trials.json"
    fixture = Path(__file__).parents[1] / "fixtures" / "tau" / name
    store = tmp_path / "s.duckdb"
    report = score(fixture, store=store)
    out = tmp_path / "t.jsonl"
    assert export_traces(report.run_id, store=store, fmt="rollouts", output=out) == 20
    lines = _lines(out)
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
    assert all(not list(validator.iter_errors(line)) for line in lines)
    assert {line["credit"]["basis"] for line in lines} == {"divergence"}
    assert {line["tools_from"] for line in lines} == {"domain airline"}
    failed = [line for line in lines if line["outcome"]["success"] is False]
    assert failed and all(line["credit"]["divergence"] for line in failed)
    for line in lines:
        example = {"messages": line["messages"], "tools": line["tools"]}
        assert openai_chat_problems(example) == []
        total = sum(s["credit"] for s in line["credit"]["steps"]) + line["credit"]["unassigned"]
        assert math.isclose(total, line["reward"], abs_tol=1e-9)
