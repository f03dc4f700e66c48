"""Each metric of one session as a `gen_ai.evaluation.result` event on the span it judges.

The GenAI conventions' evaluation event (`gen_ai.evaluation.name` required; `score.value`,
`score.label` when they apply; `explanation` recommended) is parented to the span evaluated.
Session-level metrics judge the `invoke_agent` span: error recovery, fault detection and
fault recovery (sessions that met a fault), survival by depth (how far
the session stayed on a correct path, and how it left it), and the failure source. Per-call
metrics judge that call's `execute_tool` span: call validity and single-call accuracy. The
verdict and its criteria are made by `_spans` (they carry what an import rebuilds). Metrics that
need the scenario are left out when it is not available, as `metrics` leaves them out. Every
registered metric beyond the built-ins (a plug-in's, a user's) whose placement is the session
span judges the `invoke_agent` span too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from ..domains import DomainSpec, get_domain
from ..errors import SessionproofError
from ..records import Scenario, Session
from ..scoring import SessionInput
from ..scoring._internal import (
    CallValidators,
    SessionSurvival,
    attribute_failure,
    call_values,
    check_calls,
    error_recovery,
    registered_user_metrics,
    session_faults,
    session_recovered,
    session_survival,
    session_value,
    survival_skip_reason,
)
from ..suites import load_suite

DomainFor = Callable[[Scenario], DomainSpec]

RECOVERY = "error_recovery_rate"
SURVIVAL = "survival_by_depth"
FAILURE_SOURCE = "failure_source"
VALIDITY = "call_validity_rate"
CALL_ACCURACY = "single_call_accuracy"
DETECTION = "fault_detection_rate"
FAULT_RECOVERY = "fault_recovery_rate"


@dataclass(frozen=True)
class Evaluation:
    """One metric's value for a session (`call_id` None) or for one of its tool calls."""

    name: str
    value: float | None = None
    label: str | None = None
    explanation: str | None = None
    call_id: str | None = None


def _recovery(session: Session) -> Evaluation | None:
    report = error_recovery([session])
    total = report.overall
    if not total.failures or total.rate is None:
        return None
    label = (
        "recovered"
        if total.recovered == total.failures
        else ("unrecovered" if total.recovered == 0 else "partly_recovered")
    )
    why = f"{total.recovered} of {total.failures} tool failures recovered"
    if report.injected.failures:
        why += f" ({report.injected.failures} injected)"
    return Evaluation(RECOVERY, total.rate, label, why)


def _faults(session: Session, spec: DomainSpec | None) -> list[Evaluation]:
    """Detection and recovery of the session's faults (none without a fault, or for an
    infra_error session; recovery only with a verdict)."""
    if session.infra_error:
        return []
    writes = None if spec is None else {t.name for t in spec.tools() if t.write}
    faults = session_faults(session, writes)
    if not faults:
        return []
    seen = sum(f.detected for f in faults)
    label = "detected" if seen == len(faults) else "undetected" if not seen else "partly_detected"
    how = sorted({f.how for f in faults if f.how is not None})
    why = f"{seen} of {len(faults)} faulted calls noticed" + (f" ({', '.join(how)})" if how else "")
    out = [Evaluation(DETECTION, seen / len(faults), label, why)]
    recovered = session_recovered(session, faults)
    if recovered is not None:
        kinds = ", ".join(sorted({f.kind for f in faults}))
        out.append(
            Evaluation(
                FAULT_RECOVERY,
                float(recovered),
                "recovered" if recovered else "unrecovered",
                f"after faults of kind {kinds}",
            )
        )
    return out


def _survival(session: Session, scenario: Scenario, spec: DomainSpec) -> SessionSurvival | None:
    if survival_skip_reason(session, scenario) is not None:
        return None
    if not any(t.write for t in spec.tools()):
        return None  # no state path to follow, as the run's metrics say
    return session_survival(session, scenario, spec)


def _calls(
    session: Session, scenario: Scenario, spec: DomainSpec, validators: CallValidators | None
) -> list[Evaluation]:
    out: list[Evaluation] = []
    for check in check_calls(session, scenario, spec, validators):
        if check.valid is not None:
            out.append(
                Evaluation(
                    VALIDITY,
                    float(check.valid),
                    "valid" if check.valid else "invalid",
                    check.invalid_reason,
                    check.call_id,
                )
            )
        if check.targets_gold_tool:
            matched = check.matched_gold is not None
            out.append(
                Evaluation(
                    CALL_ACCURACY,
                    float(matched),
                    "matched" if matched else "unmatched",
                    f"paired with expected call {check.matched_gold}" if matched else None,
                    check.call_id,
                )
            )
    return out


