"""A user's suite file (YAML or JSON), or a project directory of them, read within bounds
and checked whole before any run.

A file is a list of scenarios, or a mapping with `scenarios:` and/or `domains:` (domain
references, see `_domains`). A directory is every `.yaml`/`.yml` file at its top (data
files such as fixtures belong in subdirectories): their domains are registered first, then
all their scenarios form one suite. Every scenario is validated up front: the schema, a
known domain, criteria that name tools that domain has, unique ids. An error names the file,
the scenario (index, id and, for YAML, the line of the field at fault) and the field, so a
bad suite fails at load, never halfway through a run.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError

from ..domains import domain_names, get_domain
from ..errors import InputFileError, SessionproofError, describe_validation
from ..records import Scenario
from ..scoring._internal import call_rule_names
from ._domains import register_inline, register_references
from ._suite import FileSuite, Suite

if TYPE_CHECKING:
    from ._yaml import YamlDocument  # PyYAML loads when a suite file is read

_TOP_LEVEL = ("scenarios", "domains")
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
        if not ("scenarios" in data or "domains" in data) or unknown:
            shown = ", ".join(repr(str(k)) for k in unknown) or "no 'scenarios'"
            raise InputFileError(
                f"{source}: unknown top-level field {shown}; a suite file is a list of "
                "scenarios or a mapping with only `scenarios:` and `domains:`"
            )
        data = data.get("scenarios", [])
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


def _check_judgeable(scenario: Scenario, stateful: bool, where: str) -> None:
    """Refuse a scenario none of whose criteria its domain can check (unless it opts out
    with `criteria.not_judged`), and per-turn criteria without scripted turns."""
    criteria = scenario.criteria
    if criteria.per_turn and not scenario.user.turns:
        raise InputFileError(
            f"{where}: criteria.per_turn: needs scripted user.turns (a simulated user has no "
            "turns to judge one by one)"
        )
    checkable = bool(
        criteria.communicate or criteria.expected_calls or criteria.forbidden or criteria.state
    )
    checkable = checkable or bool(criteria.gold_actions) or (stateful and criteria.compare_state)
    if not checkable and criteria.not_judged is None:
        kind = "compare_state is off" if stateful else "its domain has no DB to compare"
        raise InputFileError(
            f"{where}: criteria: nothing to judge ({kind}; give gold_actions, expected_calls, "
            "communicate, forbidden or state, or set criteria.not_judged to a reason)"
        )


def _check_user_tools(scenario: Scenario, where: str, spec: Any, known: list[str]) -> None:
    """Refuse user tools that name an unknown domain, and user actions on tools the user
    does not hold (`user.tools`, or the domain's own user side)."""
    user = scenario.user
    names: set[str] | None = None
    if user.tools is not None:
        if user.tools not in known:
            raise InputFileError(
                f"{where}: user.tools: unknown domain {user.tools!r}"
                f"{_suggest(user.tools, known)}; known domains: {', '.join(known)}"
            )
        try:
            names = {t.name for t in get_domain(user.tools).tools()}
        except SessionproofError as exc:
            raise InputFileError(f"{where}: user.tools: {exc}") from None
    elif callable(getattr(spec, "user_tools", None)):
        names = {t.name for t in spec.user_tools()}
    for i, action in enumerate(user.actions):
        if names is None:
            raise InputFileError(
                f"{where}: user.actions.{i}: the user holds no tools (give user.tools a domain)"
            )
        if action.tool not in names:
            raise InputFileError(
                f"{where}: user.actions.{i}: the user has no tool {action.tool!r}"
                f"{_suggest(action.tool, sorted(names))}"
            )


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
        spec = get_domain(scenario.domain)
        tools = [t.name for t in spec.tools()]
    except SessionproofError as exc:
        raise InputFileError(f"{where}: domain: {exc}") from None
    _check_user_tools(scenario, where, spec, known)
    rules = scenario.criteria.call_rules
    if rules is not None and rules not in call_rule_names():
        names = call_rule_names()
        raise InputFileError(
            f"{where}: criteria.call_rules: unknown call rules {rules!r}{_suggest(rules, names)}"
            f"; known: {', '.join(names)}"
        )
    if not getattr(spec, "stateful", True):
        for field, used in (
            ("initial_state", scenario.initial_state is not None),
            ("criteria.state", bool(scenario.criteria.state)),
        ):
            if used:
                raise InputFileError(
                    f"{where}: {field}: domain {scenario.domain!r} keeps its state outside "
                    "sessionproof (no DB to set or read); use expected_calls instead"
                )
    _check_judgeable(scenario, bool(getattr(spec, "stateful", True)), where)
    named = [("gold_actions", i, a.tool) for i, a in enumerate(scenario.criteria.gold_actions)]
    named += [("forbidden", i, a.tool) for i, a in enumerate(scenario.criteria.forbidden)]
    named += [("expected_calls", i, a.tool) for i, a in enumerate(scenario.criteria.expected_calls)]
    for field, i, tool in named:
        if tool not in tools:
            raise InputFileError(
                f"{where}: criteria.{field}.{i}.tool: domain {scenario.domain!r} has no tool "
                f"{tool!r}{_suggest(tool, tools)}; its tools: {', '.join(sorted(tools))}"
            )


def parse_scenarios(
    data: object,
    source: str,
    lines: Sequence[int] = (),
    *,
    document: YamlDocument | None = None,
    base: Path | None = None,
    allow_empty: bool = False,
) -> list[Scenario]:
    """Validate a list of scenario objects (or {"scenarios": [...]}) with clear positions.

    `lines` gives each scenario's start line when known (YAML); `document` the line of
    every field, for errors that point at the field. `base` is where inline `python:`
    domains are imported from. Raises `InputFileError`.
    """
    scenarios: list[Scenario] = []
    seen: set[str] = set()
    prefix: tuple[str, ...] = ("scenarios",) if isinstance(data, dict) else ()
    for i, item in enumerate(_items(data, source)):
        where = _label(source, i, item, lines)
        try:
            scenario = Scenario.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = tuple(err["loc"])
            line = document.line_of((*prefix, i, *loc)) if document is not None else None
            at = f" (line {line})" if line is not None and lines and line != lines[i] else ""
            text = describe_validation(exc, whole="(scenario)")
            head, sep, rest = text.partition(": ")
            raise InputFileError(f"{where}: {head}{at}{sep}{rest}") from None
        if scenario.id in seen:
            raise InputFileError(f"{where}: id: duplicate id {scenario.id!r}")
        seen.add(scenario.id)
        if base is not None:
            register_inline(scenario.domain, base, where)
        check_scenario(scenario, where)
        scenarios.append(scenario)
    if not scenarios and not allow_empty:
        raise InputFileError(f"{source}: the suite has no scenarios")
    return scenarios


def _read(path: Path) -> tuple[Any, YamlDocument | None]:
    from ._yaml import MAX_DEPTH, load_yaml

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror}") from None
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
        return data, None
    document = load_yaml(raw, str(path))
    return document.data, document


