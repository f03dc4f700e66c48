"""Tool-source kinds as plug-ins: a package adds a `domains:` key (here `canned:`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import sessionproof
from sessionproof._plugins import forget_entry_points
from sessionproof.errors import InputFileError
from sessionproof.records import ToolCallEvent
from sessionproof.suites import _domains, load_suite

RECIPES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recipes"

SCENARIOS = """\
scenarios:
  - id: forecast
    domain: weather
    user:
      turns: ["What's the weather in Lisbon?"]
    criteria:
      gold_actions:
        - {tool: get_forecast, args: {city: Lisbon}}
"""


def _project(where: Path, entry: str) -> Path:
    where.mkdir()
    (where / "domains.yaml").write_text(f"domains:\n  weather: {entry}\n")
    (where / "scenarios.yaml").write_text(SCENARIOS)
    return where


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Path]:
    """The tool-source recipe, declared by an installed distribution's entry point."""
    info = tmp_path / "site" / "canned_sources-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: canned-sources\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[sessionproof.tool_sources]\ncanned = canned_tool_source:canned_source\n"
    )
    sys.path[:0] = [str(tmp_path / "site"), str(RECIPES)]
    forget_entry_points()
    yield tmp_path
    for entry in (str(tmp_path / "site"), str(RECIPES)):
        sys.path.remove(entry)
    sys.modules.pop("canned_tool_source", None)
    _domains.TOOL_SOURCES._objects.pop("canned", None)
    forget_entry_points()


def test_a_domains_file_uses_a_kind_an_installed_package_declares(installed: Path) -> None:
    project = _project(installed / "proj", '{canned: {get_forecast: {sky: "sunny", c: 21}}}')
    result = sessionproof.run_suite(str(project), "oracle")
    assert result.summary.session_accuracy == 1.0
    (session,) = result.sessions
    calls = [e.payload.name for e in session.events_of(ToolCallEvent)]
    assert calls == ["get_forecast"]
    assert [json.loads(r.output) for r in session.tool_results()] == [{"sky": "sunny", "c": 21}]


def test_a_plugin_kind_refuses_a_bad_entry_with_file_and_domain(installed: Path) -> None:
    project = _project(installed / "bad", "{canned: {get_forecast: 1}, state: s.json}")
    with pytest.raises(InputFileError, match=r"domains\.weather.*`canned` takes no state"):
        load_suite(str(project))


def test_two_kinds_in_one_entry_are_refused(installed: Path) -> None:
    project = _project(installed / "two", "{canned: {t: 1}, python: m:K}")
    with pytest.raises(InputFileError, match=r"give exactly one of .*`canned`.*got canned, python"):
        load_suite(str(project))


def test_without_the_package_the_kind_is_unknown(tmp_path: Path) -> None:
    project = _project(tmp_path / "proj", "{canned: {get_forecast: 1}}")
    with pytest.raises(InputFileError, match="canned"):
        load_suite(str(project))


def test_register_tool_source_adds_a_kind_at_run_time(tmp_path: Path) -> None:
    sys.path.insert(0, str(RECIPES))
    try:
        _domains.register_tool_source("canned", "canned_tool_source:canned_source")
        project = _project(tmp_path / "proj", "{canned: {get_forecast: 1}}")
        assert load_suite(str(project)).scenarios[0].domain == "weather"
    finally:
        _domains.TOOL_SOURCES.remove("canned")
        sys.path.remove(str(RECIPES))
        sys.modules.pop("canned_tool_source", None)
    with pytest.raises(Exception, match="must be a new identifier"):
        _domains.register_tool_source("python", "canned_tool_source:canned_source")
