"""A run's per-session metrics made as each session ends, so that its report only sums.

A report over a run's sessions walks every one of them again: its calls against the gold
calls, its survival path through the domain, the source of its failure, its recoveries.
Made after the last session, that was ~70 ms of the ~160 ms a 600-session tau2 run spent on
its report after its last model call. Made as each session ends, the same work falls while
the run waits on the model, and `run_metrics` finds it in the cache it is given
(`TraceCache.made`, keyed by the session and what it was judged against, so a value made
against other scenarios or domains is never reused: it is made again).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..domains import DomainSpec
from ..errors import SessionproofError
from ..records import Scenario, Session
from ._attribution import attribute_failure
from ._calls import CallValidators, _check
from ._recovery import failures_of
from ._survival import session_survival
from ._survival_report import survival_skip_reason
from ._trace import GoldReplays, TraceCache


class MetricsWarmer:
    """Makes, for each session it is given, what `run_metrics` would make of it against
    `scenarios` and `domain_for`, into `traces` (pass that to `run_metrics`)."""

    def __init__(
        self,
        scenarios: Mapping[str, Scenario],
        domain_for: Callable[[Scenario], DomainSpec],
    ) -> None:
        self.traces = TraceCache()
        """The cache the made values are in."""
        self._scenarios = scenarios
        self._domain_for = domain_for
        self._specs: dict[str, DomainSpec | None] = {}
        self._validators = CallValidators()
        self._replays = GoldReplays()

    def add(self, session: Session) -> None:
        """Make `session`'s per-session metrics now. A session that cannot be judged here
        (no scenario, a domain that does not resolve, a walk that fails) is left for the
        report, which meets the same problem and reports it; nothing here raises."""
        scenario = self._scenarios.get(session.scenario_id)
        try:
            spec = None if scenario is None else self._spec(scenario)
            self._add(session, scenario, spec)
        except Exception:
            # Never the run's failure: the report makes the same value again, and whatever
            # failed here fails there, where it is reported.
            return

    def scenario(self, session: Session) -> Scenario | None:
        """The scenario `session` ran, as the warmer was given it (None: not among them)."""
        return self._scenarios.get(session.scenario_id)

    def _spec(self, scenario: Scenario) -> DomainSpec | None:
        if scenario.id not in self._specs:
            try:
                self._specs[scenario.id] = self._domain_for(scenario)
            except SessionproofError:
                self._specs[scenario.id] = None
        return self._specs[scenario.id]

    def _add(self, session: Session, scenario: Scenario | None, spec: DomainSpec | None) -> None:
        traces = self.traces
        survival = None
        if scenario is not None and spec is not None:
            if not session.infra_error:
                _check(session, scenario, spec, self._validators, traces)
            judged = survival_skip_reason(session, scenario) is None
            if judged and any(t.write for t in spec.tools()):
                survival = session_survival(session, scenario, spec, self._replays, traces)
        attribute_failure(session, scenario, survival, traces)
        if not session.infra_error:
            failures_of(session, traces)
