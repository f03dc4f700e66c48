"""Suite names → suites: the registered suite plug-ins, or a user's YAML/JSON file or project.

The demo suites (`demo`, `quickstart`) are registered here in code; every benchmark comes
from the `sessionproof.suites` entry-point group (see `_plugin`), sessionproof's own as well.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ..errors import InputFileError, UnknownSuiteError
from ._files import load_suite_dir, load_suite_file
from ._judges import judge_of
from ._plugin import IN_CODE, SUITES, SuitePlugin, is_own, plugin_key, suite_help
from ._suite import Suite

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
    from ..domains.demo._internal import load_scenarios

    scenarios = load_scenarios()
    if name == "quickstart":
        by_id = {s.id: s for s in scenarios}
        scenarios = [by_id[i] for i in QUICKSTART_SCENARIOS]
    return Suite(name, scenarios)


def _register_demo() -> None:
    demo = SuitePlugin(
        "the built-in orders/help-desk world (scripted users, deterministic)", _load_demo
    )
    quick = SuitePlugin(
        "four demo scenarios (a lookup, a cancellation, a ticket, a refusal and hand-off): the "
        "README's first command, about a minute on the embedded model",
        _load_demo,
    )
    for name, plugin in (("demo", demo), ("quickstart", quick)):
        SUITES.add(name, plugin)
        IN_CODE.add(name)


_register_demo()


class _SuiteHelp(Mapping[str, str]):
    """The registered suites as written in help → their descriptions, read when asked (a
    package installed or registered later is listed too)."""

    def __getitem__(self, key: str) -> str:
        return suite_help()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(suite_help())

    def __len__(self) -> int:
        return len(suite_help())

    def __repr__(self) -> str:
        return repr(suite_help())


BUILTIN_SUITES: Mapping[str, str] = _SuiteHelp()
"""Every registered suite as written in help (`bfcl:CATEGORY`) → its one-line description;
another package's suite says which package it comes from."""


RUN_COMMANDS = frozenset({"run", "serve"})
"""Stored runs whose suite the user named to the command that made them (`run --suite`,
`serve --suite`): the only runs whose own suite file or project is loaded again."""


def is_builtin_suite(name: str) -> bool:
    """True when `name` is one of sessionproof's own suites, built by its own code alone (no
    file of anyone else's is imported or started when it loads): a suite plug-in registered
    by sessionproof's code or by an entry point of the sessionproof distribution."""
    key = plugin_key(name)
    return key is not None and is_own(key)


def recorded_suite(command: str, suite: str | None) -> str | None:
    """The suite a stored run or a trace names, when it may be loaded without the user naming
    it again; else None.

    A user's suite file or project directory is code (its `python:` modules are imported, its
    `mcp:` commands started), so reading a trace or a store never loads one that the file
    merely names: a built-in suite always loads; a user's suite (a file, a project, or a
    suite plug-in of another distribution) only for a run made by `run` or `serve` with that
    suite (the user named it then). The suite an import, a score or a rerun names is a
    file's claim and never loads (a score or rerun given `--suite PROJECT` records that
    project apart, in its options, and only that is loaded again).
    """
    if not suite:
        return None
    if is_builtin_suite(suite):
        return suite
    return suite if command in RUN_COMMANDS else None


def load_suite(name: str) -> Suite:
    """Resolve a registered suite name (`NAME` or `NAME:PART`) or a scenario file path.

    Raises `ConfigError` when a scenario names an evaluator no installed package registers
    as a judge: said when the suite loads, never judged generically instead.
    """
    return _checked(_load(name))


def _checked(suite: Suite) -> Suite:
    for scenario in suite.scenarios:
        judge_of(scenario)
    return suite


def _load(name: str) -> Suite:
    key = plugin_key(name)
    if key is not None:
        return SUITES.require(key).load(name)
    path = Path(name)
    if path.is_dir():
        return load_suite_dir(path)
    if path.suffix in (".yaml", ".yml", ".json"):
        if not path.exists():
            raise InputFileError(f"{path}: no such suite file")
        return load_suite_file(path)
    known = ", ".join(suite_help())
    raise UnknownSuiteError(
        f"unknown suite {name!r}; use one of {known}, or a .yaml/.json file or a project directory"
    )
