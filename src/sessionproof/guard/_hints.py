"""Argument and output checks against JSON Schema, and repair hints an agent can act on.

A jsonschema error names the rule that failed; the hint turns it into three things a model
can use on its next try: where (the field path), what was wrong, what is expected, plus a
suggestion when one is obvious (a close property name, a close enum value, a number sent as
text).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigError

if TYPE_CHECKING:
    # jsonschema (~40 ms) loads when a schema is first checked: importing the guard (as the
    # arms of a report do, through their conditions) needs none.
    from jsonschema.exceptions import ValidationError

_JSON_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}


def json_type(value: Any) -> str:
    """The JSON Schema type name of a Python value."""
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _path(parts: Iterable[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(arguments)"


def _join(base: str, name: str) -> str:
    return name if base == "(arguments)" else f"{base}.{name}"


class RepairHint(BaseModel):
    """One thing wrong with a call's arguments, and how to fix it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    """Where: `order_id`, `items[0].quantity`, or `(arguments)` for the whole object."""
    rule: str
    """The JSON Schema keyword that failed (`required`, `type`, `enum`, ...)."""
    problem: str
    """What was wrong, in words."""
    expected: str
    """What the schema expects there."""
    suggestion: str | None = None
    """A likely fix, when one is obvious."""

    def text(self) -> str:
        """One line for the agent."""
        line = f"{self.path}: {self.problem}; expected {self.expected}"
        return f"{line} ({self.suggestion})" if self.suggestion else line