def _register_domains(path: Path, data: Any, document: YamlDocument | None) -> None:
    if not isinstance(data, dict) or "domains" not in data:
        return
    lines: dict[str, int] = {}
    if document is not None:
        for name in data["domains"] if isinstance(data["domains"], dict) else ():
            line = document.field_lines.get(("domains", name))
            if line is not None:
                lines[str(name)] = line
    register_references(data["domains"], str(path), path.parent, lines)


def _scenarios(
    path: Path, data: Any, document: YamlDocument | None, allow_empty: bool
) -> list[Scenario]:
    lines = document.lines if document is not None else []
    return parse_scenarios(
        data, str(path), lines, document=document, base=path.parent, allow_empty=allow_empty
    )


def load_suite_file(path: Path) -> Suite:
    """A user's suite file (YAML or JSON), validated whole; raises `InputFileError`."""
    data, document = _read(path)
    _register_domains(path, data, document)
    return FileSuite(path.stem, _scenarios(path, data, document, allow_empty=False))


def suite_files(directory: Path) -> list[Path]:
    """The suite files of a project directory: its top-level `.yaml`/`.yml` files."""
    return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def load_suite_dir(directory: Path) -> Suite:
    """A project directory as one suite: every file's domains, then every file's
    scenarios (ids unique across files); raises `InputFileError`."""
    files = suite_files(directory)
    if not files:
        raise InputFileError(f"{directory}: no .yaml/.yml suite files in this directory")
    read = [(path, *_read(path)) for path in files]
    for path, data, document in read:
        _register_domains(path, data, document)
    scenarios: list[Scenario] = []
    owner: dict[str, Path] = {}
    for path, data, document in read:
        for scenario in _scenarios(path, data, document, allow_empty=True):
            if scenario.id in owner:
                raise InputFileError(
                    f"{path}: scenario {scenario.id!r}: id already used in {owner[scenario.id]}"
                )
            owner[scenario.id] = path
            scenarios.append(scenario)
    if not scenarios:
        raise InputFileError(f"{directory}: the project has no scenarios")
    return FileSuite(directory.resolve().name, scenarios)
