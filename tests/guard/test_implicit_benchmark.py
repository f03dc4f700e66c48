"""benchmarks/implicit_faults.py: an unknown fault kind stops it before any run, named; with
known kinds it prints each arm's accuracy, paired difference, detection and recovery."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "implicit_faults.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def test_an_unknown_fault_kind_stops_the_script_naming_it() -> None:
    done = _run("--kinds", "no_such_kind", "--limit", "1")
    assert done.returncode != 0
    assert "fault kind 'no_such_kind' is not known" in done.stderr
    assert "sessions in" not in done.stdout  # nothing ran


@pytest.mark.slow
def test_the_table_has_every_arm_with_detection_and_recovery() -> None:
    done = _run("--kinds", "timeout", "--limit", "3", "--trials", "1", "--agents", "oracle")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "detection [95% CI]" in out and "recovery [95% CI]" in out
    lines = out.splitlines()
    for arm in ("baseline", "faults=40%", "faults=timeout:40%", "faults=timeout:40% verify"):
        assert any(line.startswith(arm + " ") for line in lines), arm
    assert "perturbation recovery rate (ToolMaze's terms)" in out
