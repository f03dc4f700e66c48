"""BFCL function documents → JSON Schema tool definitions, and provider-safe tool names."""

from __future__ import annotations

import re
from typing import Any, Final

_JSON_TYPES: Final[dict[str, str | None]] = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "any": None,  # no "type": any JSON value
    "string": "string",
    "integer": "integer",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
    "number": "number",
}
# Keywords kept as they are; BFCL's own extras ("optional") mean nothing to a JSON Schema.
_KEPT: Final = (
    "description",
    "enum",
    "default",
    "format",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "pattern",
)
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME: Final = 64

PYTHON_HINT: Final = " Note that the provided function is in Python 3 syntax."
"""BFCL appends this to every Python function description before a model sees it."""


def to_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """One BFCL parameter schema as JSON Schema (recursively through properties and items)."""
    out: dict[str, Any] = {}
    bfcl_type = schema.get("type")
    if isinstance(bfcl_type, str):
        json_type = _JSON_TYPES.get(bfcl_type)
        if json_type is not None:
            out["type"] = json_type
    for key in _KEPT:
        if key in schema:
            out[key] = schema[key]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        out["properties"] = {
            name: to_json_schema(sub) for name, sub in properties.items() if isinstance(sub, dict)
        }
    items = schema.get("items")
    if isinstance(items, dict):
        out["items"] = to_json_schema(items)
    required = schema.get("required")
    if isinstance(required, list) and all(isinstance(r, str) for r in required):
        out["required"] = list(required)
    return out


def parameters_schema(function: dict[str, Any]) -> dict[str, Any]:
    """The arguments object of a BFCL function as JSON Schema (always an object)."""
    params = to_json_schema(function.get("parameters") or {})
    params["type"] = "object"
    params.setdefault("properties", {})
    return params


def safe_tool_names(names: list[str]) -> dict[str, str]:
    """Provider-safe name → original name, for every name in `names`, in order.

    OpenAI-style APIs accept `^[A-Za-z0-9_-]{1,64}$`; BFCL names such as `math.factorial`
    have dots. Each unsafe character becomes `_`; a clash gets a numeric suffix.
    """
    mapping: dict[str, str] = {}
    for original in names:
        base = _UNSAFE.sub("_", original)[:_MAX_NAME] or "function"
        candidate, n = base, 2
        while candidate in mapping and mapping[candidate] != original:
            suffix = f"_{n}"
            candidate = base[: _MAX_NAME - len(suffix)] + suffix
            n += 1
        mapping[candidate] = original
    return mapping
