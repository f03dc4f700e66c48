"""One builder per drift kind: given a tool, the drifted tool and how to translate back.

Each builder returns None when its kind does not apply to the tool (no parameters to rename,
no enum to change...). The translation goes from the drifted form the agent sends to the form
the domain still speaks, and back for outputs, so a task stays solvable under drift.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..records import ToolSpec
from ._hash import stable_pick

Json = dict[str, Any]


class DriftKind(StrEnum):
    """What changed in the API since the agent's prompt was written."""

    rename_param = "rename_param"
    """A parameter has a new name (`order_id` → `order_ref`)."""
    add_required_param = "add_required_param"
    """A new required parameter the agent can fill (`confirm: true` on writes, a `purpose`
    string on reads)."""
    change_param_type = "change_param_type"
    """A parameter's type changed (a string id becomes `{"value": "..."}`, a number a
    string of digits)."""
    rename_tool = "rename_tool"
    """The tool has a new name (`get_order` → `fetch_order`); the old name is gone."""
    remove_response_field = "remove_response_field"
    """A response field disappeared (an optional, non-id field is chosen)."""
    rename_response_field = "rename_response_field"
    """A response field has a new name."""
    enum_change = "enum_change"
    """An enumerated parameter's allowed values changed spelling (`no_longer_needed` →
    `NO_LONGER_NEEDED`); the old values are rejected."""
    description_change = "description_change"
    """The tool's documentation was rewritten: only its first sentence is left and the
    parameter descriptions are gone. Calls are unchanged."""


def _same(args: Json) -> Json:
    """Arguments unchanged (kinds that only change what the agent reads)."""
    return args


@dataclass(frozen=True)
class ToolDrift:
    """The concrete change one drift kind made to one tool."""

    kind: DriftKind
    original: ToolSpec
    drifted: ToolSpec
    detail: str
    """What changed, in words (the `drift_applied` event's detail)."""
    to_domain: Callable[[Json], Json] = field(default=_same, repr=False)
    """Arguments in the drifted form (already validated) → the form the domain accepts."""
    from_domain: Callable[[Any], Any] | None = field(default=None, repr=False)
    """A successful parsed output → the drifted response shape (None: unchanged)."""


_RENAMES = {
    "email": "email_address",
    "reason": "cause",
    "summary": "synopsis",
    "city": "town",
    "state": "region",
    "zip_code": "postal_code",
    "line1": "street",
    "line2": "unit",
    "category": "topic",
    "status": "state_code",
    "total": "amount_total",
    "name": "display_name",
    "query": "search_text",
}
_VERBS = {
    "get": "fetch",
    "find": "lookup",
    "list": "query",
    "search": "query",
    "update": "modify",
    "create": "open",
    "cancel": "void",
    "book": "reserve",
    "return": "send_back",
}


def renamed(name: str, taken: set[str]) -> str:
    """A plausible new name for a field or parameter, distinct from every name in `taken`."""
    if name.endswith("_ids"):
        new = name[:-4] + "_refs"
    elif name.endswith("_id"):
        new = name[:-3] + "_ref"
    elif name == "id":
        new = "ref"
    else:
        new = _RENAMES.get(name, f"{name}_value")
    while new in taken or new == name:
        new += "_v2"
    return new


def _with(spec: ToolSpec, **changes: Any) -> ToolSpec:
    return spec.model_copy(update=changes)


def _props(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    props = (schema or {}).get("properties")
    return props if isinstance(props, dict) else {}


def _pick_param(spec: ToolSpec, seed: int, names: list[str]) -> str:
    required = [n for n in names if n in spec.parameters.get("required", [])]
    return stable_pick(sorted(required or names), "drift-param", seed, spec.name)


def _word_sub(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\w]){re.escape(old)}(?![\w])", new, text)


def _rename_param(spec: ToolSpec, seed: int, tool_names: set[str]) -> ToolDrift | None:
    props = _props(spec.parameters)
    if not props:
        return None
    old = _pick_param(spec, seed, list(props))
    new = renamed(old, set(props))
    params = copy.deepcopy(spec.parameters)
    params["properties"] = {(new if k == old else k): v for k, v in props.items()}
    if "required" in params:
        params["required"] = [new if r == old else r for r in params["required"]]

    def to_domain(args: Json) -> Json:
        return {(old if k == new else k): v for k, v in args.items()}

    return ToolDrift(
        DriftKind.rename_param,
        spec,
        _with(spec, parameters=params, description=_word_sub(spec.description, old, new)),
        f"parameter {old!r} of {spec.name} renamed to {new!r}",
        to_domain,
    )


