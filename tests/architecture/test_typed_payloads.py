"""No module outside `records` reads an event payload by string key.

Payloads are typed models (records/_events.py); a `payload["x"]` or `payload.get("x")` outside
records means a reader went back to guessing the shape. The scan follows the one alias the
code used to take (`p = event.payload`, then `p.get(...)`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parents[2] / "src" / "sessionproof"
RECORDS = SRC / "records"


def _is_payload(node: ast.expr, aliases: set[str]) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "payload":
        return True
    return isinstance(node, ast.Name) and node.id in aliases


_DICT_METHODS = {"get", "items", "keys", "values", "setdefault", "pop"}


def _reads_a_key(node: ast.AST, aliases: set[str]) -> bool:
    if isinstance(node, ast.Subscript):
        return _is_payload(node.value, aliases)
    if isinstance(node, ast.Attribute) and node.attr in _DICT_METHODS:
        return _is_payload(node.value, aliases)
    return False


def _aliases(scope: ast.AST) -> set[str]:
    """Names bound to `<something>.payload` inside `scope`."""
    return {
        target.id
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "payload"
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def key_reads(source: str) -> list[int]:
    """Line numbers where a payload is subscripted or asked `.get` / `.items` / `.keys`."""
    tree = ast.parse(source)
    scopes = [
        tree,
        *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)),
    ]
    lines: set[int] = set()
    for scope in scopes:
        # An alias counts only in the function that takes it (a parameter of the same name
        # elsewhere is another variable).
        aliases = _aliases(scope) if scope is not tree else set()
        lines.update(n.lineno for n in ast.walk(scope) if _reads_a_key(n, aliases))
    return sorted(lines)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = e.payload['name']", [1]),
        ("x = e.payload.get('name')", [1]),
        ("def f(e):\n    p = e.payload\n    if p.get('a'):\n        return p['b']", [3, 4]),
        ("def f(e):\n    d = e.payload\n\ndef g(d):\n    return d[0]", []),
        ("for k, v in event.payload.items():\n    pass", [1]),
        ("x = e.payload.name\ny = e.payload.model_dump()", []),
        ("payload = {}\npayload['k'] = 1", []),  # building a dict to validate is fine
    ],
)
def test_the_scan_finds_key_reads(source: str, expected: list[int]) -> None:
    assert key_reads(source) == expected


@pytest.mark.slow
def test_no_payload_is_read_by_key_outside_records() -> None:
    found = [
        f"{path.relative_to(SRC)}:{line}"
        for path in sorted(SRC.rglob("*.py"))
        if RECORDS not in path.parents
        for line in key_reads(path.read_text())
    ]
    assert found == []
