"""Suite names → suites. Built-ins load lazily; a YAML or JSON path is a user's own suite."""

from __future__ import annotations

import importlib
from pathlib import Path

from ..errors import InputFileError, UnknownSuiteError
from ._files import load_suite_dir, load_suite_file
from ._suite import Suite

BUILTIN_SUITES: dict[str, str] = {
    "demo": "the built-in orders/help-desk world (scripted users, deterministic)",
    "quickstart": "four demo scenarios (a lookup, a cancellation, a ticket, a refusal and "
    "hand-off): the README's first command, about a minute on the embedded model",
    "tau2-retail[:SPLIT]": "tau2-bench retail tasks (simulated user; split from split_tasks.json)",
    "tau2-airline[:SPLIT]": "tau2-bench airline tasks (simulated user)",
    "bfcl:CATEGORY": "BFCL v4 single-call questions: simple_python, multiple, parallel, "
    "parallel_multiple, irrelevance; multi-turn entries (BFCL's classes, from bfcl-eval): "
    "multi_turn_base, multi_turn_miss_func, multi_turn_miss_param, multi_turn_long_context",
    "wild": "WildToolBench-style sessions of four tasks over the demo world (scripted users; "
    "breakdowns by task position, type, intent and transitions)",
}


QUICKSTART_SCENARIOS: tuple[str, ...] = (
    "order-status-shipped",
    "cancel-pending-by-mistake",
    "damaged-lamp-ticket",
    "expired-return-then-transfer",
)
"""The `quickstart` suite's demo scenarios: two user turns each, one per kind of job (a
read, a write, a ticket, a policy refusal with a hand-off), so a first run on the embedded
model ends in about a minute and still scores real sessions."""


def _load_demo(name: str = "demo") -> Suite:
    from ..domains.demo import load_scenarios

    scenarios = load_scenarios()
    if name == "quickstart":
        by_id = {s.id: s for s in scenarios}
        scenarios = [by_id[i] for i in QUICKSTART_SCENARIOS]
    return Suite(name, scenarios)


def _load_factory(module: str, attr: str, name: str) -> Suite:
    factory = getattr(importlib.import_module(module), attr)
    suite: Suite = factory(name)
    return suite


_BUILTIN_PREFIXES = ("tau2-retail", "tau2-airline", "bfcl:")

RUN_COMMANDS = frozenset({"run", "serve"})
"""Stored runs whose suite the user named to the command that made them (`run --suite`,
`serve --suite`): the only runs whose own suite file or project is loaded again."""


def is_builtin_suite(name: str) -> bool:
    """True when `name` is one of sessionproof's own suites, built by its own code alone (no
    file of anyone else's is imported or started when it loads)."""
    return name in ("demo", "quickstart", "wild") or name.startswith(_BUILTIN_PREFIXES)


def recorded_suite(command: str, suite: str | None) -> str | None:
    """The suite a stored run or a trace names, when it may be loaded without the user naming
    it again; else None.

    A user's suite file or project directory is code (its `python:` modules are imported, its
    `mcp:` commands started), so reading a trace or a store never loads one that the file
    merely names: a built-in suite always loads; a user's suite only for a run made by `run`
    or `serve` with that suite (the user named it then). The suite an import, a score or a
    rerun names is a file's claim and never loads (a score or rerun given `--suite PROJECT`
    records that project apart, in its options, and only that is loaded again).
    """
    if not suite:
        return None
    if is_builtin_suite(suite):
        return suite
    return suite if command in RUN_COMMANDS else None


def load_suite(name: str) -> Suite:
    """Resolve a suite name or a scenario file path."""
    if name in ("demo", "quickstart"):
        return _load_demo(name)
    if name.startswith(("tau2-retail", "tau2-airline")):
        return _load_factory("sessionproof.suites.tau2", "tau2_suite", name)
    if name == "wild":
        return _load_factory("sessionproof.suites.wild", "make_wild_suite", name)
    if name.startswith("bfcl:"):
        return _load_factory("sessionproof.suites.bfcl", "make_bfcl_suite", name)
    path = Path(name)
    if path.is_dir():
        return load_suite_dir(path)
    if path.suffix in (".yaml", ".yml", ".json"):
        if not path.exists():
            raise InputFileError(f"{path}: no such suite file")
        return load_suite_file(path)
    known = ", ".join(BUILTIN_SUITES)
    raise UnknownSuiteError(
        f"unknown suite {name!r}; use one of {known}, or a .yaml/.json file or a project directory"
    )
