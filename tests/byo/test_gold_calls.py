"""No silent pass on a user's own tools: gold actions are judged on every tool source (a
Python toolkit, a real MCP server over stdio, a live OpenAPI service on loopback, fixtures);
a lazy agent fails every gold-action scenario, the oracle fails where its gold call errors,
and a scenario with nothing its domain can check is refused at load."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from sessionproof.agents import OracleAgent, make_agent
from sessionproof.cli._internal import app
from sessionproof.engine import execute_run
from sessionproof.engine._internal import RunPlan, SessionList
from sessionproof.errors import InputFileError
from sessionproof.records import Session
from sessionproof.suites import load_suite

from .test_schema_only import OPENAPI, TOOLS, _Pets

runner = CliRunner()

# Gold-only scenarios: a read, a write, and a gold call that fails (O1001 has shipped).
SHOP = """
  - id: read
    domain: {domain}
    user: {{turns: ["Where is order O1001?"]}}
    criteria:
      gold_actions: [{{tool: get_order, args: {{order_id: O1001}}}}]
  - id: write
    domain: {domain}
    user: {{turns: ["Cancel O1002, I ordered it by mistake."]}}
    criteria:
      gold_actions:
        - {{tool: cancel_order, args: {{order_id: O1002, reason: ordered_by_mistake}}}}
  - id: failing
    domain: {domain}
    user: {{turns: ["Cancel O1001."]}}
    criteria:
      gold_actions: [{{tool: cancel_order, args: {{order_id: O1001, reason: changed_mind}}}}]
