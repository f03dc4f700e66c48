"""parse_arguments and reply classification, on every kind of broken input."""

from __future__ import annotations

import pytest

from sessionproof.agents._parse import (
    MAX_ARGUMENT_CHARS,
    CallIds,
    finish_reply,
    history_arguments,
    make_tool_call,
    parse_arguments,
    safe_call_id,
)
from sessionproof.records import ErrorClass, ToolCall


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"a": 1, "b": [true, null]}', {"a": 1, "b": [True, None]}),
        ({"already": "parsed"}, {"already": "parsed"}),
        (None, {}),
        ("", {}),
        ("  \n", {}),
    ],
)
def test_valid_arguments(raw: str | dict[str, object] | None, expected: dict[str, object]) -> None:
    assert parse_arguments(raw) == (expected, None)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ('{"a": 1', "invalid JSON"),
        ("{'a': 1}", "invalid JSON"),
        ("[1, 2]", "got an array"),
        ('"text"', "got a string"),
        ("42", "got a number"),
        ("true", "got a boolean"),
        ("null", "got null"),
        ('{"a": NaN}', "NaN is not valid JSON"),
        ('{"a": Infinity}', "Infinity is not valid JSON"),
        ("x" * (MAX_ARGUMENT_CHARS + 1), "exceed"),
    ],
)
def test_broken_arguments(raw: str, reason: str) -> None:
    args, error = parse_arguments(raw)
    assert args is None
    assert error is not None and reason in error


def test_non_text_arguments_are_rejected() -> None:
    args, error = parse_arguments(["not", "a", "dict"])  # type: ignore[arg-type]
    assert args is None and error == "expected a JSON object, got list"


def test_make_tool_call_keeps_raw_text_only_when_it_was_text() -> None:
    ok = make_tool_call("c", "t", '{"x": 1}')
    assert ok.arguments == {"x": 1} and ok.raw_arguments == '{"x": 1}' and ok.parse_error is None
    from_dict = make_tool_call("c", "t", {"x": 1})
    assert from_dict.raw_arguments is None
    huge = make_tool_call("c", "t", "{" * (MAX_ARGUMENT_CHARS * 2))
    assert huge.raw_arguments is not None and len(huge.raw_arguments) == MAX_ARGUMENT_CHARS


def test_history_arguments_are_always_a_json_object() -> None:
    assert history_arguments(ToolCall(id="c", name="t", arguments={"é": 1})) == '{"é": 1}'
    assert history_arguments(ToolCall(id="c", name="t", raw_arguments="{bad")) == "{}"


def test_call_ids_are_fresh_and_deterministic() -> None:
    first, second = CallIds(), CallIds()
    seen: set[str] = set()
    ids = [first.fix(p, 3, seen) for p in ("x", "x", None, "")]
    assert len(set(ids)) == 4 and ids[0] == "x"
    assert [second.fix(p, 3, set()) for p in (None, None)] == ["call_3_1", "call_3_2"]


def test_safe_call_id() -> None:
    assert safe_call_id("call:1/2 3") == "call_1_2_3"
    assert safe_call_id("") == "call"


def test_finish_reply_classifies_each_problem_once() -> None:
    broken = make_tool_call("c1", "t", "{nope")
    message, issues = finish_reply("partial", [broken], finish_reason="length")
    assert message.content == "partial" and message.tool_calls == [broken]
    assert sorted(i.error_class for i in issues) == sorted(
        [ErrorClass.truncated_output, ErrorClass.malformed_output]
    )
    message, issues = finish_reply(None, [], finish_reason="stop")
    assert [i.error_class for i in issues] == [ErrorClass.empty_result]
    message, issues = finish_reply("fine", [], finish_reason=None)
    assert issues == [] and message.role == "assistant"
