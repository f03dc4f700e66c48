"""`audit(suite)`: a task set checked before anyone trusts a number from it.

For every task of any suite (a benchmark's, the demo, a user's file or project):

- `oracle`: the reference agent passes, under every reading the suite has (its own history;
  from the gold prefix too when the suite can be read so);
- `gold_replay`: the gold actions run cleanly on a fresh domain (a failing one is said);
- `criteria`: every tool and argument the criteria name exists, every state assertion's path
  is in the gold state;
- `do_nothing` / `read_only`: an agent that does nothing and one that only makes the gold
  reads (and says the facts) do not pass: one that does is trivial, or leaky (its writes are
  never checked);
- `gold_state`: the gold actions change the state (else the state check passes a session
  that writes nothing);
- with a store: tasks no stored run of the suite ever passed, and those whose verdict flips
  most from trial to trial (`_audit_store`).

A session the suite cannot judge (an NL assertion with no judge) is never read as a pass or
a failure: the audit says so in a note. Errors make the audit fail (`AuditReport.ok`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..agents import Agent
from ..engine import execute_run
from ..engine._internal import RunPlan, SessionList
from ..records import Scenario, Session
from ..suites import Suite, load_suite
from ..suites._internal import GoldPrefixSuite, has_per_turn_criteria
from ._audit_agents import DoNothingAgent, ReadOnlyAgent
from ._audit_checks import Flag, Severity, criteria_flags, gold_state_flags
from ._audit_store import StoreFindings, store_findings
from ._config import suite_reference

_PROBES = 4
"""Sessions an audit runs at once (reference agents: no model to wait for)."""


class AuditReport(BaseModel):
    """What `audit` found: a flag per finding, by task, and the counts behind them."""

    model_config = ConfigDict(extra="forbid")

    suite: str
    tasks: int
    readings: list[str]
    """The readings the oracle was run under (`own`, and `gold-prefix` when the suite has it)."""
    oracle: dict[str, int]
    """Oracle sessions by verdict (`pass`, `fail`, `not judged`), every reading together."""
    do_nothing_passes: int
    """Tasks a do-nothing agent passes (each flagged: an error, or a warning when the
    reference itself does nothing)."""
    read_only_passes: int
    """Tasks with gold writes that a read-only agent passes (each flagged as an error)."""
    flags: list[Flag] = Field(default_factory=list)
    store: StoreFindings | None = None

    @property
    def errors(self) -> int:
        """Findings that make the task untrustworthy."""
        return sum(f.severity == "error" for f in self.flags)

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return self.errors == 0


def _verdict(session: Session) -> bool | None:
    """Pass, fail, or None when only an unevaluated criterion stands between it and a pass."""
    outcome = session.outcome
    if outcome is None or not session.judged:
        return None
    if any(c.passed is False for c in outcome.criteria):
        return False
    if any(c.passed is None for c in outcome.criteria):
        return None
    return outcome.success


def _why_failed(session: Session) -> str:
    outcome = session.outcome
    if outcome is None:
        return f"ended {session.termination.value} with no outcome"
    failed = [f"{c.name}: {c.evidence}" for c in outcome.criteria if c.passed is False]
    return "; ".join(failed) or f"ended {session.termination.value}"


def _why_not_judged(session: Session) -> str:
    outcome = session.outcome
    if outcome is None:
        return "no outcome"
    open_ = [c.name for c in outcome.criteria if c.passed is None]
    return outcome.not_judged or ("not evaluated: " + ", ".join(open_))


async def _sessions(suite: Suite, agent: Agent) -> dict[str, Session]:
    """One session per scenario of `suite` with `agent` (no store, no arm), by scenario id."""
    sink = SessionList()
    plan = RunPlan(run_id=f"audit-{agent.name}", concurrency=_PROBES)
    await execute_run(suite, agent, plan, sink)
    return {s.scenario_id: s for s in sink.sessions}


def _gold_failures(scenario: Scenario, session: Session) -> list[Flag]:
    """The oracle's gold calls that failed on the fresh domain."""
    out = []
    for result in session.tool_results():
        if not result.ok and result.call_id.startswith("oracle-"):
            out.append(
                Flag(
                    scenario=scenario.id,
                    check="gold_replay",
                    severity="warning",
                    reason=f"gold call {result.name} fails on a fresh domain: "
                    f"{(result.error or result.output).splitlines()[0][:160]}",
                )
            )
    return out


def _oracle_flags(
    scenario: Scenario, session: Session | None, reading: str, counts: dict[str, int]
) -> list[Flag]:
    where = "" if reading == "own" else f" ({reading} reading, {session and session.scenario_id})"
    if session is None:
        counts["fail"] += 1
        return [Flag(scenario=scenario.id, check="oracle", severity="error", reason="no session")]
    verdict = _verdict(session)
    counts[{True: "pass", False: "fail", None: "not judged"}[verdict]] += 1
    if verdict is False:
        reason = f"the oracle fails{where}: {_why_failed(session)}"
        return [Flag(scenario=scenario.id, check="oracle", severity="error", reason=reason)]
    if verdict is None:
        reason = f"the oracle is not judged{where}: {_why_not_judged(session)}"
        return [Flag(scenario=scenario.id, check="oracle", severity="note", reason=reason)]
    return []