def _describe(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "any value" if schema is not False else "nothing (the field is not allowed)"
    if "const" in schema:
        return f"exactly {_show(schema['const'])}"
    if "enum" in schema:
        return "one of " + ", ".join(_show(v) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        text = " or ".join(kind)
    elif isinstance(kind, str):
        text = {"object": "an object", "array": "an array", "integer": "an integer"}.get(
            kind, f"a {kind}"
        )
    elif "anyOf" in schema or "oneOf" in schema:
        text = " or ".join(_describe(s) for s in schema.get("anyOf") or schema.get("oneOf") or [])
    else:
        text = "a value"
    if kind == "object" and isinstance(schema.get("properties"), Mapping):
        text += " with fields " + ", ".join(schema["properties"])
    return text


def _close(word: Any, options: Sequence[Any]) -> Any | None:
    if not isinstance(word, str):
        return None
    texts = [o for o in options if isinstance(o, str)]
    folded = {o.lower(): o for o in texts}
    if word.lower() in folded:
        return folded[word.lower()]
    match = difflib.get_close_matches(word, texts, n=1, cutoff=0.6)
    return match[0] if match else None


def _type_suggestion(value: Any, expected: Any) -> str | None:
    wanted = expected if isinstance(expected, list) else [expected]
    numeric = isinstance(value, str) and re.fullmatch(r"-?\d+(\.\d+)?", value.strip())
    if numeric and {"integer", "number"} & set(wanted):
        return f"send {str(value).strip()} as a number, without quotes"
    if isinstance(value, int | float) and not isinstance(value, bool) and "string" in wanted:
        return f'send it as text: "{value}"'
    if isinstance(value, str) and "boolean" in wanted and value.lower() in ("true", "false"):
        return f"send {value.lower()} without quotes"
    if "object" in wanted and not isinstance(value, dict):
        return 'wrap the value in an object, e.g. {"value": ...}' if value is not None else None
    return None


_BOUNDS = {
    "minimum": ("is below the minimum", "a number ≥ {}"),
    "maximum": ("is above the maximum", "a number ≤ {}"),
    "exclusiveMinimum": ("is not above the lower bound", "a number > {}"),
    "exclusiveMaximum": ("is not below the upper bound", "a number < {}"),
    "multipleOf": ("is not a multiple of the step", "a multiple of {}"),
    "minLength": ("is too short", "at least {} characters"),
    "maxLength": ("is too long", "at most {} characters"),
    "minItems": ("has too few items", "at least {} items"),
    "maxItems": ("has too many items", "at most {} items"),
    "minProperties": ("has too few fields", "at least {} fields"),
    "maxProperties": ("has too many fields", "at most {} fields"),
}


def hints_for(error: ValidationError) -> list[RepairHint]:
    """The repair hints for one jsonschema error (several for `required` and extra fields)."""
    where = _path(error.absolute_path)
    # jsonschema types these attributes loosely (they may be "unset"); read them as Any.
    rule: Any = error.validator
    want: Any = error.validator_value
    value: Any = error.instance
    schema: Any = error.schema
    props = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
    if rule == "required" and isinstance(value, Mapping):
        missing = [n for n in want if n not in value and repr(n) in error.message] or [
            n for n in want if n not in value
        ]
        return [
            RepairHint(
                path=_join(where, name),
                rule="required",
                problem="this required field is missing",
                expected=_describe(props.get(name, {})),
                suggestion=(
                    f"rename {close!r} to {name!r}"
                    if (close := _close(name, [k for k in value if k not in props]))
                    else None
                ),
            )
            for name in missing
        ]
    if rule == "additionalProperties" and isinstance(value, Mapping):
        patterns = schema.get("patternProperties", {})
        extras = [k for k in value if k not in props and not any(re.search(p, k) for p in patterns)]
        allowed = list(props)
        return [
            RepairHint(
                path=_join(where, name),
                rule="additionalProperties",
                problem="this field is not accepted by the tool",
                expected="only the fields " + ", ".join(allowed) if allowed else "no fields",
                suggestion=f"did you mean {close!r}?" if (close := _close(name, allowed)) else None,
            )
            for name in extras
        ]
    if rule == "type":
        return [
            RepairHint(
                path=where,
                rule="type",
                problem=f"got {json_type(value)} {_show(value)}",
                expected=_describe({"type": want}),
                suggestion=_type_suggestion(value, want),
            )
        ]
    if rule == "enum":
        close = _close(value, list(want))
        return [
            RepairHint(
                path=where,
                rule="enum",
                problem=f"{_show(value)} is not an allowed value",
                expected=_describe({"enum": want}),
                suggestion=f"did you mean {_show(close)}?" if close is not None else None,
            )
        ]
    if rule == "const":
        return [
            RepairHint(
                path=where,
                rule="const",
                problem=f"got {_show(value)}",
                expected=f"exactly {_show(want)}",
            )
        ]
    if rule == "pattern":
        return [
            RepairHint(
                path=where,
                rule="pattern",
                problem=f"{_show(value)} has the wrong form",
                expected=f"text matching the pattern {want}",
            )
        ]
    if rule == "format":
        return [
            RepairHint(
                path=where,
                rule="format",
                problem=f"{_show(value)} is not a valid {want}",
                expected=f"a valid {want}",
            )
        ]
    if rule in _BOUNDS:
        problem, expected = _BOUNDS[rule]
        shown = f"{_show(value)} {problem}" if not isinstance(value, list | dict) else problem
        return [RepairHint(path=where, rule=rule, problem=shown, expected=expected.format(want))]
    if rule == "uniqueItems":
        return [
            RepairHint(
                path=where,
                rule=rule,
                problem="the list repeats an item",
                expected="every item different",
            )
        ]
    if rule in ("anyOf", "oneOf"):
        return [
            RepairHint(
                path=where,
                rule=rule,
                problem=f"{_show(value)} fits none of the forms",
                expected=_describe({rule: want}),
            )
        ]
    return [RepairHint(path=where, rule=str(rule), problem=error.message, expected="a valid value")]


class SchemaCheck:
    """A JSON Schema compiled once; checks values and explains what is wrong."""

    def __init__(self, schema: Mapping[str, Any], what: str = "schema") -> None:
        import jsonschema
        from jsonschema.exceptions import SchemaError

        schema = dict(schema)
        cls = jsonschema.validators.validator_for(schema)
        try:
            cls.check_schema(schema)
        except SchemaError as exc:
            raise ConfigError(f"invalid JSON Schema for {what}: {exc.message}") from None
        self.schema = schema
        self._validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def errors(self, value: Any) -> list[ValidationError]:
        """Every violation, deepest-first within each path (empty when valid)."""
        return sorted(self._validator.iter_errors(value), key=lambda e: _path(e.absolute_path))

    def hints(self, value: Any) -> list[RepairHint]:
        """Repair hints for `value` (empty when valid)."""
        return [hint for error in self.errors(value) for hint in hints_for(error)]

    def problems(self, value: Any) -> list[str]:
        """One line per violation, for messages about outputs."""
        return [f"{_path(e.absolute_path)}: {e.message}" for e in self.errors(value)]