def _add_required_param(spec: ToolSpec, seed: int, tool_names: set[str]) -> ToolDrift | None:
    props = _props(spec.parameters)
    if spec.write:
        name = "confirm" if "confirm" not in props else "confirm_change"
        schema: Json = {
            "type": "boolean",
            "const": True,
            "description": "Must be true: confirms the customer agreed to this change. "
            "Calls without it are rejected.",
        }
    else:
        name = "purpose" if "purpose" not in props else "lookup_purpose"
        schema = {
            "type": "string",
            "minLength": 1,
            "description": "Why the lookup is made, in a few words (kept in the audit log).",
        }
    params = copy.deepcopy(spec.parameters)
    params["type"] = "object"
    params["properties"] = {**props, name: schema}
    params["required"] = [*params.get("required", []), name]

    def to_domain(args: Json) -> Json:
        return {k: v for k, v in args.items() if k != name}

    return ToolDrift(
        DriftKind.add_required_param,
        spec,
        _with(spec, parameters=params),
        f"{spec.name} now requires parameter {name!r} ({schema['type']})",
        to_domain,
    )


def _change_param_type(spec: ToolSpec, seed: int, tool_names: set[str]) -> ToolDrift | None:
    props = _props(spec.parameters)
    typed = [n for n, s in props.items() if s.get("type") in ("string", "integer", "number")]
    if not typed:
        return None
    ids = [n for n in typed if n == "id" or n.endswith("_id")]
    name = _pick_param(spec, seed, ids or typed)
    before = props[name]
    params = copy.deepcopy(spec.parameters)
    after: Json
    if before["type"] == "string":
        inner = {k: v for k, v in before.items() if k != "description"}
        after = {
            "type": "object",
            "properties": {"value": inner},
            "required": ["value"],
            "additionalProperties": False,
        }
        change = 'a string to an object {"value": <string>}'

        def convert(value: Any) -> Any:
            return value["value"]

    else:
        after = {"type": "string", "pattern": r"^-?\d+(\.\d+)?$"}
        change = f"{before['type']} to a string of digits"
        as_number: Callable[[str], Any] = int if before["type"] == "integer" else float

        def convert(value: Any) -> Any:
            return as_number(value)

    if "description" in before:
        after["description"] = before["description"]
    params["properties"][name] = after

    def to_domain(args: Json) -> Json:
        return {k: (convert(v) if k == name else v) for k, v in args.items()}

    return ToolDrift(
        DriftKind.change_param_type,
        spec,
        _with(spec, parameters=params),
        f"parameter {name!r} of {spec.name} changed from {change}",
        to_domain,
    )


def _rename_tool(spec: ToolSpec, seed: int, tool_names: set[str]) -> ToolDrift | None:
    verb, _, rest = spec.name.partition("_")
    new = f"{_VERBS[verb]}_{rest}" if verb in _VERBS and rest else f"{spec.name}_v2"
    while new in tool_names:
        new += "_v2"
    return ToolDrift(
        DriftKind.rename_tool, spec, _with(spec, name=new), f"tool {spec.name} renamed to {new}"
    )


def _map_records(value: Any, change: Callable[[Json], Json]) -> Any:
    if isinstance(value, dict):
        return change(value)
    if isinstance(value, list):
        return [change(v) if isinstance(v, dict) else v for v in value]
    return value


def _scalar(schema: Any) -> bool:
    if not isinstance(schema, Mapping) or "$ref" in schema:
        return False
    options = schema.get("anyOf")
    if isinstance(options, list):
        return all(_scalar(o) for o in options)
    return schema.get("type") in ("string", "number", "integer", "boolean", "null")


def _remove_response_field(spec: ToolSpec, seed: int, tool_names: set[str]) -> ToolDrift | None:
    props = _props(spec.output_schema)
    if len(props) < 2:
        return None
    required = set((spec.output_schema or {}).get("required", []))
    # The least informative field keeps the task solvable in the common case: an optional
    # scalar loses a detail; an id, a status or a nested record may be what the task needs.
    plain = [n for n in props if not n.endswith("id") and n != "status"]
    optional = [n for n in plain if n not in required]
    scalar = [n for n in optional if _scalar(props[n])]
    pool = scalar or optional or plain or list(props)
    name = stable_pick(sorted(pool), "drift-field", seed, spec.name)
    out = copy.deepcopy(spec.output_schema or {})
    out["properties"] = {k: v for k, v in props.items() if k != name}
    if "required" in out:
        out["required"] = [r for r in out["required"] if r != name]

    def from_domain(value: Any) -> Any:
        return _map_records(value, lambda d: {k: v for k, v in d.items() if k != name})

    return ToolDrift(
        DriftKind.remove_response_field,
        spec,
        _with(spec, output_schema=out),
        f"response field {name!r} removed from {spec.name}",
        from_domain=from_domain,
    )


