"""Benchmark data in `metadata` is read only by the benchmark package that wrote it.

Generic code decides by typed fields (`Criteria.evaluator`, `Criteria.call_rules`,
`Action.compare_args`); a metadata key read elsewhere is a benchmark branch in generic code.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "sessionproof"
OWNERS = {"tau2": SRC / "suites" / "tau2", "bfcl": SRC / "suites" / "bfcl"}


def _is_metadata(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "metadata"


def _keys_read(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, key) of every `x.metadata[KEY]`, `x.metadata.get(KEY)` and `KEY in x.metadata`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        key: ast.AST | None = None
        if isinstance(node, ast.Subscript) and _is_metadata(node.value):
            key = node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _is_metadata(node.func.value)
            and node.args
        ):
            key = node.args[0]
        elif isinstance(node, ast.Compare) and any(_is_metadata(c) for c in node.comparators):
            key = node.left
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            found.append((node.lineno, key.value))
    return found


def _written_keys(package: Path) -> set[str]:
    """The metadata keys a benchmark package writes (`metadata={KEY: ...}`)."""
    keys: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.keyword)
                and node.arg == "metadata"
                and isinstance(node.value, ast.Dict)
            ):
                keys |= {
                    k.value
                    for k in node.value.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                }
    return keys


def test_the_scan_finds_reads_of_each_form() -> None:
    code = "a.metadata['k1']\nb.metadata.get('k2')\n'k3' in c.metadata\nd.other['k4']\n"
    assert _keys_read(ast.parse(code)) == [(1, "k1"), (2, "k2"), (3, "k3")]


def test_benchmark_metadata_is_read_only_by_its_own_package() -> None:
    owned = {
        name: _written_keys(path) - {"source", "format", "source_index"}
        for name, path in OWNERS.items()
    }
    assert "tau2_task" in owned["tau2"] and "bfcl" in owned["bfcl"]
    leaks = []
    for path in sorted(SRC.rglob("*.py")):
        for line, key in _keys_read(ast.parse(path.read_text(encoding="utf-8"))):
            for name, keys in owned.items():
                if key in keys and not path.is_relative_to(OWNERS[name]):
                    leaks.append(f"{path.relative_to(SRC)}:{line} reads {name}'s {key!r}")
    assert leaks == []
