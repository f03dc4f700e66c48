"""Call-matching rule sets as plug-ins: entry points, run-time functions, no benchmark named."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessionproof._plugins import forget_entry_points
from sessionproof.domains import get_domain
from sessionproof.errors import ConfigError
from sessionproof.records import Scenario, ToolCall
from sessionproof.scoring import _calls, register_call_rules
from sessionproof.scoring._internal import call_rule_names, match_gold

CALLS = Path(_calls.__file__)


def _scenario(rules: str) -> Scenario:
    return Scenario.model_validate(
        {
            "id": "who",
            "domain": "demo",
            "user": {"turns": ["I'm ana"]},
            "criteria": {
                "call_rules": rules,
                "gold_actions": [{"tool": "find_customer_by_email", "args": {"email": "a@x.org"}}],
            },
        }
    )


def test_generic_scoring_names_no_benchmark_in_code() -> None:
    texts = [
        node.value.lower()
        for node in ast.walk(ast.parse(CALLS.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    assert texts  # definitions may cite BFCL as an example; no literal is its name or module
    assert not [t for t in texts if t.startswith("bfcl") or "sessionproof.suites" in t]
    assert not [t for t in texts if t.startswith(("..suites", "suites."))]


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Path]:
    """A distribution declaring a `sessionproof.call_rules` entry point, as pip leaves one."""
    info = tmp_path / "acme_rules-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-rules\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[sessionproof.call_rules]\nacme-any-email = acme_rules:any_email\n"
    )
    (tmp_path / "acme_rules.py").write_text(
        "def any_email(scenario):\n"
        "    return [(a.tool, lambda args: '@' in str(args.get('email', '')))\n"
        "            for a in scenario.criteria.gold_actions]\n"
    )
    sys.path.insert(0, str(tmp_path))
    forget_entry_points()
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("acme_rules", None)
    _calls.CALL_RULES._objects.pop("acme-any-email", None)
    forget_entry_points()


def test_an_entry_point_rule_set_judges_the_scenarios_that_name_it(installed: Path) -> None:
    assert "acme-any-email" in call_rule_names()
    assert "acme_rules" not in sys.modules  # listing the names imports no rule set
    tools = get_domain("demo").tools()
    calls = [
        ToolCall(id="c1", name="find_customer_by_email", arguments={"email": "no-at-sign"}),
        ToolCall(id="c2", name="find_customer_by_email", arguments={"email": "bo@y.org"}),
    ]
    assert match_gold(calls, _scenario("acme-any-email"), tools) == [-1, 0]
    assert [e.origin for e in _calls.CALL_RULES.entries() if e.name == "acme-any-email"] == [
        "acme-rules"
    ]


def test_register_call_rules_takes_a_function_too() -> None:
    def exact(scenario: Scenario) -> list[tuple[str, Any]]:
        return [(a.tool, lambda args, a=a: args == a.args) for a in scenario.criteria.gold_actions]

    register_call_rules("test-exact", exact)
    try:
        tools = get_domain("demo").tools()
        call = ToolCall(id="c", name="find_customer_by_email", arguments={"email": "a@x.org"})
        assert match_gold([call], _scenario("test-exact"), tools) == [0]
    finally:
        _calls.CALL_RULES.remove("test-exact")
    with pytest.raises(ConfigError, match="names call rules 'test-exact'; known: "):
        match_gold([call], _scenario("test-exact"), tools)


def test_something_not_a_rule_set_is_said() -> None:
    register_call_rules("test-not-rules", "sessionproof.scoring._calls:CALL_DEFINITIONS")
    try:
        tools = get_domain("demo").tools()
        call = ToolCall(id="c", name="find_customer_by_email", arguments={"email": "a@x.org"})
        with pytest.raises(ConfigError, match="'test-not-rules' are a dict, not a function"):
            match_gold([call], _scenario("test-not-rules"), tools)
    finally:
        _calls.CALL_RULES.remove("test-not-rules")