def _rename_response_field(spec: ToolSpec, seed: int, tool_names: set[str]) -> ToolDrift | None:
    props = _props(spec.output_schema)
    if not props:
        return None
    required = [n for n in props if n in (spec.output_schema or {}).get("required", [])]
    old = stable_pick(sorted(required or props), "drift-field", seed, spec.name)
    new = renamed(old, set(props))
    out = copy.deepcopy(spec.output_schema or {})
    out["properties"] = {(new if k == old else k): v for k, v in props.items()}
    if "required" in out:
        out["required"] = [new if r == old else r for r in out["required"]]

    def from_domain(value: Any) -> Any:
        return _map_records(value, lambda d: {(new if k == old else k): v for k, v in d.items()})

    return ToolDrift(
        DriftKind.rename_response_field,
        spec,
        _with(spec, output_schema=out),
        f"response field {old!r} of {spec.name} renamed to {new!r}",
        from_domain=from_domain,
    )


def _enum_of(schema: Json, params: Json) -> list[str] | None:
    if "$ref" in schema:
        ref = str(schema["$ref"])
        target = params.get("$defs", {}).get(ref.rsplit("/", 1)[-1], {})
        return _enum_of(target, params) if ref.startswith("#/$defs/") else None
    values = schema.get("enum")
    if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
        return list(values)
    return None


def _respelled(values: list[str]) -> list[str]:
    new = [v.upper() if v != v.upper() else v.lower() for v in values]
    if len(set(new)) != len(new) or set(new) & set(values):
        new = [f"{v}_v2" for v in values]
    return new


def _enum_change(spec: ToolSpec, seed: int, tool_names: set[str]) -> ToolDrift | None:
    props = _props(spec.parameters)
    enums = {n: e for n, s in props.items() if (e := _enum_of(s, spec.parameters))}
    if not enums:
        return None
    name = _pick_param(spec, seed, list(enums))
    old_values = enums[name]
    new_values = _respelled(old_values)
    back = dict(zip(new_values, old_values, strict=True))
    params = copy.deepcopy(spec.parameters)
    before = props[name]
    after: Json = {"type": "string", "enum": new_values}
    description = before.get("description")
    if isinstance(description, str):
        for old, new in zip(old_values, new_values, strict=True):
            description = _word_sub(description, old, new)
        after["description"] = description
    params["properties"][name] = after

    def to_domain(args: Json) -> Json:
        return {k: (back.get(v, v) if k == name else v) for k, v in args.items()}

    return ToolDrift(
        DriftKind.enum_change,
        spec,
        _with(spec, parameters=params),
        f"allowed values of {spec.name}.{name} changed to {new_values}",
        to_domain,
    )


def _description_change(spec: ToolSpec, seed: int, tool_names: set[str]) -> ToolDrift | None:
    first = re.split(r"(?<=[.!?])\s", spec.description.strip(), maxsplit=1)[0]
    params = copy.deepcopy(spec.parameters)
    for prop in _props(params).values():
        if isinstance(prop, dict):
            prop.pop("description", None)
    description = first
    if description == spec.description and params == spec.parameters:
        description = f"{first} See the API reference for details."
    return ToolDrift(
        DriftKind.description_change,
        spec,
        _with(spec, description=description, parameters=params),
        f"documentation of {spec.name} rewritten (first sentence kept, parameter notes removed)",
    )


BUILDERS: dict[DriftKind, Callable[[ToolSpec, int, set[str]], ToolDrift | None]] = {
    DriftKind.rename_param: _rename_param,
    DriftKind.add_required_param: _add_required_param,
    DriftKind.change_param_type: _change_param_type,
    DriftKind.rename_tool: _rename_tool,
    DriftKind.remove_response_field: _remove_response_field,
    DriftKind.rename_response_field: _rename_response_field,
    DriftKind.enum_change: _enum_change,
    DriftKind.description_change: _description_change,
}
"""Kind → builder(tool, seed, every tool name) returning the drift, or None if it does not
apply to that tool."""
