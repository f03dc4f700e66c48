"""What the command line does not import before a command needs it: every invocation
(`sessionproof --help` included) would pay for it."""

from __future__ import annotations

import json
import subprocess
import sys

# scipy.stats alone took ~0.6 s of the CLI's ~2.4 s start-up; only mining and paired
# statistics use it. sklearn: only the early-warning risk model.
HEAVY = ("scipy", "sklearn", "ray")


def test_the_cli_starts_without_the_heavy_numerical_libraries() -> None:
    code = (
        "import json, sys; import sessionproof.cli; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
