"""A user's project as the domain source of `score`, `rerun` and `patterns`.

`--suite PROJECT` resolves as `run --suite` does (a project directory, a suite file, or a
built-in name): loading it registers the project's domains (`python:` toolkits imported from
the project folder, `mcp:` servers, OpenAPI and fixture domains), so a transcript of the
project's tools is read, replayed and judged in them. A session whose scenario id is one of
the project's scenarios is judged against that scenario, in the project's own domain (its
`initial_state` too). The suite is loaded only here, because the user named it: reading a
transcript or a trace never loads one (see `recorded_suite`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..domains import Domain, DomainSpec, domain_names, get_domain
from ..errors import ConfigError, InputFileError
from ..importers import ImportedSession
from ..records import Outcome, Scenario, Session
from ._domains import register_inline
from ._registry import load_suite
from ._suite import Suite

RECORDED_DOMAIN = "recorded"
"""`--domain recorded`: read (`score`) or answer (`rerun`) each transcript against its own
recorded tool results; the domain's state is unknown, so nothing is judged."""


@dataclass
class Project:
    """The suite a command was given (None: none), and the domain to read a file in."""

    suite: Suite | None = None
    source: str | None = None
    """How the suite was named: a suite file or project directory as an absolute path, a
    built-in suite by its name."""
    domain: str | None = None
    """`--domain` as given, else the project's one domain (None when it has several)."""
    by_id: dict[str, Scenario] = field(default_factory=dict)
    """The project's scenarios by id."""

    def domains(self) -> set[str]:
        """The domains the project's scenarios run in."""
        return {s.domain for s in self.by_id.values()}

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """A scenario's domain: the project's own lookup for its scenarios (their
        `initial_state` applied), else the registered domain of that name."""
        if self.suite is not None and self.owns(scenario):
            return self.suite.domain_for(scenario)
        return get_domain(scenario.domain)

    def owns(self, scenario: Scenario) -> bool:
        """True when `scenario` is one of the project's own (judged by its suite)."""
        return self.suite is not None and self.by_id.get(scenario.id) is scenario

    def evaluate(self, scenario: Scenario, session: Session, final: Domain[Any]) -> Outcome:
        """Judge a session of one of the project's scenarios as `run` judges it (a domain
        with no DB of its own is judged without the gold-state replay)."""
        if self.suite is None:
            raise ConfigError("no project to judge by")
        return self.suite.evaluate(scenario, session, final)


def _base(suite: str | None) -> Path:
    """Where a `--domain python:...` is imported from: the project folder (a suite file's
    folder), else the working directory."""
    if suite is None:
        return Path.cwd()
    path = Path(suite)
    return path if path.is_dir() else path.parent


def open_project(suite: str | Suite | None, domain: str | None) -> Project:
    """Load the suite the user named (its domains registered), resolve `domain`, and check it.

    `domain` may be a name (the project's, or a built-in), `recorded`, or an inline
    `python:pkg.mod:Class` toolkit imported from the project folder. Raises `InputFileError`
    or `UnknownSuiteError` for a suite that cannot be loaded, and `ConfigError` for a domain
    that is known neither here nor in the project (one line each).
    """
    loaded = load_suite(suite) if isinstance(suite, str) else suite
    project = Project(suite=loaded)
    if isinstance(suite, str):
        path = Path(suite)
        project.source = str(path.resolve()) if path.exists() else suite
    elif loaded is not None:
        project.source = loaded.name
    if loaded is not None:
        project.by_id = {s.id: s for s in loaded.scenarios}
        own = sorted(project.domains())
        if domain is None and len(own) == 1:
            domain = own[0]
    if domain is not None and domain != RECORDED_DOMAIN:
        if domain.startswith("python:"):
            base = _base(suite if isinstance(suite, str) else None)
            try:
                register_inline(domain, base, f"--domain {domain}")
            except InputFileError as exc:
                raise ConfigError(str(exc)) from None
        known = domain_names()
        if domain not in known:
            hint = (
                f"; the project's domains: {', '.join(sorted(project.domains()))}"
                if loaded is not None
                else "; a project's own domains are known with --suite PROJECT"
            )
            raise ConfigError(
                f"--domain: unknown domain {domain!r}; known domains: {', '.join(known)}{hint}"
            )
    project.domain = domain
    return project


def attach_scenarios(items: Iterable[ImportedSession], project: Project) -> int:
    """Give each imported session that has no scenario the project's scenario of the same id
    (its scenario id: a trace's scenario, a chat log line's `id`); how many got one."""
    if not project.by_id:
        return 0
    attached = 0
    for item in items:
        if item.scenario is not None:
            continue
        found = project.by_id.get(item.session.scenario_id)
        if found is not None:
            item.scenario = found
            attached += 1
    return attached
