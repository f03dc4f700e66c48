"""`sessionproof run --model-faults` and the `model_faults=` arm against the loopback fake
OpenAI-compatible server: the flag, its table of both boundaries, and `show --metrics`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.records import EventKind
from sessionproof.store import Store

from .fakeprovider import FakeProvider
from .test_model_faults import _responder

runner = CliRunner()


@pytest.fixture
def provider() -> Any:
    server = FakeProvider(responder=_responder).start()
    yield server
    server.stop()


def _invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.slow
def test_the_flag_runs_an_arm_and_the_report_shows_both_boundaries(
    provider: FakeProvider, tmp_path: Path
) -> None:
    store = tmp_path / "s.duckdb"
    model = f"openai-compat:fake@{provider.url}"
    common = ["--model", model, "--limit", "2", "--store", str(store), "--no-report"]
    out = _invoke("run", "--suite", "tau2-airline", *common, "--model-faults", "bad_args:100%")
    assert "faults at the tool and model boundaries" in out
    assert "model faults surfaced" in out and "bad_args" in out
    with Store.open(store, read_only=True) as db:
        (listing,) = db.list_runs()
        assert listing.arms == ["model_faults=bad_args:100%"]
        run_id = listing.run_id
        sessions = db.load_sessions(run_id)
    served = [e for s in sessions for e in s.events if e.kind is EventKind.provider_fault]
    assert served and all(not e.payload.absorbed for e in served)

    n = len(served)
    # show prints the same table for the stored run; the HTML report has it as a section.
    shown = _invoke("show", run_id, "--store", str(store))
    assert "faults at the tool and model boundaries" in shown
    assert f"{n} (bad_args {n})" in shown
    page = tmp_path / "r.html"
    _invoke("report", run_id, "--store", str(store), "-o", str(page))
    html = page.read_text()
    assert '<a href="#boundaries">fault boundaries</a>' in html
    section = html.split('<section id="boundaries"', 1)[1].split("</section>", 1)[0]
    assert "model faults surfaced" in section and f"{n} (bad_args {n})" in section
    # Each fault is a row of its session's drill-down, with its fate.
    assert html.count("(surfaced)") == n
    assert "arguments of get_user_details (surfaced)" in html


def test_the_flag_and_arm_are_checked_up_front(tmp_path: Path) -> None:
    store = str(tmp_path / "s.duckdb")
    arms = ["--arm", "baseline", "--model-faults", "429:1%"]
    both = runner.invoke(app, ["run", "--model", "oracle", "--store", store, *arms])
    # The console entry point turns the ConfigError into its one line (tests/cli does).
    assert both.exit_code != 0 and "not both" in f"{both.output}{both.exception}"
    bad = runner.invoke(
        app, ["run", "--model", "oracle", "--store", store, "--model-faults", "503:1%"]
    )
    assert bad.exit_code != 0 and "unknown kind '503'" in f"{bad.output}{bad.exception}"
