"""Two test tiers: `scripts/test.sh --fast` leaves out the tests marked slow; the default run,
which CI runs, is the whole suite."""

from __future__ import annotations

import ast
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "test.sh"


def _pytest_args(*given: str) -> list[str]:
    """The arguments scripts/test.sh hands to pytest for `given`, from its own argument handling
    (run alone: the rest of the script installs and lints)."""
    handling = [line for line in SCRIPT.read_text().splitlines() if '"--fast"' in line]
    assert len(handling) == 1, handling
    show = 'for a in "$@"; do printf "%s\\n" "$a"; done'
    shown = subprocess.run(
        ["bash", "-c", f"{handling[0]}\n{show}", "test.sh", *given],
        capture_output=True,
        text=True,
        check=True,
    )
    return shown.stdout.splitlines()


def test_the_fast_flag_leaves_out_the_slow_tests_and_keeps_other_arguments() -> None:
    assert _pytest_args("--fast") == ["-m", "not slow"]
    assert _pytest_args("--fast", "-x", "tests/scoring") == [
        "-m",
        "not slow",
        "-x",
        "tests/scoring",
    ]
    assert _pytest_args("-x") == ["-x"]
    assert _pytest_args() == []
    # The script ends by handing those arguments to pytest.
    assert SCRIPT.read_text().rstrip().endswith('pytest -q "$@"')


def test_the_default_run_and_ci_run_the_whole_suite() -> None:
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    options = pytest_options["ini_options"]
    assert "-m" not in options["addopts"].split()
    assert any(m.startswith("slow:") for m in options["markers"])
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bash scripts/test.sh" in ci and "--fast" not in ci


def _marks(node: ast.expr) -> set[str]:
    """The `pytest.mark.NAME`s in a decorator or a `pytestmark` value."""
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Attribute)
        and n.value.attr == "mark"
    }


def test_the_tests_that_need_a_llama_server_are_slow() -> None:
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
            ):
                module |= _marks(node.value)
        for node in ast.walk(tree):
            test = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if test and node.name.startswith("test"):
                marks = module.union(*(_marks(d) for d in node.decorator_list))
                if "llama" in marks:
                    found.append(node.name)
                    assert "slow" in marks, f"{path.name}::{node.name} needs llama but is fast"
    assert found, "no test is marked llama: is the scan still looking?"
