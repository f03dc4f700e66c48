"""A real Arize Phoenix server on loopback: a run exported to it (and one sent live) with
`--otel-compat openinference` reads back through Phoenix's own REST API with its sessions,
tool spans and errors.

Phoenix (PyPI `arize-phoenix`, ~850 MB) lives in its own virtualenv, `.venv-phoenix`, which
scripts/test.sh makes: it pins versions of our own dependencies that the project's cannot take.
SESSIONPROOF_PHOENIX_PYTHON names another interpreter that has it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sessionproof.records import Session, ToolResultEvent
from sessionproof.runs import RunConfig, export_traces, run
from sessionproof.store import Store
from sessionproof.telemetry._spans import session_span_ids
from sessionproof.telemetry._verdict_notes import verdict_notes

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PYTHON = Path(os.environ.get("SESSIONPROOF_PHOENIX_PYTHON") or ROOT / ".venv-phoenix/bin/python")
STARTUP_S = 600.0
"""How long Phoenix may take to start (its migrations take minutes on a loaded machine)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _refused(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


class Phoenix:
    """A running Phoenix: its base URL, and what reading its REST API needs."""

    def __init__(self, url: str, grpc_port: int) -> None:
        self.url = url
        self.grpc_port = grpc_port

    def get(self, path: str, **params: Any) -> Any:
        """GET `path` of the REST API as JSON."""
        response = httpx.get(f"{self.url}/v1/{path}", params=params, timeout=30)
        response.raise_for_status()
        return response.json()

    def spans(self, project: str) -> list[dict[str, Any]]:
        """Every span of `project`."""
        out: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = self.get(
                f"projects/{project}/spans", limit=1000, **({"cursor": cursor} if cursor else {})
            )
            out.extend(page["data"])
            cursor = page.get("next_cursor")
            if not cursor:
                return out

    def sessions(self, project: str) -> list[dict[str, Any]]:
        """Every session of `project` (404 until its first span arrives: none)."""
        try:
            return list(self.get(f"projects/{project}/sessions", limit=1000)["data"])
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code == 404:
                return []
            raise

    def wait_for(self, project: str, sessions: int, spans: int) -> None:
        """Wait until Phoenix has stored `sessions` sessions and `spans` spans in `project`
        (it inserts in the background, in batches)."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if len(self.sessions(project)) >= sessions and len(self.spans(project)) >= spans:
                return
            time.sleep(0.5)
        raise AssertionError(f"Phoenix did not store {sessions} sessions / {spans} spans")


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    if (
        not PYTHON.exists()
        or subprocess.run(
            [str(PYTHON), "-c", "import phoenix.server.main"], capture_output=True, check=False
        ).returncode
    ):
        pytest.skip(
            f"ARIZE PHOENIX IS NOT INSTALLED ({PYTHON}): run scripts/test.sh, which installs it "
            "into .venv-phoenix, or set SESSIONPROOF_PHOENIX_PYTHON"
        )
    work = tmp_path_factory.mktemp("phoenix")
    port, grpc_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PHOENIX_", "OTEL_"))} | {
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_WORKING_DIR": str(work),
        # No product analytics to Arize, no fonts from Google: loopback only.
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
    }
    log = (work / "phoenix.log").open("wb")
    server = subprocess.Popen(
        [str(PYTHON), str(Path(__file__).with_name("phoenix_serve.py"))],
        env=env,
        cwd=work,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if server.poll() is not None:
                raise AssertionError(
                    f"phoenix exited: {(work / 'phoenix.log').read_text()[-2000:]}"
                )
            try:
                if httpx.get(f"{url}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("phoenix did not start")
            time.sleep(1)
        yield Phoenix(url, grpc_port)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _faulty_run(store: Path) -> tuple[str, list[Session]]:
    config = RunConfig(
        suite="demo",
        model="oracle",
        faults="rate_limited:30%,not_found:10%",
        guard=True,
        limit=4,
        store=store,
    )
    report = run(config)
    with Store.open_for_reading(store) as db:
        return report.run_id, db.load_sessions(report.run_id)


def _check(phoenix: Phoenix, project: str, run_id: str, sessions: list[Session]) -> None:
    results = [e.payload for s in sessions for e in s.events_of(ToolResultEvent)]
    failed = Counter(r.error_class.value for r in results if r.error_class is not None)
    assert failed, "the fault plan made no failed tool call"
    phoenix.wait_for(project, len(sessions), len(results))
    found = {s["session_id"] for s in phoenix.sessions(project)}
    assert found == {f"{run_id}:{s.session_id}" for s in sessions}
    spans = phoenix.spans(project)
    kinds = Counter(s["span_kind"] for s in spans)
    assert kinds["AGENT"] == len(sessions)
    assert kinds["TOOL"] == len(results)
    tools = [s for s in spans if s["span_kind"] == "TOOL"]
    assert Counter(s["attributes"]["tool.name"] for s in tools) == Counter(r.name for r in results)
    errors = [s for s in tools if s["status_code"] == "ERROR"]
    assert Counter(s["attributes"]["error.type"] for s in errors) == failed
    assert all(s["status_code"] != "ERROR" for s in tools if "error.type" not in s["attributes"])
    # The verdict: the GenAI evaluation event on each session's root, and the metadata
    # Phoenix shows (it flattens the JSON into metadata.*).
    by_id = {s.session_id: s for s in sessions}
    for root in (s for s in spans if s["span_kind"] == "AGENT"):
        session = by_id[root["attributes"]["gen_ai.conversation.id"]]
        verdict = "pass" if session.success else "fail"
        labels = {
            e["attributes"].get("gen_ai.evaluation.score.label")
            for e in root["events"]
            if e["name"] == "gen_ai.evaluation.result"
            and e["attributes"].get("gen_ai.evaluation.name") == "session_success"
        }
        assert labels == {verdict}
        assert root["attributes"]["metadata.verdict"] == verdict


def test_an_exported_run_reads_back_from_phoenix(
    phoenix: Phoenix, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id, sessions = _faulty_run(tmp_path / "s.duckdb")
    # Phoenix files spans under the resource's project name.
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "openinference.project.name=exported")
    export_traces(run_id, store=tmp_path / "s.duckdb", endpoint=phoenix.url, compat="openinference")
    _check(phoenix, "exported", run_id, sessions)
    assert _refused(phoenix.grpc_port)  # nothing but the loopback HTTP server listens


def test_a_live_run_reads_back_from_phoenix(phoenix: Phoenix, tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    cli = Path(sys.executable).with_name("sessionproof")
    env = dict(os.environ, OTEL_RESOURCE_ATTRIBUTES="openinference.project.name=live")
    done = subprocess.run(
        [
            str(cli),
            "run",
            "--suite",
            "demo",
            "--model",
            "oracle",
            "--faults",
            "rate_limited:30%,not_found:10%",
            "--guard",
            "--limit",
            "4",
            "--json",
            "--no-report",
            "--store",
            str(store),
            "--otlp-endpoint",
            phoenix.url,
            "--otel-compat",
            "openinference",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(run_id)
    _check(phoenix, "live", run_id, sessions)
    _check_verdicts(phoenix, "live", sessions)  # each batch's verdicts follow its spans


VERDICT_AGENT = "python:tests.telemetry._verdict_agent:respond"
FAILED_ROOTS = """query ($id: ID!, $filter: String!) {
  node(id: $id) { ... on Project {
    spans(first: 1000, filterCondition: $filter) { edges { node { spanId } } } } }
}"""


def _annotations(phoenix: Phoenix, project: str, span_ids: list[str]) -> list[dict[str, Any]]:
    try:
        data = phoenix.get(f"projects/{project}/span_annotations", span_ids=span_ids, limit=10000)[
            "data"
        ]
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code == 404:  # the project is not there yet
            return []
        raise
    return list(data)


def _filtered(phoenix: Phoenix, project: str, condition: str) -> set[str]:
    """Span ids of `project` that Phoenix's own span filter (its UI's) selects."""
    project_id = phoenix.get(f"projects/{project}")["data"]["id"]
    response = httpx.post(
        f"{phoenix.url}/graphql",
        json={"query": FAILED_ROOTS, "variables": {"id": project_id, "filter": condition}},
        timeout=30,
    )
    response.raise_for_status()
    body = response.json()
    assert not body.get("errors"), body["errors"]
    return {e["node"]["spanId"] for e in body["data"]["node"]["spans"]["edges"]}


def _check_verdicts(phoenix: Phoenix, project: str, sessions: list[Session]) -> None:
    """Each session's verdict and criteria are annotations on its root span in Phoenix; an
    unjudged one has a `not judged` verdict with its reason and nothing else."""
    roots = {session_span_ids(s)[1]: s for s in sessions}
    expected = sum(len(verdict_notes(s)) for s in sessions)
    deadline = time.monotonic() + 120
    while len(found := _annotations(phoenix, project, list(roots))) < expected:
        assert time.monotonic() < deadline, f"Phoenix has {len(found)} of {expected} annotations"
        time.sleep(0.5)
    assert len(found) == expected
    verdicts = {a["span_id"]: a for a in found if a["name"] == "verdict"}
    assert set(verdicts) == set(roots)
    for span_id, annotation in verdicts.items():
        session, result = roots[span_id], annotation["result"]
        assert annotation["annotator_kind"] == "CODE"
        if session.verdict is None:  # not judged: no pass or fail, and why
            assert result["label"] == "not judged" and result["score"] is None
            assert result["explanation"]
            assert not [a for a in found if a["span_id"] == span_id and a["name"] != "verdict"]
        else:
            assert result["label"] == ("pass" if session.verdict else "fail")
            assert result["score"] == float(session.verdict)
            assert session.outcome is not None
            criteria = {a["name"]: a["result"]["label"] for a in found if a["span_id"] == span_id}
            for c in session.outcome.criteria:
                assert criteria[f"criterion.{c.name}"] == ("pass" if c.passed else "fail")


def test_verdicts_become_phoenix_annotations(
    phoenix: Phoenix, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.duckdb"
    report = run(RunConfig(suite="demo", model=VERDICT_AGENT, limit=9, store=store))
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(report.run_id)
    assert {s.verdict for s in sessions} == {True, False, None}
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "openinference.project.name=verdicts")
    export_traces(report.run_id, store=store, endpoint=phoenix.url, compat="openinference")
    _check_verdicts(phoenix, "verdicts", sessions)
    roots = [session_span_ids(s)[1] for s in sessions]
    found = _annotations(phoenix, "verdicts", roots)
    unjudged = [a for a in found if a["result"]["label"] == "not judged"]
    assert unjudged and all("the provider is down" in a["result"]["explanation"] for a in unjudged)
    # Failed sessions can be filtered in Phoenix, by its own span filter.
    failed = {session_span_ids(s)[1] for s in sessions if s.verdict is False}
    assert _filtered(phoenix, "verdicts", "annotations['verdict'].label == 'fail'") == failed
