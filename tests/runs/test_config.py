"""`RunConfig`: one validated description of a run, with one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.agents import OracleAgent
from sessionproof.errors import ConfigError
from sessionproof.runs import RunConfig
from sessionproof.runs._internal import default_concurrency, suite_reference


def test_concurrency_default_is_one_rule_for_specs_and_agents() -> None:
    assert RunConfig(model="local").workers == 1
    assert RunConfig(model="local:/models/x.gguf").workers == 1
    assert RunConfig(model="oracle").workers == 4
    assert RunConfig(model=OracleAgent()).workers == default_concurrency("oracle") == 4
    assert RunConfig(model="local", concurrency=3).workers == 3


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"trials": 0}, "invalid run configuration: trials: Input should be greater than"),
        ({"limit": "many"}, "invalid run configuration: limit: Input should be a valid integer"),
        ({"tool_mode": "sometimes"}, "--tool-mode must be native, prompted or auto"),
        ({"agent_timeout": float("nan")}, "--agent-timeout must be a positive, finite number"),
        ({"agent_timeout": 0}, "--agent-timeout must be a positive, finite number"),
        ({"arms": ["guard"], "guard": True}, "use either --arm or --faults/--drift/--guard"),
        ({"arms": ["guard", " guard "]}, "the same --arm was given twice"),
        ({"faults": "lots"}, "lots"),
        ({"colour": "blue"}, "colour: Extra inputs are not permitted"),
    ],
)
def test_bad_settings_are_one_config_error(settings: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        RunConfig(**settings)
    text = str(caught.value)
    assert message in text
    assert "\n" not in text


def test_arms_are_normalised_and_spelled_either_way() -> None:
    assert RunConfig().arm_names == ["baseline"]
    assert RunConfig(faults="3%", guard=True).arm_names == ["faults=3% guard"]
    assert RunConfig(arms=["baseline", "faults=3%   guard"]).arm_names == [
        "baseline",
        "faults=3% guard",
    ]


def test_suite_files_are_recorded_by_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mine.yaml").write_text("[]")
    monkeypatch.chdir(tmp_path)
    assert suite_reference("mine.yaml") == str(tmp_path / "mine.yaml")
    assert suite_reference("demo") == "demo"
    assert suite_reference("missing.yaml") == "missing.yaml"  # loading it will say why
