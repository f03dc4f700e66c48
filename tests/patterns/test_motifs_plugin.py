"""A third party's motif, installed as a package with an entry point, tested like a built-in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sessionproof

FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "tau"
    / ("gpt-4.1_airline_default_gpt-4.1_1trials.json")
)
PLUGIN = """
from sessionproof.patterns import SessionView, motif


@motif(
    why="an apology marks a turn the agent could not serve",
    advice="look at what the agent apologised for",
    investment="review apologies",
    register=False,
)
def says_sorry(view: SessionView, context: object) -> bool:
    return any(t.kind == "agent" and "sorry" in t.text.lower() for t in view.turns)


not_a_motif = 42
"""


def _package(where: Path, entries: str) -> Path:
    (where / "acme_motifs.py").write_text(PLUGIN)
    info = where / "acme_motifs-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-motifs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[sessionproof.motifs]\n" + entries)
    return where


def _cli(package: Path, *args: str) -> subprocess.CompletedProcess[str]:
    src = Path(sessionproof.__file__).parents[1]
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{package}"}
    return subprocess.run(
        [sys.executable, "-c", "from sessionproof.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.slow
def test_an_installed_motif_is_tested_beside_the_builtins(tmp_path: Path) -> None:
    package = _package(tmp_path, "says_sorry = acme_motifs:says_sorry\n")
    done = _cli(package, "patterns", str(FIXTURE), "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    motifs = {m["name"]: m for m in json.loads(done.stdout)["motifs"]}
    assert "write_without_confirmation" in motifs
    sorry = motifs["says_sorry"]
    assert sorry["why"].startswith("an apology") and sorry["investment"] == "review apologies"
    assert sorry["failed"] + sorry["passed"] > 0
    assert sorry["control"] == "task-signature"


def test_a_plugin_that_is_not_a_motif_is_a_clear_error(tmp_path: Path) -> None:
    package = _package(tmp_path, "broken = acme_motifs:not_a_motif\n")
    done = _cli(package, "patterns", str(FIXTURE), "--json")
    assert done.returncode != 0
    assert "motif plug-in 'broken'" in done.stderr and "is not a Motif" in done.stderr
    assert "Traceback" not in done.stderr
