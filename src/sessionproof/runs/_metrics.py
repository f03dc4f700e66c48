"""`metrics`: every metric of a stored run, per arm, against the scenarios it ran."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..domains import DomainSpec, get_domain
from ..errors import SessionproofError, StoreError
from ..importers import import_file
from ..records import Scenario, Session
from ..scoring import ALL_METRIC_DEFINITIONS, MetricsReport, run_metrics
from ..scoring._internal import (
    COST_DEFINITIONS,
    DEFAULT_TARGET_MDE,
    NOISE_DEFINITIONS,
    Breakdowns,
    CostSummary,
    NoiseFloor,
    PriceTable,
    TraceCache,
    VarianceSplit,
    cost_summary,
    noise_of_report,
    shipped_prices,
)
from ..store import RunManifest, Store
from ..store._internal import DEFAULT_STORE_PATH
from ..suites import Suite, load_suite
from ..suites._internal import gold_prefix_suite, recorded_suite
from ._vary import variance_splits

DomainFor = Callable[[Scenario], DomainSpec]
"""How to get a scenario's domain."""


class ScenarioSource(BaseModel):
    """Where the scenarios a run's metrics were computed against came from."""

    model_config = ConfigDict(extra="forbid")

    source: str
    """Embedded in the sessions, re-read from the transcript file, or the suite (or why none
    could be had)."""
    available: int
    """How many scenarios were found."""


class RunMetrics(BaseModel):
    """What `sessionproof show RUN --metrics` prints: each arm's metrics, with definitions."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    command: str
    suite: str
    model: str
    sessions: int
    scenarios: ScenarioSource
    arms: dict[str, MetricsReport]
    """Arm name → its metrics, in the manifest's arm order (unlisted arms after)."""
    definitions: dict[str, str] = Field(default_factory=lambda: dict(ALL_METRIC_DEFINITIONS))
    breakdowns: dict[str, Breakdowns] = Field(default_factory=dict)
    """Arm → the suite's own breakdown tables (e.g. the wild suite's); empty for suites that
    have none."""
    noise: dict[str, NoiseFloor] = Field(default_factory=dict)
    """Arm → its noise floor (flip rate, ICC, MDE, trials for the target difference)."""
    variance_split: dict[str, VarianceSplit] = Field(default_factory=dict)
    """Arm → its verdict variance shared between the parties, when runs of a `run --vary`
    design were named (`split`); empty otherwise."""

    costs: dict[str, CostSummary] = Field(default_factory=dict)
    """Arm → tokens and USD by role, per session and per successful session."""

    def _arm_json(self, arm: str, report: MetricsReport) -> dict[str, Any]:
        found: dict[str, Any] = report.model_dump(mode="json", exclude={"definitions"})
        if arm in self.noise:
            found["noise"] = _noise_json(self, arm)
        if arm in self.costs:
            found["cost"] = self.costs[arm].model_dump(mode="json")
        return found

    def to_json(self) -> dict[str, Any]:
        """The `--json` object (definitions once, not per arm)."""
        return {
            "run_id": self.run_id,
            "command": self.command,
            "suite": self.suite,
            "model": self.model,
            "scenarios": self.scenarios.model_dump(mode="json"),
            "arms": {arm: self._arm_json(arm, report) for arm, report in self.arms.items()},
            "definitions": self.definitions,
            # Only suites with breakdowns add the key, so other runs' JSON is unchanged.
            **(
                {"breakdowns": {a: b.model_dump(mode="json") for a, b in self.breakdowns.items()}}
                if self.breakdowns
                else {}
            ),
        }


def _noise_json(metrics: RunMetrics, arm: str) -> dict[str, Any]:
    found: dict[str, Any] = metrics.noise[arm].model_dump(mode="json")
    if arm in metrics.variance_split:
        found["split"] = metrics.variance_split[arm].model_dump(mode="json")
    return found


def _by_domain_name(scenario: Scenario) -> DomainSpec:
    return get_domain(scenario.domain)


