"""A user's metric, registered in code or by an installed package's entry point, appears in
`show --metrics`, its `--json`, the HTML report and the OTLP export, computed per arm, with the
sessions it raised on said missing with the reason while the run's numbers go on."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import sessionproof
from sessionproof._plugins import forget_entry_points
from sessionproof.cli._internal import app
from sessionproof.records import ToolCallEvent
from sessionproof.records._internal import FaultInjectedEvent
from sessionproof.scoring import SessionInput, metric
from sessionproof.scoring._metric import METRICS

PLUGIN = """
from sessionproof.records import ToolCallEvent
from sessionproof.records._internal import FaultInjectedEvent
from sessionproof.scoring import SessionInput, metric


@metric("faults_seen", "faults injected into the session, per judged session", register=False)
def faults_seen(item: SessionInput) -> float:
    return len(item.session.events_of(FaultInjectedEvent))


@metric("fragile", "1 per judged session; it raises on cancellation scenarios", register=False)
def fragile(item: SessionInput) -> float:
    if "cancel" in item.session.scenario_id:
        raise RuntimeError("boom on " + item.session.scenario_id)
    return 1.0


@metric("arguments_per_call", "arguments given per tool call", span="call", register=False)
def arguments_per_call(item: SessionInput) -> dict[str, float]:
    calls = item.session.events_of(ToolCallEvent)
    return {c.payload.id: len(c.payload.arguments or {}) for c in calls}
"""


@pytest.fixture(scope="module")
def two_arms(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("metric-plugins") / "s.duckdb"
    done = sessionproof.run_suite(
        "demo", "oracle", limit=3, trials=2, store=store, arms=["baseline", "faults=30%"]
    )
    return store, done.run_id


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """`acme-metrics`, as `pip install` would leave it: a module and its dist-info."""
    (tmp_path / "acme_metrics.py").write_text(PLUGIN)
    info = tmp_path / "acme_metrics-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-metrics\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[sessionproof.metrics]\n"
        "faults_seen = acme_metrics:faults_seen\n"
        "fragile = acme_metrics:fragile\n"
        "arguments_per_call = acme_metrics:arguments_per_call\n"
    )
    return tmp_path


def _cli(package: Path, cwd: Path, *args: str) -> str:
    """The real CLI in a fresh interpreter with the package importable (nothing else)."""
    src = Path(sessionproof.__file__).parents[1]
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{package}"}
    done = subprocess.run(
        [sys.executable, "-c", "from sessionproof.cli import main; main()", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _faults(store: Path, run_id: str, arm: str) -> float:
    with sessionproof.store.Store.open_for_reading(store) as db:
        sessions = [s for s in db.load_sessions(run_id) if s.arm == arm and s.judged]
    return sum(len(s.events_of(FaultInjectedEvent)) for s in sessions) / len(sessions)


def _calls(store: Path, run_id: str) -> dict[str, list[ToolCallEvent]]:
    with sessionproof.store.Store.open_for_reading(store) as db:
        return {s.session_id: s.events_of(ToolCallEvent) for s in db.load_sessions(run_id)}


def _check_calls_json(data: dict[str, Any], store: Path, run_id: str) -> None:
    """The call-placed metric: per arm, the mean over sessions of each session's mean."""
    calls = _calls(store, run_id)
    for arm, report in data["arms"].items():
        means = [
            sum(len(c.payload.arguments or {}) for c in found) / len(found)
            for sid, found in calls.items()
            if sid.endswith(".a0" if arm == "baseline" else ".a1") and found
        ]
        value = report["metrics"]["arguments_per_call"]
        assert value["value"] == pytest.approx(sum(means) / len(means))
        assert value["n"] == len(means)


def _check_json(data: dict[str, Any], store: Path, run_id: str) -> None:
    arms = data["arms"]
    assert list(arms) == ["baseline", "faults=30%"]
    for arm, report in arms.items():
        seen = report["metrics"]["faults_seen"]
        assert seen["value"] == pytest.approx(_faults(store, run_id, arm))
        assert seen["n"] == report["summary"]["judged"]
        fragile = report["metrics"]["fragile"]
        cancels = {k for k in fragile["missing"] if "cancel" in k}
        assert cancels and set(fragile["missing"]) == cancels
        assert all(v.startswith("RuntimeError: boom on ") for v in fragile["missing"].values())
        assert fragile["value"] == 1.0 and fragile["n"] == report["summary"]["judged"] - len(
            cancels
        )
        # The built-in numbers go on as before.
        assert report["summary"]["judged"] == 6
    assert arms["baseline"]["metrics"]["faults_seen"]["value"] == 0.0
    assert arms["faults=30%"]["metrics"]["faults_seen"]["value"] > 0.0
    assert data["definitions"]["faults_seen"].startswith("faults injected")


