"""`import sessionproof.guard` loads the guard and its own dependencies, not the harness."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HARNESS = ("engine", "scoring", "suites", "store", "agents", "conditions", "importers", "cli")
HEAVY = ("numpy", "scipy", "duckdb", "openai", "anthropic")

_PROBE = """
import json, sys
import sessionproof.guard
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(code: str) -> list[str]:
    # A fresh interpreter: this test process has long since imported everything.
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    modules: list[str] = json.loads(out.stdout)
    return modules


def test_guard_imports_without_the_harness() -> None:
    modules = _loaded(_PROBE)
    harness = [
        m for m in modules if m.split(".")[:2][-1] in HARNESS and m.startswith("sessionproof.")
    ]
    heavy = [m for m in modules if m.split(".")[0] in HEAVY]
    assert harness == []
    assert heavy == []
    assert "sessionproof.guard" in modules


@pytest.mark.slow
def test_top_level_entry_points_still_resolve() -> None:
    modules = _loaded(
        "import json, sys, sessionproof\n"
        "assert callable(sessionproof.run_suite) and callable(sessionproof.arun_suite)\n"
        "assert sessionproof.RunResult.__name__ == 'RunResult'\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    assert "sessionproof.engine" in modules  # loaded on first use, not before


def test_guard_loads_the_tool_source_seam_not_the_toolkits() -> None:
    # The guard wraps a tool source, so it needs the protocol; schema generation from typed
    # methods (docstring_parser), domains and the registry are not its business.
    modules = _loaded(_PROBE)
    assert "sessionproof.domains._source" in modules
    toolkits = [m for m in modules if m.startswith("sessionproof.domains.")]
    # Only the seam: the result helpers (`_results`) loaded too while the domains package
    # exported everything eagerly; its facade now loads them where they are used.
    assert sorted(toolkits) == ["sessionproof.domains._source"]
    assert "docstring_parser" not in modules
