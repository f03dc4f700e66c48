"""The drill-down in a real browser: the session a cell names is the one that opens, whatever
run it belongs to; `#RUN/SESSION` opens it; a failed criterion shows why, as text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

import sessionproof
from sessionproof.cli._internal import app
from sessionproof.records import CriterionResult, Session, ToolCall, ToolCallEvent
from sessionproof.records._internal import Mismatch
from sessionproof.runs import report
from sessionproof.store import Store

from ._hostile import EVIL
from .test_html_browser import ARGS, CHROMIUM

pytestmark = [
    pytest.mark.slow,  # a headless browser per test
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium (scripts/test.sh installs it)"
    ),
]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two single-arm runs of one suite (their session ids are the same): the first without
    faults, the second with a fault on every call."""
    store = tmp_path_factory.mktemp("drill") / "s.duckdb"
    clean = sessionproof.run_suite("demo", "oracle", limit=2, trials=1, store=store)
    faulty = sessionproof.run_suite(
        "demo", "oracle", limit=2, trials=1, store=store, arms=["faults=100%"]
    )
    assert {s.session_id for s in clean.sessions} == {s.session_id for s in faulty.sessions}
    return store, clean.run_id, faulty.run_id


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def _page(browser: Any, problems: list[str]) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return page


def _fault_rows(page: Any) -> int:
    return int(page.locator("#drill .ev .k.fault").count())


def test_a_cell_of_each_run_opens_that_runs_session(
    two_runs: tuple[Path, str, str], browser: Any
) -> None:
    store, clean, faulty = two_runs
    path = report([clean, faulty], store.parent / "two.html", store)
    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(path.as_uri())
    cells = page.locator("#grid a.c")
    assert cells.count() == 4
    first, last = cells.first, cells.last
    # The first cell is the clean run's, the last the faulty run's: each opens its own.
    first.click()
    assert clean in page.locator("#drill-title").inner_text()
    assert _fault_rows(page) == 0
    last.click()
    assert faulty in page.locator("#drill-title").inner_text()
    assert _fault_rows(page) > 0
    first.click()
    assert _fault_rows(page) == 0 and faulty not in page.locator("#drill-title").inner_text()
    # Each cell links to its own session: run id and session id.
    assert first.get_attribute("href").startswith(f"#{clean}/")
    assert last.get_attribute("href").startswith(f"#{faulty}/")
    assert problems == []


def test_a_deep_link_opens_that_runs_session(two_runs: tuple[Path, str, str], browser: Any) -> None:
    store, clean, faulty = two_runs
    path = report([clean, faulty], store.parent / "deep.html", store)
    with Store.open_for_reading(store) as db:
        sid = db.load_sessions(clean)[0].session_id
    problems: list[str] = []
    for run_id, faults in ((clean, False), (faulty, True)):
        page = _page(browser, problems)
        page.goto(path.as_uri() + "#" + quote(f"{run_id}/{sid}"))
        title = page.locator("#drill-title")
        assert title.is_visible()
        assert run_id in title.inner_text() and sid.split(".")[0] in title.inner_text()
        assert (_fault_rows(page) > 0) is faults
        page.close()
    assert problems == []


def _with_evidence(session: Session, run_id: str) -> Session:
    """The session as a failed run of `run_id`: its db criterion failed with a field diff,
    and a missing phrase whose text is hostile markup."""
    assert session.outcome is not None
    criteria = [
        CriterionResult(
            name="db",
            passed=False,
            evidence="final state differs from gold",
            details=[
                Mismatch(where="orders.1042.status", expected="cancelled", actual="pending"),
                Mismatch(where="orders.1042.cancel_reason", expected="ordered_by_mistake"),
            ],
        ),
        CriterionResult(
            name="communicate",
            passed=False,
            evidence="1 fact not stated",
            details=[Mismatch(where="phrase", expected=EVIL, missing=True)],
        ),
        CriterionResult(name="nl_assertion", passed=None, evidence="no judge model given"),
    ]
    outcome = session.outcome.model_copy(update={"success": False, "criteria": criteria})
    events = [e.model_copy(update={"run_id": run_id}) for e in session.events]
    # The agent's first call gets a wrong value for its first argument.
    first = next(i for i, e in enumerate(events) if isinstance(e, ToolCallEvent))
    call = events[first].payload
    assert isinstance(call, ToolCall) and call.arguments
    name = next(iter(call.arguments))
    wrong = call.model_copy(update={"arguments": {**call.arguments, name: "CHANGED"}})
    events[first] = events[first].model_copy(update={"payload": wrong})
    return session.model_copy(update={"run_id": run_id, "outcome": outcome, "events": events})