"""


def _sessions(path: Path, model: str = "oracle") -> dict[str, Session]:
    suite = load_suite(str(path))
    agent = OracleAgent() if model == "oracle" else make_agent(f"python:tests.byo._agents:{model}")
    sink = SessionList()
    plan = RunPlan(run_id="r", arms=["baseline"], concurrency=2)
    asyncio.run(execute_run(suite, agent, plan, sink))  # type: ignore[arg-type]
    return {s.scenario_id: s for s in sink.sessions}


def _verdicts(path: Path, model: str) -> dict[str, bool | None]:
    return {sid: s.verdict for sid, s in _sessions(path, model).items()}


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    result = runner.invoke(app, ["init", str(project)])
    assert result.exit_code == 0, result.output
    return project


def _toolkit_suite(tmp_path: Path) -> Path:
    project = _project(tmp_path)
    (project / "scenarios.yaml").write_text("scenarios:" + SHOP.format(domain="shop"))
    return project


def _mcp_suite(tmp_path: Path) -> Path:
    # The scaffold's MCP variant (a real stdio server built on the official SDK).
    project = _project(tmp_path)
    path = project / "variants" / "mcp.yaml"
    head = path.read_text().split("scenarios:")[0]
    path.write_text(head + "scenarios:" + SHOP.format(domain="shop-mcp"))
    return path


@pytest.fixture
def pet_service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pets)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _gold_only(sid: str, domain: str, tool: str, args: str) -> str:
    return (
        f"  - id: {sid}\n    domain: {domain}\n    user: {{turns: [go]}}\n"
        f"    criteria:\n      gold_actions: [{{tool: {tool}, args: {args}}}]\n"
    )


def _openapi_suite(tmp_path: Path, url: str) -> Path:
    (tmp_path / "api.json").write_text(json.dumps(OPENAPI))
    path = tmp_path / "pets.yaml"
    path.write_text(
        f'domains:\n  pets: {{openapi: api.json, base_url: "{url}"}}\nscenarios:\n'
        + _gold_only("read", "pets", "get_pet", "{pet_id: 7}")
        + _gold_only("write", "pets", "add_pet", "{name: Tom}")
        + _gold_only("failing", "pets", "get_pet", "{pet_id: 99}")
    )
    return path


def _fixtures_suite(tmp_path: Path) -> Path:
    transfer = {
        "type": "function",
        "function": {
            "name": "transfer",
            "description": "Move money.",
            "parameters": {"type": "object", "properties": {"amount": {"type": "integer"}}},
        },
    }
    (tmp_path / "tools.json").write_text(json.dumps([*TOOLS, transfer]))
    path = tmp_path / "bank.yaml"
    path.write_text(
        "domains:\n  bank:\n    tools: tools.json\n    fixtures:\n"
        "      - {tool: get_weather, args: {city: Paris}, output: {temp: 21}}\n"
        "      - {tool: transfer, args: {amount: 5}, output: {ok: true}}\n"
        "scenarios:\n"
        + _gold_only("read", "bank", "get_weather", "{city: Paris}")
        + _gold_only("write", "bank", "transfer", "{amount: 5}")
        # No fixture answers a transfer of 7: the gold call fails with "no fixture".
        + _gold_only("failing", "bank", "transfer", "{amount: 7}")
    )
    return path


EXPECTED_ORACLE = {"read": True, "write": True, "failing": False}
EXPECTED_LAZY = {"read": False, "write": False, "failing": False}


def test_python_toolkit(tmp_path: Path) -> None:
    path = _toolkit_suite(tmp_path)
    assert _verdicts(path, "lazy") == EXPECTED_LAZY
    assert _verdicts(path, "oracle") == EXPECTED_ORACLE


@pytest.mark.slow
def test_mcp_server_over_stdio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _mcp_suite(tmp_path)
    monkeypatch.chdir(path.parent)
    lazy = _sessions(path, "lazy")
    assert {k: s.verdict for k, s in lazy.items()} == EXPECTED_LAZY
    (missing,) = lazy["write"].outcome.criteria[1].details  # type: ignore[union-attr]
    assert missing.where == "cancel_order[0]" and missing.missing
    assert lazy["write"].outcome.criteria[1].evidence.endswith("calls made: none")  # type: ignore[union-attr]
    oracle = _sessions(path, "oracle")
    assert {k: s.verdict for k, s in oracle.items()} == EXPECTED_ORACLE
    (failed,) = oracle["failing"].outcome.criteria[1].details  # type: ignore[union-attr]
    assert failed.expected == "a successful call"
    assert "only pending orders cancel" in str(failed.actual)
    evidence = oracle["failing"].outcome.criteria[1].evidence  # type: ignore[union-attr]
    assert evidence.endswith("calls made: cancel_order (failed)")


def test_openapi_service_on_loopback(tmp_path: Path, pet_service: str) -> None:
    path = _openapi_suite(tmp_path, pet_service)
    assert _verdicts(path, "lazy") == EXPECTED_LAZY
    assert _verdicts(path, "oracle") == EXPECTED_ORACLE


def test_fixtures(tmp_path: Path) -> None:
    path = _fixtures_suite(tmp_path)
    assert _verdicts(path, "lazy") == EXPECTED_LAZY
    oracle = _sessions(path, "oracle")
    assert {k: s.verdict for k, s in oracle.items()} == EXPECTED_ORACLE
    gold = next(c for c in oracle["failing"].outcome.criteria if c.name == "gold_calls")  # type: ignore[union-attr]
    assert "no fixture for transfer" in gold.evidence


def test_ordered_gold_calls_and_the_first_mismatching_argument(tmp_path: Path) -> None:
    path = _fixtures_suite(tmp_path)
    two = (
        "    criteria:\n      gold_actions:\n"
        "        - {tool: get_weather, args: {city: Paris}}\n"
        "        - {tool: transfer, args: {amount: 5}}\n"
    )
    body = path.read_text().split("scenarios:\n")[0] + "scenarios:\n"
    for sid, extra in (("any", ""), ("ordered", "      ordered: true\n")):
        body += f"  - id: {sid}\n    domain: bank\n    user: {{turns: [go]}}\n" + two + extra
    path.write_text(body)
    backwards = _sessions(path, "backwards")
    assert backwards["any"].verdict is True
    assert backwards["ordered"].verdict is False
    crit = backwards["ordered"].outcome.criteria[1]  # type: ignore[union-attr]
    assert crit.name == "gold_calls" and "in order" in crit.evidence
    assert crit.details[0].where == "transfer[1]" and crit.details[0].actual == "made earlier"
    off = _sessions(path, "off_by_one")["ordered"]
    assert off.verdict is False
    (wrong,) = off.outcome.criteria[1].details  # type: ignore[union-attr]
    assert (wrong.where, wrong.expected, wrong.actual) == ("transfer[1].amount", 5, 6)


def test_compare_args_limits_the_arguments_compared(tmp_path: Path) -> None:
    path = _fixtures_suite(tmp_path)
    text = path.read_text()
    path.write_text(
        text.replace(
            "output: {ok: true}}",
            "output: {ok: true}}\n      - {tool: transfer, args: {amount: 6}, output: {ok: true}}",
        )
        + "  - id: loose\n    domain: bank\n    user: {turns: [go]}\n    criteria:\n"
        "      gold_actions: [{tool: transfer, args: {amount: 5, memo: x}, compare_args: []}]\n"
    )
    off = _sessions(path, "off_by_one")
    assert off["loose"].verdict is True  # no argument compared: the tool is enough
    assert off["write"].verdict is False  # every argument compared: 6 is not 5


NOTHING = "scenarios:\n  - id: idle\n    domain: bank\n    user: {turns: [hi]}\n"


def test_a_scenario_with_nothing_to_check_is_refused_at_load(tmp_path: Path) -> None:
    path = _fixtures_suite(tmp_path)
    head = path.read_text().split("scenarios:\n")[0]
    path.write_text(head + NOTHING)
    with pytest.raises(InputFileError) as err:
        load_suite(str(path))
    message = str(err.value)
    assert "(idle)" in message and "nothing to judge" in message and "\n" not in message
    # Toolkit domain with the state comparison turned off and nothing else: refused too.
    project = _project(tmp_path)
    (project / "scenarios.yaml").write_text(
        NOTHING.replace("bank", "shop") + "    criteria: {compare_state: false}\n"
    )
    with pytest.raises(InputFileError, match=r"\(idle\).*compare_state is off"):
        load_suite(str(project))


def test_an_explicit_opt_out_is_stored_as_not_judged(tmp_path: Path) -> None:
    path = _fixtures_suite(tmp_path)
    head = path.read_text().split("scenarios:\n")[0]
    path.write_text(head + NOTHING + '    criteria: {not_judged: "smoke test, read by hand"}\n')
    (idle,) = _sessions(path, "lazy").values()
    empty = head + NOTHING + '    criteria: {not_judged: ""}\n'
    path.with_name("empty.yaml").write_text(empty)
    with pytest.raises(InputFileError, match=r"\(idle\).*criteria.not_judged.*at least 1"):
        load_suite(str(path.with_name("empty.yaml")))
    assert idle.verdict is None
    assert idle.outcome is not None and idle.outcome.not_judged == "smoke test, read by hand"
    store = tmp_path / "s.duckdb"
    args = ["run", "--suite", str(path), "--model", "python:tests.byo._agents:lazy"]
    result = runner.invoke(app, [*args, "--store", str(store), "--json", "--no-report"])
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(store), read_only=True) as conn:
        rows = conn.execute("SELECT success, outcome FROM sessions").fetchall()
    ((success, outcome),) = rows
    assert success is None  # stored as not judged, neither a pass nor a failure
    assert json.loads(outcome)["not_judged"] == "smoke test, read by hand"


def test_toolkit_with_the_state_comparison_off_requires_the_gold_calls(tmp_path: Path) -> None:
    project = _toolkit_suite(tmp_path)
    path = project / "scenarios.yaml"
    read = "      gold_actions: [{tool: get_order, args: {order_id: O1001}}]\n"
    path.write_text(path.read_text().replace(read, read + "      compare_state: false\n"))
    assert "compare_state: false" in path.read_text()
    lazy = _sessions(project, "lazy")["read"]
    assert lazy.verdict is False
    assert lazy.outcome is not None
    assert [c.name for c in lazy.outcome.criteria] == ["termination", "gold_calls"]
    assert _sessions(project, "oracle")["read"].verdict is True


def test_a_built_in_suite_scenario_with_nothing_to_check_is_not_judged() -> None:
    from sessionproof.records import Criteria, Scenario, UserSpec
    from sessionproof.suites import Suite

    idle = Scenario(
        id="idle",
        domain="demo",
        user=UserSpec(turns=["hi"]),
        criteria=Criteria(compare_state=False),
    )
    sink = SessionList()
    plan = RunPlan(run_id="r", arms=["baseline"])
    asyncio.run(execute_run(Suite("t", [idle]), OracleAgent(), plan, sink))
    (session,) = sink.sessions
    assert session.verdict is None  # was a pass: success with nothing checked
    assert session.outcome is not None
    assert session.outcome.not_judged is not None
    assert "can be checked on domain 'demo'" in session.outcome.not_judged


def test_calls_of_one_tool_are_paired_whatever_their_order(tmp_path: Path) -> None:
    # Gold: a transfer of any amount, and one of 6. The agent sends 6 first, then 5: taking
    # the 6 for the first gold action would leave the second unmet though both were made.
    path = _fixtures_suite(tmp_path)
    text = path.read_text().replace(
        "output: {ok: true}}",
        "output: {ok: true}}\n      - {tool: transfer, args: {amount: 6}, output: {ok: true}}",
        1,
    )
    path.write_text(
        text.split("scenarios:\n")[0]
        + "scenarios:\n  - id: pair\n    domain: bank\n    user: {turns: [go]}\n    criteria:\n"
        "      gold_actions:\n"
        "        - {tool: transfer, args: {amount: 5}, compare_args: []}\n"
        "        - {tool: transfer, args: {amount: 6}}\n"
    )
    (pair,) = _sessions(path, "backwards").values()
    assert [c.arguments for c in pair.tool_calls()] == [{"amount": 6}, {"amount": 5}]
    assert pair.verdict is True
