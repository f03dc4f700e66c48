"""`sessionproof gate` as CI runs it: exit codes, --json, JUnit XML read back and checked
against the JUnit schema's structure, the Markdown summary, the HTML page, and bad input as
one clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGENTS = "python:tests.runs.gate_agents"


def _gate(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sessionproof.cli",
            "gate",
            *args,
            "--store",
            str(tmp_path / "g.duckdb"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )


def _agents(baseline: str, candidate: str) -> list[str]:
    """The options that gate two agents of gate_agents.py against each other on the demo."""
    return [
        "--suite",
        "demo",
        "--baseline",
        f"{AGENTS}:{baseline}",
        "--candidate",
        f"{AGENTS}:{candidate}",
    ]


_CASE_CHILDREN = {"failure", "error", "skipped", "system-out", "system-err"}


def check_junit(path: Path) -> ET.Element:
    """Parse a JUnit file and hold it to the JUnit XML schema's structure (the Jenkins /
    Ant junit-10.xsd shape): testsuites > testsuite > testcase, names and counts present and
    equal to what the file holds, only the schema's children in a test case."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    total = failed = 0
    for suite in root:
        assert suite.tag == "testsuite" and suite.get("name")
        cases = suite.findall("testcase")
        assert int(suite.get("tests", "-1")) == len(cases)
        fails = sum(1 for c in cases if c.find("failure") is not None)
        skips = sum(1 for c in cases if c.find("skipped") is not None)
        assert int(suite.get("failures", "-1")) == fails
        assert int(suite.get("skipped", "-1")) == skips
        assert int(suite.get("errors", "-1")) == 0
        for case in cases:
            assert case.get("name") and case.get("classname")
            assert {child.tag for child in case} <= _CASE_CHILDREN
            failure = case.find("failure")
            assert failure is None or failure.get("message")
        total += len(cases)
        failed += fails
    assert int(root.get("tests", "-1")) == total
    assert int(root.get("failures", "-1")) == failed
    return root


def test_a_worse_candidate_exits_1_with_json_junit_summary_and_page(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    proc = _gate(
        tmp_path,
        *_agents("steady", "shaky"),
        "--json",
        "--junit",
        "j.xml",
        "--summary",
        str(summary),
        "--report",
        "gate.html",
    )
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] == "worse"
    low, high = data["effect"]["ci"]
    assert low <= data["effect"]["estimate"] <= high < -data["effect"]["margin"]
    assert data["sessions"]["baseline"] == data["sessions"]["candidate"] > 0
    assert data["cost"]["baseline"]["per_success"]["tokens"] > 0
    assert "round 1:" in proc.stderr  # each look is told as it happens
    root = check_junit(tmp_path / "j.xml")
    cases = list(root.iter("testcase"))
    assert len(cases) == 16 + 1
    (gate_case,) = [c for c in cases if c.get("name") == "gate"]
    assert gate_case.find("failure") is not None
    lost = [r["scenario_id"] for r in data["scenarios"] if r["only_baseline"] > r["only_candidate"]]
    failed = [c.get("name") for c in cases if c.find("failure") is not None and c is not gate_case]
    assert sorted(failed) == sorted(lost) and lost
    text = summary.read_text()
    assert text.startswith("earlier step\n")  # appended, as a step summary is
    assert "sessionproof gate: **worse**" in text
    assert "tokens per successful session" in text
    assert all(sid in text for sid in lost)
    page = (tmp_path / "gate.html").read_text()
    assert 'id="scenarios"' in page and 'id="cost"' in page


def test_inconclusive_exits_2_or_1_when_asked_and_is_skipped_in_junit(tmp_path: Path) -> None:
    args = (
        "--suite",
        "demo",
        "--baseline",
        "oracle",
        "--candidate",
        "oracle",
        "--max-trials",
        "1",
        "--junit",
        "j.xml",
    )
    proc = _gate(tmp_path, *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout.startswith("inconclusive:")
    assert "stopped: max trials" in proc.stdout
    gate_case = next(
        c for c in check_junit(tmp_path / "j.xml").iter("testcase") if c.get("name") == "gate"
    )
    assert gate_case.find("skipped") is not None
    strict = _gate(tmp_path, *args, "--fail-inconclusive")
    assert strict.returncode == 1
    gate_case = next(
        c for c in check_junit(tmp_path / "j.xml").iter("testcase") if c.get("name") == "gate"
    )
    assert gate_case.find("failure") is not None


def test_a_twin_exits_0_or_2(tmp_path: Path) -> None:
    proc = _gate(
        tmp_path,
        *_agents("steady", "steady_twin"),
        "--max-trials",
        "4",
        "--json",
    )
    assert proc.returncode in (0, 2), proc.stderr
    assert json.loads(proc.stdout)["verdict"] in ("not_worse", "inconclusive", "better")


def test_a_gate_that_cannot_decide_stops_for_futility_with_exit_2(tmp_path: Path) -> None:
    # A candidate about 5 points under the baseline: on the margin, no verdict is likely.
    proc = _gate(
        tmp_path,
        *_agents("steady", "slipping"),
        "--seed",
        "1",
        "--no-thin",
        "--json",
    )
    assert proc.returncode == 2, proc.stderr
    out = json.loads(proc.stdout)
    assert out["verdict"] == "inconclusive" and out["stopped_because"] == "futility"
    rounds = out["trials_per_scenario"]
    assert 5 <= rounds < out["rounds_planned"] == 10
    assert f"round {rounds}:" in proc.stderr and f"round {rounds + 1}:" not in proc.stderr
    assert any("stopped for futility" in note for note in out["notes"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--margin", "1.5"], "margin must be in [0, 1)"),
        (["--alpha", "0"], "alpha must be in (0, 1)"),
        (["--max-trials", "0"], "--max-trials must be 1 to"),
        (["--budget-sessions", "3"], "less than one round"),
        (
            ["--spending", "linear"],
            "--spending must be hwang-shih-decani, obrien-fleming or pocock",
        ),
        (["--futility", "1.5"], "the futility threshold is a chance in [0, 1)"),
    ],
)
def test_bad_levels_are_one_clear_line(tmp_path: Path, args: list[str], message: str) -> None:
    proc = _gate(
        tmp_path, "--suite", "demo", "--baseline", "oracle", "--candidate", "oracle", *args
    )
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_unknown_run_id_is_one_clear_line(tmp_path: Path) -> None:
    proc = _gate(
        tmp_path,
        "--baseline",
        "r20990101-000000-abcdef",
        "--candidate",
        "oracle",
        "--suite",
        "demo",
    )
    assert proc.returncode == 2
    assert "no run 'r20990101-000000-abcdef'" in proc.stderr and "Traceback" not in proc.stderr


def test_the_store_is_never_an_output(tmp_path: Path) -> None:
    proc = _gate(
        tmp_path,
        "--suite",
        "demo",
        "--baseline",
        "oracle",
        "--candidate",
        "oracle",
        "--junit",
        str(tmp_path / "g.duckdb"),
    )
    assert proc.returncode == 2 and "is the store" in proc.stderr
