"""The example plug-in package (examples/acme-plugin) adds a benchmark through entry points only.

It is installed with pip into a scratch directory (no network: its build backend is its own),
and the real CLI runs in a subprocess with that directory on PYTHONPATH: `run --suite acme:smoke`
runs its suite in its domain and judges the sessions with its judge, and `score` of that run's
exported trace judges them with the same judge; its metric `gadgets_ordered` is in `show
--metrics` (table and `--json`), the HTML report and the OTLP export; and its order-log format
is detected by `score` and `import` with no `--format`. Nothing in sessionproof names it.

To check another seam of the package, add its entry point to the example's pyproject.toml and
a step below that uses `installed` and `cli`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import sessionproof
from sessionproof.records import Session
from sessionproof.store import Store

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "acme-plugin"
SRC = Path(sessionproof.__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "sessionproof.cli"]

pytestmark = pytest.mark.slow

Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example package, installed by pip into a scratch target directory."""
    site = tmp_path_factory.mktemp("acme-site")
    subprocess.run(
        [
            sys.executable,
            *("-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"),
            *("--no-index", "--target", str(site), str(EXAMPLE)),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (site / "acme_plugin" / "__init__.py").is_file()
    assert list(site.glob("acme_plugin-*.dist-info/entry_points.txt"))
    return site


@pytest.fixture
def cli(installed: Path, tmp_path: Path) -> Cli:
    """Runs the sessionproof CLI in a subprocess that sees the installed example."""
    env = dict(os.environ, COLUMNS="400")  # help text unwrapped
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(installed), str(SRC), env.get("PYTHONPATH", "")) if p
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*CLI, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return done

    return run


def _sessions(store: Path, run_id: str) -> list[Session]:
    with Store.open(store, read_only=True) as db:
        return sorted(db.load_sessions(run_id), key=lambda s: s.scenario_id)


def _judged_by_acme(sessions: list[Session]) -> None:
    assert [s.scenario_id for s in sessions] == ["acme-skates", "acme-two-widgets"]
    for session in sessions:
        assert session.outcome is not None and session.outcome.success
        names = [c.name for c in session.outcome.criteria]
        assert "acme_orders" in names, names  # the package's own judge gave the verdict


def test_the_suite_is_unknown_without_the_package() -> None:
    # The example lives outside src/: sessionproof alone does not know its suite.
    probe = "from sessionproof.suites import load_suite\nload_suite('acme:smoke')"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    assert "UnknownSuiteError: unknown suite 'acme:smoke'" in done.stderr


def test_run_and_score_use_the_packages_suite_domain_and_judge(cli: Cli, tmp_path: Path) -> None:
    listed = cli("run", "--help").stdout
    assert "acme:SET (ACME gadget orders (an example plug-in) (from acme-plugin))" in listed

    store = tmp_path / "runs.duckdb"
    ran = json.loads(
        cli(
            "run",
            "--suite",
            "acme:smoke",
            "--model",
            "oracle",
            "--store",
            str(store),
            "--no-report",
            "--json",
        ).stdout
    )
    assert ran["sessions"] == 2 and ran["judged"] == 2 and ran["successes"] == 2
    _judged_by_acme(_sessions(store, ran["run_id"]))

    # A run made by `run` reloads its suite (the user named it) for the metrics.
    shown = json.loads(
        cli("show", ran["run_id"], "--metrics", "--json", "--store", str(store)).stdout
    )
    assert shown["suite"] == "acme:smoke"
    assert shown["scenarios"] == {"source": "suite acme:smoke", "available": 2}
    # The package's metric, per arm: the oracle orders 2 widgets and 1 pair of skates.
    (arm,) = shown["arms"].values()
    ordered = arm["metrics"]["gadgets_ordered"]
    assert ordered["value"] == 1.5 and ordered["n"] == 2
    assert shown["definitions"]["gadgets_ordered"].startswith("gadgets the agent ordered")
    table = cli("show", ran["run_id"], "--metrics", "--store", str(store)).stdout
    assert "gadgets_ordered" in table and "1.5" in table
    page = tmp_path / "report.html"
    cli("report", ran["run_id"], "--store", str(store), "-o", str(page))
    text = page.read_text()
    assert "acme_orders" in text  # the judge's criterion, in the report
    metrics_section = text.split('<section id="metrics"', 1)[1].split("</section>", 1)[0]
    assert "gadgets_ordered" in metrics_section

    trace = tmp_path / "trace.json"
    export = ["--format", "otlp-json", "--otel-content", "-o", str(trace), "--store", str(store)]
    cli("export", ran["run_id"], *export)
    assert "acme_orders" in trace.read_text()  # and in the exported trace
    assert _evaluations(trace, "gadgets_ordered") == [1.0, 2.0]  # one event per session
    scored_store = tmp_path / "scored.duckdb"
    scored = json.loads(
        cli(
            "score",
            str(trace),
            "--suite",
            "acme:smoke",
            "--store",
            str(scored_store),
            "--no-report",
            "--json",
        ).stdout
    )
    assert scored["sessions"] == 2 and scored["session_accuracy"] == 1.0
    assert scored["agreement"]["reward"] == {"match": 2, "total": 2}
    _judged_by_acme(_sessions(scored_store, scored["run_id"]))


def _evaluations(trace: Path, name: str) -> list[float]:
    """The score values of every `gen_ai.evaluation.result` event named `name`, sorted."""
    values = []
    for rs in json.loads(trace.read_text())["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for event in span.get("events", []):
                    attrs = {a["key"]: a["value"] for a in event.get("attributes", [])}
                    if attrs.get("gen_ai.evaluation.name", {}).get("stringValue") == name:
                        values.append(float(attrs["gen_ai.evaluation.score.value"]["doubleValue"]))
    return sorted(values)


ORDER_LOG = [
    {
        "acme_log": 1,
        "task": "acme-two-widgets",
        "said": "Please order two blue widgets (G1).",
        "calls": [
            {"tool": "order_gadget", "args": {"gadget_id": "G1", "quantity": 2}, "result": "ok"}
        ],
        "reply": "Ordered.",
    },
    {
        "acme_log": 1,
        "task": "acme-skates",
        "said": "One pair of rocket skates (G2), please.",
        "calls": [
            {"tool": "order_gadget", "args": {"gadget_id": "G1", "quantity": 1}, "result": "ok"}
        ],
        "reply": "Ordered.",  # the wrong gadget
    },
]


def test_the_packages_order_log_is_detected_and_judged_by_its_judge(
    cli: Cli, tmp_path: Path
) -> None:
    log = tmp_path / "orders.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in ORDER_LOG))
    store = tmp_path / "scored.duckdb"
    args = ("--suite", "acme:smoke", "--store", str(store), "--no-report", "--json")
    scored = json.loads(cli("score", str(log), *args).stdout)  # no --format: the sniff tells it
    shown = json.loads(cli("show", scored["run_id"], "--store", str(store), "--json").stdout)
    assert shown["manifest"]["options"]["format"] == "acme-log"
    # The right order passes and the wrong quantity fails, by ACME's own judge.
    assert scored["sessions"] == 2 and scored["session_accuracy"] == 0.5
    by_task = {s.scenario_id: s for s in _sessions(store, scored["run_id"])}
    assert by_task["acme-two-widgets"].verdict is True
    assert by_task["acme-skates"].verdict is False
    (criterion,) = [c for c in by_task["acme-skates"].outcome.criteria if c.name == "acme_orders"]
    assert criterion.evidence == "orders placed [('G1', 1)], wanted [('G2', 1)]"

    imported = json.loads(
        cli("import", str(log), "--store", str(tmp_path / "imp.duckdb"), "--json").stdout
    )
    assert imported["format"] == "acme-log" and imported["sessions"] == 2
