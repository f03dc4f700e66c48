"""Names that were defined more than once (and drifted apart) now have one definition."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "sessionproof"


def _definitions() -> dict[str, list[str]]:
    """Every function, class and assigned name in the source -> the modules defining it."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        module = path.relative_to(SRC).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                where[node.name].append(module)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    # `name = name` (re-binding a shared definition) defines nothing new.
                    same = isinstance(node.value, ast.Name) and isinstance(target, ast.Name)
                    if isinstance(target, ast.Name) and not (same and node.value.id == target.id):
                        where[target.id].append(module)
    return where


DEFS = _definitions()


def test_one_run_summary_one_percentage_format_one_fact_search() -> None:
    assert DEFS["RunSummary"] == ["scoring/_summary.py"]
    assert DEFS["pct"] == ["report/_format.py"] and DEFS["_pct"] == []
    assert DEFS["normalise_text"] == ["scoring/_verdict.py"] and DEFS["normalise"] == []


def test_the_stop_token_lives_with_the_agent_protocol() -> None:
    assert DEFS["STOP_TOKEN"] == ["agents/_protocol.py"]
    literal = [p for p in SRC.rglob("*.py") if "###STOP###" in p.read_text(encoding="utf-8")]
    assert [p.relative_to(SRC).as_posix() for p in literal] == ["agents/_protocol.py"]


def test_tau2_defines_its_transfer_tool_once() -> None:
    # The demo's own hand-off validates its summary and says more: a different tool.
    assert sorted(DEFS["transfer_to_human_agents"]) == [
        "domains/demo/_tools.py",
        "suites/tau2/_tau/_domain.py",
    ]
