"""Suite names → suites. Built-ins load lazily; a YAML or JSON path is a user's own suite."""

from __future__ import annotations

import importlib
from pathlib import Path

import orjson
import yaml
from pydantic import ValidationError

from ..errors import InputFileError, UnknownSuiteError
from ..records import Scenario
from ._suite import Suite

BUILTIN_SUITES: dict[str, str] = {
    "demo": "the built-in orders/help-desk world (scripted users, deterministic)",
    "tau2-retail[:SPLIT]": "tau2-bench retail tasks (simulated user; split from split_tasks.json)",
    "tau2-airline[:SPLIT]": "tau2-bench airline tasks (simulated user)",
    "bfcl:CATEGORY": "BFCL v4 single-call questions: simple_python, multiple, parallel, "
    "parallel_multiple, irrelevance",
}


def _load_demo() -> Suite:
    from ..domains.demo import load_scenarios

    return Suite("demo", load_scenarios())


def _load_factory(module: str, attr: str, name: str) -> Suite:
    factory = getattr(importlib.import_module(module), attr)
    suite: Suite = factory(name)
    return suite


def parse_scenarios(data: object, source: str) -> list[Scenario]:
    """Validate a list of scenario objects (or {"scenarios": [...]}) with clear positions."""
    if isinstance(data, dict) and "scenarios" in data:
        data = data["scenarios"]
    if not isinstance(data, list):
        raise InputFileError(f"{source}: expected a list of scenarios, got {type(data).__name__}")
    scenarios: list[Scenario] = []
    seen: set[str] = set()
    for i, item in enumerate(data):
        try:
            scenario = Scenario.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "(scenario)"
            raise InputFileError(
                f"{source}: scenario #{i}: {where}: {err['msg']}"
                + (f" ({len(exc.errors())} problems)" if len(exc.errors()) > 1 else "")
            ) from None
        if scenario.id in seen:
            raise InputFileError(f"{source}: scenario #{i}: duplicate id {scenario.id!r}")
        seen.add(scenario.id)
        scenarios.append(scenario)
    if not scenarios:
        raise InputFileError(f"{source}: the suite has no scenarios")
    return scenarios


def load_suite_file(path: Path) -> Suite:
    """A user's suite file (YAML or JSON)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = orjson.loads(raw) if path.suffix == ".json" else yaml.safe_load(raw)
    except (orjson.JSONDecodeError, yaml.YAMLError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputFileError(
            f"{path}: not valid {path.suffix.lstrip('.').upper()}: {first}"
        ) from None
    return Suite(path.stem, parse_scenarios(data, str(path)))


def load_suite(name: str) -> Suite:
    """Resolve a suite name or a scenario file path."""
    if name == "demo":
        return _load_demo()
    if name.startswith(("tau2-retail", "tau2-airline")):
        return _load_factory("sessionproof.suites.tau2", "tau2_suite", name)
    if name.startswith("bfcl:"):
        return _load_factory("sessionproof.suites.bfcl", "make_bfcl_suite", name)
    path = Path(name)
    if path.suffix in (".yaml", ".yml", ".json"):
        if not path.exists():
            raise InputFileError(f"{path}: no such suite file")
        return load_suite_file(path)
    known = ", ".join(BUILTIN_SUITES)
    raise UnknownSuiteError(f"unknown suite {name!r}; use one of {known}, or a .yaml/.json file")