def test_the_drill_down_shows_each_criterion_with_its_evidence(
    two_runs: tuple[Path, str, str], browser: Any
) -> None:
    store, clean, _ = two_runs
    with Store.open(store) as db:
        manifest = db.get_run(clean)
        run_id = "r-evidence"
        db.create_run(manifest.model_copy(update={"run_id": run_id}))
        sessions = [_with_evidence(s, run_id) for s in db.load_sessions(clean)]
        db.write_sessions(sessions)
    path = report([run_id], store.parent / "evidence.html", store)
    problems: list[str] = []
    page = _page(browser, problems)
    page.on("dialog", lambda d: (problems.append(d.message), d.dismiss()))
    page.goto(path.as_uri() + "#" + quote(f"{run_id}/{sessions[0].session_id}"))
    crit = page.locator("#drill table.crit")
    assert crit.is_visible()
    text = crit.inner_text()
    for part in ("db", "fail", "final state differs from gold", "not evaluated"):
        assert part in text, part
    # The field diff: where, expected, actual; a path with nothing there says "missing".
    rows = [r.inner_text().split("\t") for r in page.locator("#drill table.mm tr").all()]
    assert ["orders.1042.status", "cancelled", "pending"] in rows
    assert ["orders.1042.cancel_reason", "ordered_by_mistake", "–"] in rows
    assert ["phrase", EVIL, "missing"] in rows  # markup arrives as text
    assert page.locator("#drill img, #drill script").count() == 0
    # The scenario's gold calls beside the calls the session made.
    calls = page.locator("#drill table.calls").inner_text()
    assert "expected" in calls and "actual" in calls
    first = sessions[0].tool_calls()[0]
    assert first.arguments is not None
    name = next(iter(first.arguments))
    rows = [r.inner_text().split("\t") for r in page.locator("#drill table.calls tr").all()]
    wrong = [r for r in rows if first.name in r[1] and "CHANGED" in r[2]]
    assert len(wrong) == 1  # the gold call beside the call that differs from it
    assert wrong[0][3].startswith(f"{name}: expected ") and wrong[0][3].endswith("got CHANGED")
    assert problems == []


def test_a_session_id_that_needs_escaping_opens_by_click_and_by_link(
    tmp_path: Path, browser: Any
) -> None:
    weird = "a b#c<d>/é%20?x"
    log = tmp_path / "chat.jsonl"
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]
    log.write_text(json.dumps({"id": weird, "messages": messages}) + "\n", encoding="utf-8")
    store = tmp_path / "w.duckdb"
    out = CliRunner().invoke(
        app,
        ["score", str(log), "--format", "openai", "--json", "--no-report", "--store", str(store)],
    )
    assert out.exit_code in (0, 1), out.output
    run_id = json.loads(out.stdout)["run_id"]
    path = report([run_id], tmp_path / "w.html", store)
    problems: list[str] = []
    page = _page(browser, problems)
    page.goto(path.as_uri())
    page.locator("#grid a.c").first.click()
    assert weird in page.locator("#drill-title").inner_text()
    linked = _page(browser, problems)
    linked.goto(path.as_uri() + "#" + quote(f"{run_id}/{weird}", safe="/"))
    assert weird in linked.locator("#drill-title").inner_text()
    assert problems == []