def _named_project(manifest: RunManifest) -> Suite | None:
    """The project a `score` or `rerun` was given with `--suite` (the user named it to that
    command, as to `run`): loaded again so its domains are known; None when there is none,
    or it no longer loads."""
    name = manifest.options.get("suite")
    if manifest.command not in ("score", "rerun") or not isinstance(name, str) or not name:
        return None
    try:
        return load_suite(name)
    except SessionproofError:
        return None


def scenarios_for(
    manifest: RunManifest, sessions: Sequence[Session], loaded: Suite | None = None
) -> tuple[dict[str, Scenario], DomainFor, str]:
    """The scenarios a stored run's sessions ran (or were graded) against, how to get their
    domains, and where they came from (or why there are none).

    `loaded`: the suite the run ran, as it ran it (cut to its limit, in its reading), when
    the caller still holds it (a run reporting on itself): used instead of loading the
    suite again, which re-reads its files and re-validates every scenario."""
    embedded: dict[str, Scenario] = {}
    for s in sessions:
        raw = s.metadata.get("scenario")
        if isinstance(raw, dict):
            try:
                embedded[s.scenario_id] = Scenario.model_validate(raw)
            except ValidationError:
                continue
    project = loaded if loaded is not None else _named_project(manifest)
    lookup: DomainFor = project.domain_for if project is not None else _by_domain_name
    if embedded:
        return embedded, lookup, "embedded in the stored sessions"
    if manifest.command in ("score", "rerun"):
        # Runs made from a transcript file name that file as their suite; the scenarios (the
        # tasks the transcripts were graded against) live in it.
        path = Path(manifest.suite)
        if not path.is_file():
            return {}, _by_domain_name, f"the transcript file {path} is no longer there"
        fmt = str(manifest.options.get("format") or "auto")
        domain = manifest.options.get("domain")
        try:
            result = import_file(
                path,
                fmt,
                run_id=manifest.run_id,
                domain=domain if isinstance(domain, str) else None,
            )
        except SessionproofError as exc:
            return {}, _by_domain_name, f"re-reading {path} failed: {exc}"
        found = {i.scenario.id: i.scenario for i in result.sessions if i.scenario is not None}
        return found, lookup, f"re-read from {path}"
    if loaded is not None:
        return {s.id: s for s in loaded.scenarios}, loaded.domain_for, f"suite {manifest.suite}"
    if recorded_suite(manifest.command, manifest.suite) is None:
        # A trace's or an import's suite is only a name in a file: loading it would run code.
        return (
            {},
            _by_domain_name,
            f"suite {manifest.suite!r} not loaded: a {manifest.command} run names it, and a "
            "user's suite is code (python: modules, mcp: commands) that reading a store never runs",
        )
    try:
        suite = load_suite(manifest.suite).limited(manifest.limit)
        if manifest.options.get("reading") == "gold-prefix":
            suite = gold_prefix_suite(suite)  # the per-turn scenarios the run ran
    except SessionproofError as exc:
        return {}, _by_domain_name, f"suite {manifest.suite!r} cannot be loaded: {exc}"
    note = f"suite {manifest.suite}"
    if manifest.suite_hash and suite.content_hash() != manifest.suite_hash:
        note += " (changed since the run: metrics use its current scenarios)"
    return {s.id: s for s in suite.scenarios}, suite.domain_for, note


def _breakdowns(
    sessions: Sequence[Session], arms: Sequence[str], domain_for: DomainFor
) -> dict[str, Breakdowns]:
    """The suite's own breakdowns of each arm, when the scenarios came from a suite."""
    # `scenarios_for` hands back the loaded suite's own `domain_for`: reuse that suite
    # instead of loading it a second time (runs of files, imports and reruns have none).
    suite = getattr(domain_for, "__self__", None)
    if not isinstance(suite, Suite) or type(suite).breakdowns is Suite.breakdowns:
        return {}
    found = {}
    for arm in arms:
        tables = suite.breakdowns([s for s in sessions if s.arm == arm])
        if tables is not None:
            found[arm] = tables
    return found


