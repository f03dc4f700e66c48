"""docs/gym.md's example runs as shown and plays judged episodes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_docs_example_runs_and_prints_a_verdict_per_episode() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs/examples/gym_episode.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
        cwd="/",
    ).stdout
    lines = out.splitlines()
    assert len(lines) == 5
    for line in lines:
        assert re.fullmatch(r"[\w-]+ \(trial \d+\): (pass, return 1|fail, return 0)", line)
    assert '--8<-- "docs/examples/gym_episode.py"' in (ROOT / "docs/gym.md").read_text()