def _probe_flags(scenario: Scenario, session: Session, probe: str, writes: set[str]) -> Flag | None:
    """The finding when a probe passes (or only an unevaluated criterion stops it)."""
    verdict = _verdict(session)
    crit = scenario.criteria
    gold_writes = sorted({a.tool for a in crit.gold_actions if a.tool in writes})
    if probe == "read_only" and not gold_writes:
        return None  # an information task: reading is what it asks for
    what = "a do-nothing agent" if probe == "do_nothing" else "a read-only agent"
    severity: Severity = "error"
    if probe == "read_only":
        kind = f"leaky: the gold writes with {', '.join(gold_writes)} and nothing checks it"
    elif crit.gold_actions or crit.communicate:
        acts = f"{len(crit.gold_actions)} gold calls" + (
            f", {len(crit.communicate)} facts" if crit.communicate else ""
        )
        kind = f"trivial: the reference makes {acts} and nothing checks them"
    else:
        severity = "warning"
        kind = (
            "the reference itself does nothing (no gold action, no fact to say), so doing "
            "nothing cannot be told from a correct refusal or restraint"
        )
    if verdict is True:
        return Flag(
            scenario=scenario.id, check=probe, severity=severity, reason=f"{what} passes: {kind}"
        )
    if verdict is None and session.outcome is not None and session.judged:
        return Flag(
            scenario=scenario.id,
            check=probe,
            severity="warning",
            reason=f"{what} passes every evaluated criterion; only "
            f"{_why_not_judged(session)} stands in its way",
        )
    return None


async def aaudit(suite: str | Suite, *, store: str | Path | None = None) -> AuditReport:
    """`audit`, awaitable."""
    loaded = suite if isinstance(suite, Suite) else load_suite(suite)
    name = suite_reference(suite)
    scenarios = loaded.scenarios
    flags: list[Flag] = []
    findings = None
    if store is not None:  # first: a store of another suite is refused before any session
        findings, found_flags = store_findings(Path(store), name, [s.id for s in scenarios])
        flags += found_flags
    for scenario in scenarios:
        spec = loaded.domain_for(scenario)
        tools = spec.tools()
        flags += criteria_flags(scenario, tools)
        flags += gold_state_flags(scenario, spec)
    oracle = await _sessions(loaded, _oracle())
    readings = ["own"]
    counts = {"pass": 0, "fail": 0, "not judged": 0}
    for scenario in scenarios:
        flags += _oracle_flags(scenario, oracle.get(scenario.id), "own", counts)
        if scenario.id in oracle:
            flags += _gold_failures(scenario, oracle[scenario.id])
    if loaded.gold_prefix_problem() is None and any(map(has_per_turn_criteria, scenarios)):
        readings.append("gold-prefix")
        prefixed = GoldPrefixSuite(loaded)
        prefixed.scenarios = [p for p in prefixed.scenarios if p.start_turn is not None]
        by_prefix = await _sessions(prefixed, _oracle())
        base = {s.id: s for s in scenarios}
        for p in prefixed.scenarios:
            root = base[p.id.rpartition("@turn")[0]]  # the gold-prefix scenario's base
            flags += _oracle_flags(root, by_prefix.get(p.id), "gold-prefix", counts)
    passes = {"do_nothing": 0, "read_only": 0}
    for probe, agent in (("do_nothing", DoNothingAgent()), ("read_only", ReadOnlyAgent())):
        sessions = await _sessions(loaded, agent)
        for scenario in scenarios:
            session = sessions.get(scenario.id)
            if session is None:
                continue
            writes = {t.name for t in loaded.domain_for(scenario).tools() if t.write}
            found = _probe_flags(scenario, session, probe, writes)
            if found is not None:
                flags.append(found)
                passes[probe] += _verdict(session) is True
    order = {s.id: i for i, s in enumerate(scenarios)}
    flags.sort(key=lambda f: (order.get(f.scenario, len(order)), f.check))
    return AuditReport(
        suite=name,
        tasks=len(scenarios),
        readings=readings,
        oracle=counts,
        do_nothing_passes=passes["do_nothing"],
        read_only_passes=passes["read_only"],
        flags=flags,
        store=findings,
    )


def _oracle() -> Agent:
    from ..agents import OracleAgent

    return OracleAgent()


def audit(suite: str | Suite, *, store: str | Path | None = None) -> AuditReport:
    """Check a suite's tasks before trusting a number from them (see the module docstring):
    the oracle under every reading, the gold replay, the criteria, a do-nothing and a
    read-only agent, the gold state; with `store`, its runs of the suite (tasks never passed,
    the most-flipping ones). Returns every finding as a `Flag` (`report.ok`: no error).

    Raises `UnknownSuiteError`/`ConfigError` for a suite that does not load, `StoreError`
    for a store that is missing or holds no run of the suite."""
    return asyncio.run(aaudit(suite, store=store))
