"""A `RunConfig` (what `run_suite` and `sessionproof run` build first) loads neither the
importers, the store nor telemetry: the live export's settings and the other use cases'
configs are imported only by the use cases that need them."""

from __future__ import annotations

import json
import subprocess
import sys


def test_run_config_loads_no_importer_store_or_telemetry() -> None:
    code = (
        "import json, sys; import sessionproof.runs as r; "
        "r.RunConfig(model='oracle', export={'endpoint': 'http://127.0.0.1:1'}); "
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout))
    assert "sessionproof.runs._live" in loaded
    heavy = {"sessionproof.importers", "sessionproof.store", "sessionproof.telemetry"}
    assert not heavy & loaded