def session_evaluations(
    session: Session,
    scenario: Scenario | None,
    spec: DomainSpec | None,
    *,
    replay: bool = True,
    validators: CallValidators | None = None,
) -> list[Evaluation]:
    """Every metric of `session` that can be computed (the verdict aside). `replay` False
    leaves out the metrics that replay the gold path on fresh databases — survival by depth,
    and the failure source, which reads it — the costliest by far (about a run's own CPU).
    `validators`: the run's tool-schema validators, kept across its sessions."""
    out: list[Evaluation] = []
    if (recovery := _recovery(session)) is not None:
        out.append(recovery)
    out.extend(_faults(session, spec))
    survival = None
    if scenario is not None and spec is not None and not session.infra_error:
        survival = _survival(session, scenario, spec) if replay else None
        if survival is not None:
            div = survival.divergence
            value = survival.survived / survival.decisions if survival.decisions else 1.0
            out.append(
                Evaluation(
                    SURVIVAL,
                    value,
                    "on_path" if div is None else div.kind.value,
                    f"{survival.survived} of {survival.decisions} decisions on a correct path"
                    + ("" if div is None else f"; then {div.detail}"),
                )
            )
        out.extend(_calls(session, scenario, spec, validators))
    out.extend(registered_evaluations(session, scenario, spec))
    if not replay:
        return out
    blame = attribute_failure(session, scenario, survival)
    if blame is not None:
        source = "undetermined" if blame.source is None else blame.source.value
        out.append(Evaluation(FAILURE_SOURCE, None, source, f"{blame.rule}: {blame.evidence}"))
    return out


def registered_evaluations(
    session: Session, scenario: Scenario | None, spec: DomainSpec | None
) -> list[Evaluation]:
    """The values of every registered metric other than the built-ins, by placement: the
    session's value on the session span, each call's on that call's span (`call_id`). A
    session a metric leaves out (not judged, not applicable) gets no event; one whose value
    raised gets a `missing` label with the reason, on the session span.
    A metric that does not load is left out here (`metrics` and the report say why)."""
    out: list[Evaluation] = []
    item: SessionInput | None = None
    for name, found in registered_user_metrics()[0].items():
        span = found.placement.span
        if span == "none" or (found.judged_only and session.verdict is None):
            continue
        item = item or SessionInput(session, scenario, spec)
        if span == "call":
            values, why = call_values(found, item)
            out.extend(Evaluation(name, v, call_id=cid) for cid, v in values.items())
            if why is not None:
                out.append(Evaluation(name, None, "missing", why))
            continue
        value, why = session_value(found, item)
        if why is not None:
            out.append(Evaluation(name, None, "missing", why))
        elif value is not None:
            out.append(Evaluation(name, value))
    return out


class Scenarios:
    """Finds the scenario and the domain of a session: the scenario embedded in the session's
    metadata, else the named suite's (loaded once, on first need; a suite that does not
    load leaves the scenario-bound metrics out)."""

    def __init__(
        self,
        suite: str | None,
        extra: Mapping[str, Scenario] | None = None,
        *,
        replay: bool = True,
    ) -> None:
        self.suite = suite
        self.replay = replay
        self.known: dict[str, Scenario] = dict(extra or {})
        self.loaded = not suite
        self.domain_for: DomainFor = lambda scenario: get_domain(scenario.domain)
        # Built once per tool for the whole run, as `call_accuracy` builds them.
        self.validators = CallValidators()

    def _load(self) -> None:
        self.loaded = True
        try:
            suite = load_suite(str(self.suite))
        except SessionproofError:
            return
        # The suite's own lookup: a benchmark suite may build its domains per scenario.
        self.domain_for = suite.domain_for
        for s in suite.scenarios:
            self.known.setdefault(s.id, s)

    def find(self, session: Session) -> tuple[Scenario | None, DomainSpec | None]:
        """(scenario, domain) of `session`, or (None, None)."""
        raw = session.metadata.get("scenario")
        scenario = None
        if isinstance(raw, dict):
            try:
                scenario = Scenario.model_validate(raw)
            except ValidationError:
                scenario = None
        if scenario is None:
            if session.scenario_id not in self.known and not self.loaded:
                self._load()
            scenario = self.known.get(session.scenario_id)
        if scenario is None:
            return None, None
        try:
            return scenario, self.domain_for(scenario)
        except SessionproofError:
            return scenario, None

    def evaluations(self, session: Session) -> list[Evaluation]:
        """`session_evaluations` with the session's scenario, when it is found."""
        scenario, spec = self.find(session)
        return session_evaluations(
            session, scenario, spec, replay=self.replay, validators=self.validators
        )


def by_call(evaluations: Sequence[Evaluation]) -> dict[str | None, list[Evaluation]]:
    """Evaluations grouped by the call they judge (None: the session)."""
    out: dict[str | None, list[Evaluation]] = {}
    for e in evaluations:
        out.setdefault(e.call_id, []).append(e)
    return out
