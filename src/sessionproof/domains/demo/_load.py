"""Reading the demo package data (DB, policy, scenarios) with clear errors for broken files.

The files ship inside the package, so they are read with importlib.resources (works from a
wheel or a zip). Parsing is separate from reading so that broken input can be tested directly.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import jsonschema
import orjson
import yaml
from pydantic import ValidationError

from ...errors import InputFileError, UnknownToolError, describe_validation
from ...records import Scenario
from ._data_model import DemoDB
from ._tools import DemoTools

DOMAIN_NAME = "demo"
"""The name the registry and the scenarios use for this domain."""

_MAX_PROBLEMS = 5


def _read(name: str) -> bytes:
    try:
        return resources.files(__package__).joinpath(name).read_bytes()
    except OSError as exc:  # a broken install; say which file is missing
        raise InputFileError(f"demo domain: cannot read package file {name}: {exc}") from None


def parse_db(data: bytes | str, source: str = "db.json") -> DemoDB:
    """Validate demo DB JSON; raises `InputFileError` naming `source` and what is wrong."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputFileError(
            f"{source}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    try:
        return DemoDB.model_validate(raw)
    except ValidationError as exc:
        raise InputFileError(
            f"{source}: not a valid demo DB: {describe_validation(exc, limit=_MAX_PROBLEMS)}"
        ) from None


@functools.cache
def initial_db() -> DemoDB:
    """The shipped DB, parsed once per process. Never mutate it: copy it (`create()` does)."""
    return parse_db(_read("db.json"))


@functools.cache
def load_policy() -> str:
    """The agent-facing policy text of the demo domain."""
    return _read("policy.md").decode("utf-8")


def _check_action(where: str, tool: str, args: dict[str, Any] | None, partial: bool) -> None:
    try:
        spec = DemoTools.spec(tool)
    except UnknownToolError as exc:
        raise InputFileError(f"{where}: {exc}") from None
    if args is None:
        return
    if partial:
        # A forbidden action names only the arguments that matter; they must still exist.
        unknown = sorted(set(args) - set(spec.parameters.get("properties", {})))
        if unknown:
            raise InputFileError(f"{where}: {tool} has no parameter {', '.join(unknown)}")
        return
    try:
        jsonschema.validate(args, spec.parameters)
    except jsonschema.ValidationError as exc:
        raise InputFileError(f"{where}: arguments for {tool} do not fit: {exc.message}") from None


def _check_scenario(scenario: Scenario, where: str) -> None:
    if scenario.domain != DOMAIN_NAME:
        raise InputFileError(f"{where}: domain is {scenario.domain!r}, not {DOMAIN_NAME!r}")
    turns = len(scenario.user.turns or [])
    for n, action in enumerate(scenario.criteria.gold_actions):
        at = f"{where}: gold action #{n}"
        _check_action(at, action.tool, action.args, partial=False)
        if action.turn is not None and not 0 <= action.turn < max(turns, 1):
            raise InputFileError(f"{at}: turn {action.turn} is outside the {turns} user turns")
    for n, forbidden in enumerate(scenario.criteria.forbidden):
        _check_action(
            f"{where}: forbidden action #{n}", forbidden.tool, forbidden.args, partial=True
        )


def parse_scenarios(text: bytes | str, source: str = "scenarios.yaml") -> list[Scenario]:
    """Validate a YAML list of demo scenarios; raises `InputFileError` with the position.

    Beyond the `Scenario` schema, every named tool must exist in the demo toolkit, every gold
    action's arguments must fit that tool's schema, and ids must be unique.
    """
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise InputFileError(f"{source}: not valid YAML{at}: {problem}") from None
    if not isinstance(raw, list) or not raw:
        raise InputFileError(f"{source}: expected a non-empty YAML list of scenarios")
    scenarios: list[Scenario] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        label = item.get("id") if isinstance(item, dict) else None
        where = f"{source}: scenario #{i}" + (f" ({label})" if label else "")
        try:
            scenario = Scenario.model_validate(item)
        except ValidationError as exc:
            raise InputFileError(
                f"{where}: {describe_validation(exc, limit=_MAX_PROBLEMS)}"
            ) from None
        if scenario.id in seen:
            raise InputFileError(f"{where}: duplicate scenario id {scenario.id!r}")
        seen.add(scenario.id)
        _check_scenario(scenario, where)
        scenarios.append(scenario)
    return scenarios


def load_scenarios() -> list[Scenario]:
    """The built-in demo suite, validated; a fresh list on every call (callers may edit it)."""
    return [s.model_copy(deep=True) for s in _cached_scenarios()]


@functools.cache
def _cached_scenarios() -> tuple[Scenario, ...]:
    return tuple(parse_scenarios(_read("scenarios.yaml")))
