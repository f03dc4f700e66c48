"""OTel export carries each model call's tokens (`gen_ai.usage.*`), who made it and, where
priced, its USD (`sessionproof.cost.usd`); each session's root span its cost in all and by
role. Sent to a real OTLP/HTTP receiver on loopback, then imported back."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sessionproof.runs import RunReport, export_traces, import_traces
from sessionproof.scoring._internal import price_table
from sessionproof.store import Store
from sessionproof.telemetry import LiveExport

from ..telemetry.test_otlp_receiver import _attrs, _Receiver, _spans
from .roles_fake import USAGE

Received = list[tuple[str, dict[str, str], bytes]]


@pytest.fixture
def collector() -> Iterator[tuple[str, Received]]:
    """A real OTLP/HTTP receiver on loopback (the telemetry tests' handler)."""
    received: Received = []
    handler = type("Handler", (_Receiver,), {"received": received})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


PRICED = ["agent-m=2.5/10", "openai-compat:user-m=0.5/1"]
"""Prices of the agent and the user; the judge's model has none."""


def _usd(model: str, rates: tuple[float, float]) -> float:
    u = USAGE[model]
    return (u["prompt_tokens"] * rates[0] + u["completion_tokens"] * rates[1]) / 1e6


@pytest.mark.slow
def test_spans_carry_tokens_role_and_cost_where_priced(
    judged_run: tuple[Path, RunReport],
    collector: tuple[str, Received],
) -> None:
    store, report = judged_run
    url, received = collector
    prices = price_table(flags=PRICED)
    export_traces(report.run_id, store=store, endpoint=url, prices=prices)
    spans = _spans(received)
    chats = [_attrs(s.attributes) for s in spans if s.name.startswith("chat ")]
    roles = {"agent-m": "agent", "user-m": "user", "judge-m": "judge"}
    assert {a["gen_ai.request.model"] for a in chats} == set(roles)
    for a in chats:
        model = a["gen_ai.request.model"]
        assert a["sessionproof.model_call.role"] == roles[model]
        assert a["gen_ai.usage.input_tokens"] == USAGE[model]["prompt_tokens"]
        assert a["gen_ai.usage.output_tokens"] == USAGE[model]["completion_tokens"]
    agent_usd, user_usd = _usd("agent-m", (2.5, 10)), _usd("user-m", (0.5, 1))
    for a in chats:
        if a["sessionproof.model_call.role"] == "agent":
            assert a["sessionproof.cost.usd"] == pytest.approx(agent_usd)
        elif a["sessionproof.model_call.role"] == "user":
            assert a["sessionproof.cost.usd"] == pytest.approx(user_usd)
        else:
            assert "sessionproof.cost.usd" not in a  # no price: tokens only, no guess
    roots = [_attrs(s.attributes) for s in spans if s.name.startswith("invoke_agent ")]
    assert len(roots) == 3
    by_id = {r["gen_ai.conversation.id"]: r for r in roots}
    for session in report.sessions:
        root = by_id[session.session_id]
        calls = session.model_calls()
        n_agent = sum(c.role == "agent" for c in calls)
        n_user = sum(c.role == "user" for c in calls)
        judged = any(c.role == "judge" for c in calls)
        # The root's gen_ai.usage is the agent's; its cost is by role, in all when priced.
        assert root["gen_ai.usage.input_tokens"] == 100 * n_agent
        assert root["sessionproof.cost.usd.agent"] == pytest.approx(n_agent * agent_usd)
        assert root["sessionproof.cost.usd.user"] == pytest.approx(n_user * user_usd)
        assert "sessionproof.cost.usd.judge" not in root
        if judged:
            assert "sessionproof.cost.usd" not in root
        else:
            total = n_agent * agent_usd + n_user * user_usd
            assert root["sessionproof.cost.usd"] == pytest.approx(total)
    assert any(r for r in roots if "sessionproof.cost.usd" not in r)  # the judged one


@pytest.mark.slow
def test_roles_survive_an_export_and_import(
    judged_run: tuple[Path, RunReport], tmp_path: Path
) -> None:
    store, report = judged_run
    trace = tmp_path / "run.otlp.json"
    export_traces(report.run_id, store=store, output=trace, fmt="otlp-json")
    back = tmp_path / "back.duckdb"
    imported = import_traces(trace, fmt="otlp-json", store=back)
    with Store.open(back, read_only=True) as db:
        again = {s.session_id: s for s in db.load_sessions(imported.run_id)}

    def roles(calls: Any) -> list[tuple[str, str]]:
        return [(c.model, c.role) for c in calls]

    for session in report.sessions:
        twin = again[session.session_id]
        assert roles(twin.model_calls()) == roles(session.model_calls())
        assert twin.usage == session.usage  # the agent's alone, on both sides


@pytest.mark.slow
def test_a_live_export_prices_spans_as_the_run_was_told(
    judged_run: tuple[Path, RunReport], collector: tuple[str, Received]
) -> None:
    store, report = judged_run
    url, received = collector
    with Store.open_for_reading(store) as db:
        sessions = db.load_sessions(report.run_id)
    with LiveExport(None, url, suite="tau2-retail", prices=price_table(flags=PRICED)) as live:
        for session in sessions:
            live.advance(session)
    chats = [_attrs(s.attributes) for s in _spans(received) if s.name.startswith("chat ")]
    priced = {a["sessionproof.model_call.role"]: a.get("sessionproof.cost.usd") for a in chats}
    assert priced["agent"] == pytest.approx(_usd("agent-m", (2.5, 10)))
    assert priced["user"] == pytest.approx(_usd("user-m", (0.5, 1)))
    assert priced["judge"] is None
    # Without prices the worker uses the shipped table: these test models are not in it.
    received.clear()
    with LiveExport(None, url, suite="tau2-retail") as live:
        live.advance(sessions[0])
    chats = [_attrs(s.attributes) for s in _spans(received) if s.name.startswith("chat ")]
    assert chats and all("sessionproof.cost.usd" not in a for a in chats)
