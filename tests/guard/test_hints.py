"""A repair hint for each JSON Schema violation kind, and the call is never sent."""

from __future__ import annotations

from typing import Any

import pytest

from sessionproof.errors import ConfigError
from sessionproof.guard import Guard, VirtualClock
from sessionproof.guard._internal import Decision, RepairHint, SchemaCheck

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^[0-9]{4}$"},
        "reason": {"type": "string", "enum": ["no_longer_needed", "ordered_by_mistake"]},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "step": {"type": "integer", "multipleOf": 5},
        "note": {"type": "string", "minLength": 3, "maxLength": 8},
        "tags": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": 2,
            "uniqueItems": True,
        },
        "email": {"type": "string", "format": "email"},
        "confirm": {"const": True},
        "ref": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "mode": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
        "code": {"not": {"type": "string"}},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"qty": {"type": "integer"}},
                "required": ["qty"],
            },
        },
    },
    "required": ["order_id"],
    "additionalProperties": False,
}

BASE = {"order_id": "1042"}


@pytest.mark.parametrize(
    ("args", "rule", "path", "expected_words", "suggestion"),
    [
        ({}, "required", "order_id", "a string", None),
        ({"order_ids": "1042"}, "required", "order_id", "a string", "rename 'order_ids'"),
        ({**BASE, "quantity": "3"}, "type", "quantity", "an integer", "as a number"),
        ({**BASE, "note": 12345}, "type", "note", "a string", 'send it as text: "12345"'),
        ({**BASE, "reason": "No_Longer_Needed"}, "enum", "reason", "one of", "no_longer_needed"),
        (
            {**BASE, "reasn": "x"},
            "additionalProperties",
            "reasn",
            "only the fields",
            "did you mean 'reason'?",
        ),
        ({"order_id": "42"}, "pattern", "order_id", "^[0-9]{4}$", None),
        ({**BASE, "quantity": 0}, "minimum", "quantity", "≥ 1", None),
        ({**BASE, "quantity": 11}, "maximum", "quantity", "≤ 10", None),
        ({**BASE, "ratio": 0}, "exclusiveMinimum", "ratio", "> 0", None),
        ({**BASE, "ratio": 1}, "exclusiveMaximum", "ratio", "< 1", None),
        ({**BASE, "step": 7}, "multipleOf", "step", "multiple of 5", None),
        ({**BASE, "note": "hi"}, "minLength", "note", "at least 3 characters", None),
        ({**BASE, "note": "much too long"}, "maxLength", "note", "at most 8 characters", None),
        ({**BASE, "tags": []}, "minItems", "tags", "at least 1 items", None),
        ({**BASE, "tags": ["a", "b", "c"]}, "maxItems", "tags", "at most 2 items", None),
        ({**BASE, "tags": ["a", "a"]}, "uniqueItems", "tags", "every item different", None),
        ({**BASE, "email": "not-an-address"}, "format", "email", "a valid email", None),
        ({**BASE, "confirm": False}, "const", "confirm", "exactly true", None),
        ({**BASE, "ref": "x"}, "anyOf", "ref", "an integer or a null", None),
        ({**BASE, "mode": 3}, "oneOf", "mode", "a string or a boolean", None),
        ({**BASE, "code": "abc"}, "not", "code", "a valid value", None),
        ({**BASE, "lines": [{"qty": 1}, {}]}, "required", "lines[1].qty", "an integer", None),
        ({**BASE, "lines": [{"qty": "2"}]}, "type", "lines[0].qty", "an integer", "as a number"),
    ],
)
def test_one_hint_per_violation_kind(
    args: dict[str, Any], rule: str, path: str, expected_words: str, suggestion: str | None
) -> None:
    hints = SchemaCheck(SCHEMA).hints(args)
    matching = [h for h in hints if h.rule == rule and h.path == path]
    assert matching, hints
    hint = matching[0]
    assert expected_words in hint.expected
    assert hint.problem
    if suggestion is None:
        assert hint.suggestion is None
    else:
        assert hint.suggestion is not None and suggestion in hint.suggestion
    assert hint.path in hint.text() and hint.expected in hint.text()


def test_valid_arguments_give_no_hints() -> None:
    check = SchemaCheck(SCHEMA)
    assert check.hints({**BASE, "reason": "ordered_by_mistake", "tags": ["x"]}) == []


def test_hints_for_the_whole_object() -> None:
    [hint] = SchemaCheck(SCHEMA).hints(["not", "an", "object"])
    assert hint.path == "(arguments)" and hint.rule == "type" and "object" in hint.expected


async def test_guard_answers_with_hints_instead_of_calling() -> None:
    called: list[dict[str, Any]] = []

    def cancel(**kwargs: Any) -> str:
        called.append(kwargs)
        return "cancelled"

    guard = Guard(clock=VirtualClock())
    tool = guard.wrap(cancel, schema=SCHEMA, write=True)
    result = await tool({"order_id": 1042, "reasn": "no_longer_needed"})
    assert called == []
    assert result.decision is Decision.repair and result.attempts == 0
    assert {h.rule for h in result.hints} == {"type", "additionalProperties"}
    assert "the call was not sent" in result.output
    for hint in result.hints:
        assert hint.text() in result.output
    fixed = await tool({"order_id": "1042", "reason": "no_longer_needed"})
    assert fixed.ok and called == [{"order_id": "1042", "reason": "no_longer_needed"}]


@pytest.mark.parametrize(
    ("raw", "words"),
    [("{bad json", "invalid JSON"), ("[1, 2]", "got an array"), ("7", "got a number")],
)
async def test_unparsable_arguments_get_a_hint(raw: str, words: str) -> None:
    guard = Guard(clock=VirtualClock())
    tool = guard.wrap(lambda **_: "x", name="t", schema=SCHEMA)
    result = await tool(raw)
    assert result.decision is Decision.repair and words in result.output
    assert result.hints[0].rule == "json"


def test_validation_can_be_switched_off() -> None:
    from sessionproof.guard import GuardConfig

    guard = Guard(GuardConfig(validate_arguments=False), clock=VirtualClock())
    result = guard.wrap(lambda **kw: kw, name="echo", schema=SCHEMA).call_sync({"wrong": 1})
    assert result.ok and result.value == {"wrong": 1}


@pytest.mark.parametrize(
    "schema", [{"type": "objekt"}, {"properties": {"a": {"minimum": "one"}}}, {"required": "a"}]
)
def test_invalid_schema_is_a_config_error(schema: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match="invalid JSON Schema for t arguments"):
        Guard(clock=VirtualClock()).wrap(lambda: None, name="t", schema=schema)


def test_hint_is_a_strict_record() -> None:
    with pytest.raises(ValueError):
        RepairHint.model_validate(
            {"path": "a", "rule": "type", "problem": "p", "expected": "e", "extra": 1}
        )
