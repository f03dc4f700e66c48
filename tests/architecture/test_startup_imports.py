"""What the command line does not import before a command needs it: every invocation
(`sessionproof --help` included) would pay for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # most tests here take seconds each

# scipy.stats alone took 0.6-1.4 s of the CLI's start-up; only compare's McNemar test and
# scikit-learn (the early-warning risk model) use it now.
HEAVY = ("scipy", "sklearn", "ray")


def _imported_after(statement: str, prefix: str) -> list[str]:
    """The modules named `prefix`... loaded in a fresh interpreter after `statement`."""
    code = (
        f"import json, sys; {statement}; "
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefix!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    found: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_the_cli_starts_without_the_heavy_numerical_libraries() -> None:
    loaded = set(_imported_after("import sessionproof.cli", ""))
    assert [m for m in HEAVY if m in loaded] == []


def test_a_runs_report_and_metrics_do_without_scipy_stats(tmp_path: Path) -> None:
    # Importing scipy.stats took 1.1-1.4 s, longer than the rest of a 600-session run's
    # report; its bootstrap, normal tail and Fisher tail are computed without it.
    code = f"""
import json, sys
from sessionproof import runs
from sessionproof.patterns import MineOptions
cfg = runs.RunConfig(suite="demo", model="oracle", trials=3, faults="40%", seed=3,
                     store={str(tmp_path / "s.duckdb")!r})
done = runs.run(cfg)
runs.report([done.run_id], {str(tmp_path / "r.html")!r}, cfg.store)
arm = next(iter(runs.metrics(done.run_id, cfg.store).arms.values()))
# Without the early-warning model: scikit-learn imports scipy.stats itself.
quick = MineOptions(early_warning=False)
mined = runs.patterns(done.run_id, store=cfg.store, options=quick).report
boot = arm.bootstrap_ci["session_accuracy"]
print(json.dumps({{"stats": "scipy.stats" in sys.modules, "boot": [boot.low, boot.high],
                  "p": [f.p_value for f in mined.exploratory], "tested": mined.tested}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["stats"] is False
    # They did run: a real interval, and the exploratory (Fisher) list over tested patterns.
    low, high = out["boot"]
    assert 0.0 <= low < high <= 1.0
    assert out["tested"] > 0
    assert out["p"] and all(0.0 <= p <= 1.0 for p in out["p"])


def test_the_cli_and_the_live_export_worker_load_only_the_telemetry_they_use() -> None:
    # The telemetry package's names load on first use: the CLI's `import` command module
    # named one of them, and the whole package (~0.1 s) came with every command; the live
    # export's worker imports its own module and what that needs.
    assert _imported_after("import sessionproof.cli", "sessionproof.telemetry.") == []
    worker = _imported_after(
        "import sessionproof.telemetry._live_worker", "sessionproof.telemetry."
    )
    assert "sessionproof.telemetry._live_worker" in worker
    for unused in ("_live", "_rebuild", "_usecases", "_readable"):
        assert f"sessionproof.telemetry.{unused}" not in worker


def test_every_lazily_exported_name_resolves_to_its_submodule() -> None:
    import importlib

    packages = ("suites", "suites.tau2", "telemetry", "users")
    for name in (f"sessionproof.{package}" for package in packages):
        package = importlib.import_module(name)
        module_of = package._MODULE_OF
        assert sorted(package.__all__) == sorted(module_of), name
        for export in package.__all__:
            value = getattr(package, export)
            source = importlib.import_module(module_of[export], name)
            assert getattr(source, export) is value, (name, export)
        assert set(package.__all__) <= set(dir(package))


def test_scoring_a_small_transcript_file_does_without_numpy(tmp_path: Path) -> None:
    # NumPy took ~40 ms of a 20-session `score` (issue 35's 0.5 s target) for the store's
    # columnar insert alone; a small batch goes in as list parameters.
    source = Path(__file__).resolve().parents[1] / "fixtures" / "tau"
    data = json.loads((source / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json").read_text())
    data["simulations"] = data["simulations"][:3]
    wanted = {s["task_id"] for s in data["simulations"]}
    data["tasks"] = [t for t in data["tasks"] if t["id"] in wanted]
    path = tmp_path / "three.json"
    path.write_text(json.dumps(data))
    code = f"""
import json, runpy, sys
sys.argv = ["sessionproof", "score", {str(path)!r}, "--store", {str(tmp_path / "s.duckdb")!r},
            "--no-report", "--json"]
try:
    runpy.run_module("sessionproof.cli", run_name="__main__")
except SystemExit as done:
    code = done.code
print(json.dumps({{"numpy": "numpy" in sys.modules, "code": code}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    lines = done.stdout.strip().splitlines()
    out = json.loads(lines[-1])
    summary = json.loads("\n".join(lines[:-1]))
    assert out == {"numpy": False, "code": 0}
    assert summary["sessions"] == 3 and summary["agreement"]["reward"]["total"] == 3
