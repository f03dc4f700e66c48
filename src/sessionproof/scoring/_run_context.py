"""What the built-in metrics of one arm share while they are computed: the sessions, each
scenario's domain (resolved once, failures kept with their reason), the trace cache, the trial
table and the summary (made once, on first use), and the survivals the failure sources read."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ..domains import DomainSpec
from ..errors import SessionproofError
from ..records import Scenario, Session
from ._summary import RunSummary, summarize
from ._survival import SessionSurvival
from ._trace import TraceCache
from .stats import Interval, pass_hat_k
from .stats._internal import TrialTable, bootstrap_ci, trial_table


class Specs:
    """Each scenario's domain spec, resolved once; failures remembered with their reason."""

    def __init__(
        self, scenarios: Mapping[str, Scenario], domain_for: Callable[[Scenario], DomainSpec]
    ) -> None:
        self.ok: dict[str, Scenario] = {}
        self.specs: dict[str, DomainSpec] = {}
        self.problems: dict[str, str] = {}
        for sid, scenario in scenarios.items():
            try:
                self.specs[sid] = domain_for(scenario)
            except SessionproofError as exc:
                self.problems[sid] = str(exc)
                continue
            self.ok[sid] = scenario

    def spec(self, scenario: Scenario) -> DomainSpec:
        """The domain of a scenario that resolved."""
        return self.specs[scenario.id]


@dataclass
class RunContext:
    """One arm's sessions and what its built-in metrics make of them once."""

    sessions: list[Session]
    specs: Specs
    traces: TraceCache
    survivals: dict[str, SessionSurvival] = field(default_factory=dict)
    """Session id → its survival, once the survival metric has made them."""

    @cached_property
    def summary(self) -> RunSummary:
        """The arm's summary (accuracy, pass^k, terminations, not judged)."""
        return summarize(self.sessions)

    @cached_property
    def table(self) -> TrialTable:
        """Verdicts by scenario, trial by trial."""
        return trial_table(self.sessions)

    @property
    def ks(self) -> list[int]:
        """The k of pass^k the summary reports."""
        return [int(k) for k in self.summary.pass_hat_k]


def bootstrap_intervals(table: TrialTable, k_values: Iterable[int]) -> dict[str, Interval]:
    """Bootstrap intervals of session accuracy and pass^k for each k (scenario resampled)."""
    out: dict[str, Interval] = {}
    # Same values, same interval (the seed is fixed): where every trial of each scenario
    # agrees, session accuracy and pass^k for every k are one list, bootstrapped once.
    done: dict[tuple[float, ...], Interval] = {}

    def interval(values: Sequence[float]) -> Interval:
        key = tuple(values)
        found = done.get(key)
        if found is None:
            found = done[key] = bootstrap_ci(values)
            return found
        return found.model_copy()  # each metric its own object

    rates = [
        sum(bool(v) for v in judged) / len(judged)
        for judged in ([v for v in t if v is not None] for t in table.values())
        if judged
    ]
    if rates:
        out["session_accuracy"] = interval(rates)
    for k in k_values:
        per = pass_hat_k(table, k).per_scenario
        if per:
            out[f"pass^{k}"] = interval(list(per.values()))
    return out