@contextlib.contextmanager
def _reading(store: str | Path | Store) -> Iterator[Store]:
    if isinstance(store, Store):
        yield store
        return
    path = Path(store)
    if not path.exists():
        raise StoreError(f"no store at {path}; run `sessionproof run` first or pass --store")
    with Store.open_for_reading(path) as db:
        yield db


def metrics(
    run_id: str,
    store: str | Path | Store = DEFAULT_STORE_PATH,
    *,
    target_mde: float = DEFAULT_TARGET_MDE,
    split: Sequence[str] = (),
    prices: PriceTable | None = None,
) -> RunMetrics:
    """Every metric of the stored run `run_id` (or a unique prefix), arm by arm: session
    accuracy with Wilson and bootstrap intervals, pass^k and pass@k, flakiness, single-call
    accuracy and validity, error recovery by class, survival by depth, failure sources.

    `store` is a store file (read even while a run holds it) or an open `Store`. What cannot
    be computed (no scenarios to compare calls with) is named in each report's `skipped`.

    Each arm's noise floor computes the trials needed for a difference of `target_mde`;
    `split` names other runs of one `run --vary` design with this one: each arm's verdict
    variance is then shared between the parties (`variance_split`).
    `prices` prices each arm's cost (default: the shipped price table).
    """
    with _reading(store) as db:
        manifest = db.get_run(run_id)
        sessions = db.load_sessions(manifest.run_id)
        splits = variance_splits(db, [manifest.run_id, *split]) if split else {}
    found = metrics_of(manifest, sessions, target_mde=target_mde, prices=prices)
    found.variance_split = splits
    return found


def metrics_of(
    manifest: RunManifest,
    sessions: list[Session],
    found: tuple[dict[str, Scenario], DomainFor, str] | None = None,
    traces: TraceCache | None = None,
    *,
    target_mde: float = DEFAULT_TARGET_MDE,
    prices: PriceTable | None = None,
    costs: Mapping[str, CostSummary] | None = None,
) -> RunMetrics:
    """`metrics` of a run whose manifest and sessions are already loaded (the report loads
    them once for both, rather than reading every session from the store twice); `found`:
    what `scenarios_for` gave for them, when the caller has it already; `traces`: what was
    made of the sessions already (a run's `MetricsWarmer`); `prices`: what prices the cost
    (default: the shipped table); `costs`: arms' costs the caller priced already with the
    same `prices` over the same sessions (a run reporting on itself)."""
    scenarios, domain_for, source = found or scenarios_for(manifest, sessions)
    arms = [a for a in manifest.arms if any(s.arm == a for s in sessions)]
    arms += sorted({s.arm for s in sessions} - set(arms))
    reports = {
        arm: run_metrics([s for s in sessions if s.arm == arm], scenarios, domain_for, traces)
        for arm in arms
    }
    definitions = dict(ALL_METRIC_DEFINITIONS)
    for report in reports.values():
        definitions.update(report.definitions)  # the per-turn ones, when an arm has them
    definitions.update(NOISE_DEFINITIONS)
    noise = {arm: noise_of_report(r, target_mde=target_mde) for arm, r in reports.items()}
    definitions.update(COST_DEFINITIONS)
    table = prices if prices is not None else shipped_prices()
    given = costs or {}
    priced = {
        arm: given.get(arm) or cost_summary([s for s in sessions if s.arm == arm], table)
        for arm in arms
    }
    return RunMetrics(
        breakdowns=_breakdowns(sessions, arms, domain_for),
        run_id=manifest.run_id,
        command=manifest.command,
        suite=manifest.suite,
        model=manifest.model,
        sessions=len(sessions),
        scenarios=ScenarioSource(source=source, available=len(scenarios)),
        arms=reports,
        definitions=definitions,
        noise=noise,
        costs=priced,
    )
