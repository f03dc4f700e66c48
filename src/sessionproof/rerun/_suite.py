"""The suite the engine runs for a rerun: one scenario per transcript, each judged by the
evaluator its original was scored with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..domains import Domain, DomainSpec
from ..records import CriterionResult, Outcome, Scenario, Session
from ..suites import NLJudge, Suite
from ..suites._internal import judge_named
from ._report import JudgedBy


def _unjudged(name: str, evidence: str) -> Outcome:
    """A verdict that is none: the session is neither a pass nor a failure."""
    return Outcome(
        success=False,
        reward=0.0,
        criteria=[CriterionResult(name=name, passed=None, evidence=evidence)],
        not_judged=evidence,
    )


class RerunSuite(Suite):
    """Transcripts as scenarios. A benchmark's task keeps its own reward (the judge its package
    registered); a scenario with criteria (or the reference state of a successful log) gets
    the generic verdict."""

    def __init__(
        self,
        name: str,
        scenarios: list[Scenario],
        judged_by: Mapping[str, JudgedBy],
        judge: NLJudge | None = None,
        recorded: Mapping[str, DomainSpec] | None = None,
        project: Suite | None = None,
        own: set[str] | None = None,
    ) -> None:
        super().__init__(name, scenarios)
        self.project = project
        """The user's project (`--suite`) whose scenarios some transcripts rerun."""
        self.own = set(own or ())
        """Scenario ids that rerun one of the project's scenarios: its domain lookup and its
        verdict apply to them."""
        self.recorded = dict(recorded or {})
        """Scenario id → the recorded-response domain it runs in (its own is not available)."""
        self.judged_by = dict(judged_by)
        """Scenario id → how its sessions are judged."""
        self.judge = judge
        """Judge for a task's NL assertions; None reports them as not evaluated."""

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The transcript's recorded responses when its domain is not available, else its
        domain."""
        recorded = self.recorded.get(scenario.id)
        if recorded is not None:
            return recorded
        if self.project is not None and scenario.id in self.own:
            return self.project.domain_for(scenario)
        return super().domain_for(scenario)

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """The verdict of the scenario's own evaluator.

        The engine adds its termination criterion, so the evaluators' own is left out. An
        evaluator that raises yields a not-evaluated verdict for this session alone.
        """
        kind = self.judged_by.get(scenario.id, "criteria")
        if kind in ("none", "recorded"):
            return _unjudged("criteria", "no criterion to judge by")
        try:
            if kind not in ("criteria", "reference_state"):
                own = judge_named(kind)
                outcome = own.evaluate(scenario, session, final_domain, self.judge)
            elif self.project is not None and scenario.id in self.own:
                outcome = self.project.evaluate(scenario, session, final_domain)
            else:
                outcome = super().evaluate(scenario, session, final_domain)
        except Exception as exc:  # one task the evaluator cannot handle must not end the run
            return _unjudged("evaluation", f"could not judge: {type(exc).__name__}: {exc}")
        kept = [c for c in outcome.criteria if c.name != "termination"]
        return outcome.model_copy(update={"criteria": kept})