def _metric_rows(page: str) -> list[list[str]]:
    body = page.split('<section id="metrics"', 1)[1].split("</section>", 1)[0]
    return [
        [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
        if "<td>" in row
    ]


def _evaluations(trace: Path) -> Counter[tuple[str, str, str | None]]:
    """(metric, span name's first word, label) of every evaluation event of the two metrics."""
    found: Counter[tuple[str, str, str | None]] = Counter()
    for rs in json.loads(trace.read_text())["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for event in span.get("events", []):
                    attrs = {a["key"]: a["value"] for a in event.get("attributes", [])}
                    name = attrs.get("gen_ai.evaluation.name", {}).get("stringValue")
                    if name in ("faults_seen", "fragile", "arguments_per_call"):
                        label = attrs.get("gen_ai.evaluation.score.label", {}).get("stringValue")
                        found[(name, span["name"].split()[0], label)] += 1
    return found


def test_an_entry_point_metric_is_in_every_output_per_arm(
    two_arms: tuple[Path, str], package: Path, tmp_path: Path
) -> None:
    store, run_id = two_arms
    common = ("--store", str(store))
    table = _cli(package, tmp_path, "show", run_id, "--metrics", *common)
    assert table.count("registered metrics") == 2  # one table per arm
    assert table.count("faults_seen") >= 3 and "RuntimeError: boom on" in table

    data = json.loads(_cli(package, tmp_path, "show", run_id, "--metrics", "--json", *common))
    _check_json(data, store, run_id)
    _check_calls_json(data, store, run_id)

    page_path = tmp_path / "r.html"
    _cli(package, tmp_path, "report", run_id, "-o", str(page_path), *common)
    page = page_path.read_text()
    assert '<a href="#metrics">metrics</a>' in page
    rows = _metric_rows(page)
    assert [r[1:3] for r in rows] == [
        ["baseline", "arguments_per_call"],
        ["baseline", "faults_seen"],
        ["baseline", "fragile"],
        ["faults=30%", "arguments_per_call"],
        ["faults=30%", "faults_seen"],
        ["faults=30%", "fragile"],
    ]
    assert rows[1][3].startswith("0 (95% 0–0)  [n=6]") and "missing" in rows[2][3]

    trace = tmp_path / "t.json"
    _cli(package, tmp_path, "export", run_id, "--format", "otlp-json", "-o", str(trace), *common)
    events = _evaluations(trace)
    # Every judged session of both arms (12) has faults_seen on its invoke_agent span;
    # fragile has a value on the 4 non-cancel sessions and says missing on the 8 others.
    calls = _calls(store, run_id)
    assert events == {
        ("faults_seen", "invoke_agent", None): 12,
        ("fragile", "invoke_agent", None): 4,
        ("fragile", "invoke_agent", "missing"): 8,
        # Placed on calls: one event on each tool call's span.
        ("arguments_per_call", "execute_tool", None): sum(len(c) for c in calls.values()),
    }


def test_without_the_package_nothing_changes(two_arms: tuple[Path, str], tmp_path: Path) -> None:
    store, run_id = two_arms
    data = json.loads(
        _cli(tmp_path, tmp_path, "show", run_id, "--metrics", "--json", "--store", str(store))
    )
    assert all("metrics" not in report for report in data["arms"].values())
    assert "faults_seen" not in data["definitions"]


@pytest.fixture
def in_code() -> Iterator[None]:
    @metric("faults_seen", "faults injected into the session, per judged session")
    def faults_seen(item: SessionInput) -> float:
        return len(item.session.events_of(FaultInjectedEvent))

    @metric("fragile", "1 per judged session; it raises on cancellation scenarios")
    def fragile(item: SessionInput) -> float:
        if "cancel" in item.session.scenario_id:
            raise RuntimeError("boom on " + item.session.scenario_id)
        return 1.0

    forget_entry_points()
    yield
    METRICS.remove("faults_seen")
    METRICS.remove("fragile")


def test_a_metric_registered_in_code_is_in_every_output_per_arm(
    two_arms: tuple[Path, str], in_code: None, tmp_path: Path
) -> None:
    store, run_id = two_arms
    runner = CliRunner()
    common = ["--store", str(store)]
    out = runner.invoke(app, ["show", run_id, "--metrics", "--json", *common])
    assert out.exit_code == 0, out.output
    _check_json(json.loads(out.stdout), store, run_id)
    out = runner.invoke(app, ["show", run_id, "--metrics", *common])
    assert out.exit_code == 0 and out.stdout.count("registered metrics") == 2
    page = tmp_path / "r.html"
    out = runner.invoke(app, ["report", run_id, "-o", str(page), *common])
    assert out.exit_code == 0, out.output
    assert [r[2] for r in _metric_rows(page.read_text())] == ["faults_seen", "fragile"] * 2
    trace = tmp_path / "t.json"
    out = runner.invoke(app, ["export", run_id, "--format", "otlp-json", "-o", str(trace), *common])
    assert out.exit_code == 0, out.output
    assert _evaluations(trace)[("fragile", "invoke_agent", "missing")] == 8
