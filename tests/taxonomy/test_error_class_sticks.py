"""A `ToolError` subclass keeps the error class it declares (issue 34, item 5): the pattern
the `init` scaffold teaches reaches a session's tool results, an explicit constructor
argument still wins, and a class name outside the taxonomy is refused where it is written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.errors import _ERROR_CLASS_NAMES, ConfigError, ToolError
from sessionproof.records import ErrorClass, EventKind
from sessionproof.store import Store

runner = CliRunner()

AGENT = '''
from sessionproof.agents import AgentRequest, AgentResponse
from sessionproof.records import Message, ToolCall


def respond(request: AgentRequest) -> AgentResponse:
    """Looks up an order that does not exist, once, then stops."""
    if any(m.role == "tool" for m in request.messages):
        return AgentResponse(message=Message.assistant("I could not find it."))
    call = ToolCall(id="c1", name="get_order", arguments={"order_id": "O9999"})
    return AgentResponse(message=Message.assistant(None, [call]))
'''


def test_the_error_class_list_is_the_taxonomy() -> None:
    assert set(_ERROR_CLASS_NAMES) == {c.value for c in ErrorClass}


def test_a_class_attribute_is_honoured_and_an_argument_wins() -> None:
    class Gone(ToolError):
        error_class = "not_found"

    assert Gone("x").error_class == "not_found"
    assert Gone("x", "timeout").error_class == "timeout"
    assert ToolError("x").error_class == "validation_error"

    class StillGone(Gone):
        """Inherits its parent's class."""

    assert StillGone("y").error_class == "not_found"


def test_an_enum_member_is_accepted() -> None:
    class Slow(ToolError):
        error_class = ErrorClass.timeout

    assert Slow("x").error_class == "timeout"


def test_an_unknown_class_name_is_refused_at_definition() -> None:
    with pytest.raises(ConfigError, match=r"Typo\.error_class is 'notfound', not an error class"):

        class Typo(ToolError):
            error_class = "notfound"


def test_the_scaffold_not_found_reaches_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    assert runner.invoke(app, ["init", str(project)]).exit_code == 0
    (project / "probe_agent.py").write_text(AGENT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.delitem(sys.modules, "shop_tools", raising=False)
    store = tmp_path / "s.duckdb"
    args = ["run", "--suite", str(project), "--model", "python:probe_agent:respond"]
    result = runner.invoke(app, [*args, "--store", str(store), "--json"])
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["run_id"]
    with Store.open(store, read_only=True) as opened:
        sessions = opened.load_sessions(run_id)
    assert sessions
    for session in sessions:
        results = [e.payload for e in session.events if e.kind == EventKind.tool_result]
        assert [r.error_class for r in results] == [ErrorClass.not_found]
