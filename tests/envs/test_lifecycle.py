"""The environment's background loop: stopped by `close`, or when the environment is dropped,
with a running session cancelled cleanly (its tools closed, nothing left pending)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sessionproof.envs import SessionEnv

ROOT = Path(__file__).resolve().parents[2]


def _loops() -> int:
    return sum(t.name == "sessionproof-env-loop" for t in threading.enumerate())


def test_close_mid_session_stops_the_loop_and_may_be_called_again() -> None:
    before = _loops()
    env = SessionEnv("demo", faults="20%")
    env.reset(seed=0)
    assert _loops() == before + 1
    env.close()
    env.close()
    assert _loops() == before


@pytest.mark.slow
def test_a_dropped_environment_stops_its_loop_and_leaves_nothing_pending() -> None:
    code = (
        "import gc, threading\n"
        "from sessionproof.envs import SessionEnv\n"
        "env = SessionEnv('demo'); env.reset(seed=0)\n"
        "del env; gc.collect()\n"
        "print(sum(t.name == 'sessionproof-env-loop' for t in threading.enumerate()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.stdout.strip() == "0"
    assert "destroyed but it is pending" not in done.stderr
    assert done.stderr == ""
