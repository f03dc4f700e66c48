"""A user's suite file (YAML or JSON), read within bounds and checked whole before any run.

Every scenario is validated up front: the schema, a known domain, criteria that name tools
that domain has, unique ids. An error names the file, the scenario (index, id and, for
YAML, its line) and the field, so a bad suite fails at load, never halfway through a run.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from ..domains import domain_names, get_domain
from ..errors import InputFileError, SessionproofError, describe_validation
from ..records import Scenario
from ..scoring import call_rule_names
from ._suite import Suite
from ._yaml import MAX_DEPTH, load_yaml

_TOP_LEVEL = ("scenarios",)
"""Fields a suite file's top-level mapping may have."""


def _depth_exceeds(data: Any, limit: int) -> bool:
    """True when `data` nests deeper than `limit` (iterative: deep data cannot crash it)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return False


def _items(data: object, source: str) -> list[Any]:
    if isinstance(data, dict):
        unknown = [k for k in data if k not in _TOP_LEVEL]
        if "scenarios" not in data or unknown:
            shown = ", ".join(repr(str(k)) for k in unknown) or "no 'scenarios'"
            raise InputFileError(
                f"{source}: unknown top-level field {shown}; a suite file is a list of "
                "scenarios or a mapping with only `scenarios:`"
            )
        data = data["scenarios"]
    if not isinstance(data, list):
        raise InputFileError(f"{source}: expected a list of scenarios, got {type(data).__name__}")
    return data


def _label(source: str, index: int, item: object, lines: Sequence[int]) -> str:
    sid = item.get("id") if isinstance(item, dict) else None
    where = f"{source}: scenario #{index}"
    if isinstance(sid, str) and sid:
        where += f" ({sid})"
    if index < len(lines):
        where += f" at line {lines[index]}"
    return where


def _suggest(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_scenario(scenario: Scenario, where: str) -> None:
    """Refuse a scenario whose domain is unknown, whose criteria name tools its domain lacks
    or call rules no one registered; `where` starts the message (file and scenario)."""
    known = domain_names()
    if scenario.domain not in known:
        raise InputFileError(
            f"{where}: domain: unknown domain {scenario.domain!r}{_suggest(scenario.domain, known)}"
            f"; known domains: {', '.join(known)}"
        )
    try:
        tools = [t.name for t in get_domain(scenario.domain).tools()]
    except SessionproofError as exc:
        raise InputFileError(f"{where}: domain: {exc}") from None
    rules = scenario.criteria.call_rules
    if rules is not None and rules not in call_rule_names():
        names = call_rule_names()
        raise InputFileError(
            f"{where}: criteria.call_rules: unknown call rules {rules!r}{_suggest(rules, names)}"
            f"; known: {', '.join(names)}"
        )
    named = [("gold_actions", i, a.tool) for i, a in enumerate(scenario.criteria.gold_actions)]
    named += [("forbidden", i, a.tool) for i, a in enumerate(scenario.criteria.forbidden)]
    for field, i, tool in named:
        if tool not in tools:
            raise InputFileError(
                f"{where}: criteria.{field}.{i}.tool: domain {scenario.domain!r} has no tool "
                f"{tool!r}{_suggest(tool, tools)}; its tools: {', '.join(sorted(tools))}"
            )


def parse_scenarios(data: object, source: str, lines: Sequence[int] = ()) -> list[Scenario]:
    """Validate a list of scenario objects (or {"scenarios": [...]}) with clear positions.

    `lines` gives each scenario's start line when known (YAML). Raises `InputFileError`.
    """
    scenarios: list[Scenario] = []
    seen: set[str] = set()
    for i, item in enumerate(_items(data, source)):
        where = _label(source, i, item, lines)
        try:
            scenario = Scenario.model_validate(item)
        except ValidationError as exc:
            raise InputFileError(
                f"{where}: {describe_validation(exc, whole='(scenario)')}"
            ) from None
        if scenario.id in seen:
            raise InputFileError(f"{where}: id: duplicate id {scenario.id!r}")
        seen.add(scenario.id)
        check_scenario(scenario, where)
        scenarios.append(scenario)
    if not scenarios:
        raise InputFileError(f"{source}: the suite has no scenarios")
    return scenarios


def load_suite_file(path: Path) -> Suite:
    """A user's suite file (YAML or JSON), validated whole; raises `InputFileError`."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror}") from None
    lines: list[int] = []
    if path.suffix == ".json":
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if "depth" in problem or "recursion" in problem.lower():
                raise InputFileError(f"{path}: nested deeper than {MAX_DEPTH} levels") from None
            raise InputFileError(f"{path}: not valid JSON: {problem}") from None
        if _depth_exceeds(data, MAX_DEPTH):
            raise InputFileError(f"{path}: nested deeper than {MAX_DEPTH} levels")
    else:
        document = load_yaml(raw, str(path))
        data, lines = document.data, document.lines
    return Suite(path.stem, parse_scenarios(data, str(path), lines))
