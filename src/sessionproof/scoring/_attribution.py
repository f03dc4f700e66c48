"""Failure source: was a failed session the agent's doing, the simulated user's, the
environment's, or the infrastructure's?

Rules, in this order; the first that holds decides, and its evidence is kept:

1. **infra** — the session ended in `infra_error` (the provider or harness gave up).
2. **environment** — a tool call failed in a way the scenario did not plan and no later call of
   the same tool succeeded: a *natural* (not injected) `timeout`, `server_error`, `unavailable`
   or `rate_limited`; or an *injected* fault the agent could not be expected to survive
   without a guard: a class whose taxonomy action is `escalate` (nothing the agent does
   completes the call), or a fault that persisted through at least two attempts of the same
   call. Other injected faults are the condition's planned test of the agent: not surviving
   them is the agent's failure. Not applied when the agent's first divergence was a wrong
   action of its own (wrong_tool, wrong_argument, extra_write).
3. **user** (simulated users only; a scripted user's turns are the scenario itself):
   (a) the user ended the session (`user_stop`) while a gold write was still pending, the
   agent's decisions were on a correct path up to its final reply, and that reply's last
   question asked the user to confirm an action ("Do you confirm...?", "Shall I proceed?"):
   the agent was waiting for the go-ahead tau2's policies require before a write, and the
   user stopped instead of giving or refusing it; or
   (b) a user message, before the agent's first divergence, states a fact absent from the
   user's instructions and persona and from everything the agent said before it. A *fact* is
   an e-mail address or a token with at least three digits (order ids, ZIP codes, phone
   numbers, amounts); comparison ignores case, `#`, `$` and thousands separators. This is a
   cheap heuristic: it can credit the user with a number it merely computed.
4. **agent** — otherwise, with the first divergence or the failed criteria as evidence.

Without the scenario, rules 3 and 4 cannot be told apart, so such a failure is left
undetermined rather than charged to the agent.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ..records import (
    AssistantMessageEvent,
    ErrorClass,
    Scenario,
    Session,
    TerminationReason,
    UserMessageEvent,
)
from ..taxonomy import ErrorAction, semantics
from ._survival import DivergenceClass, SessionSurvival
from ._trace import TraceCache, calls_of, made_once

ATTRIBUTION_DEFINITIONS: dict[str, str] = {
    "failure_source": "each failed session (and each infra_error session) attributed, first "
    "rule wins: infra (ended in infra_error); environment (an unrecovered natural timeout, "
    "server_error, unavailable or rate_limited, or an injected fault no agent could survive "
    "unguarded: escalate-class, or failing two attempts of the same call); user (a simulated "
    "user stopped while a gold write was pending and the on-path agent had just asked it to "
    "confirm the action, or stated an e-mail/number found neither in its instructions nor "
    "in what the agent told it); agent (otherwise). Without a scenario, non-infra, non-environment "
    "failures are left undetermined.",
}


class FailureSource(StrEnum):
    """Who a failed session is charged to."""

    agent = "agent"
    user = "user"
    environment = "environment"
    infra = "infra"


class Attribution(BaseModel):
    """One failed session's source and the evidence for it."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    scenario_id: str
    trial: int
    source: FailureSource | None
    """None when it cannot be determined (no scenario)."""
    rule: str
    """Which rule decided: infra_error, natural_tool_error, unsurvivable_fault,
    user_stopped_before_write, user_invented_fact, agent, undetermined."""
    evidence: str


class AttributionReport(BaseModel):
    """Failure sources over a run."""

    model_config = ConfigDict(extra="forbid")

    failed: int = 0
    """Failed judged sessions plus infra_error sessions."""
    by_source: dict[str, int] = Field(default_factory=dict)
    by_rule: dict[str, int] = Field(default_factory=dict)
    undetermined: int = 0
    sessions: list[Attribution] = Field(default_factory=list)


_NATURAL_ENVIRONMENT = frozenset(
    {ErrorClass.timeout, ErrorClass.server_error, ErrorClass.unavailable, ErrorClass.rate_limited}
)
_AGENT_ACTIONS = frozenset(
    {DivergenceClass.wrong_tool, DivergenceClass.wrong_argument, DivergenceClass.extra_write}
)


def _environment(
    session: Session, survival: SessionSurvival | None, traces: TraceCache | None
) -> tuple[str, str] | None:
    divergence = survival.divergence if survival else None
    if divergence is not None and divergence.kind in _AGENT_ACTIONS:
        return None
    calls = calls_of(session, traces)
    for i, traced in enumerate(calls):
        result = traced.result
        if result is None or result.error_class is None:
            continue
        later = calls[i + 1 :]
        if any(c.call.name == traced.call.name and not c.failed for c in later):
            continue
        cls = result.error_class
        where = f"{traced.call.name} at step {traced.step}"
        if not result.injected:
            if cls in _NATURAL_ENVIRONMENT:
                return "natural_tool_error", f"natural {cls.value} on {where}, never recovered"
            continue
        if semantics(cls).action is ErrorAction.escalate:
            return (
                "unsurvivable_fault",
                f"injected {cls.value} on {where}: an escalate-class failure no agent action "
                "completes",
            )
        resent = sum(
            1
            for c in later
            if c.call.name == traced.call.name and c.call.arguments == traced.call.arguments
        )
        attempts = max(traced.injected_attempts, 1) + resent
        if attempts >= 2:
            return (
                "unsurvivable_fault",
                f"injected {cls.value} on {where} persisted through {attempts} attempts",
            )
    return None


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_TOKEN = re.compile(r"[#$]?\w[\w.\-/]*")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


def _normal(text: str) -> str:
    return _THOUSANDS.sub("", text).lower().replace("#", "").replace("$", "")


def facts_in(text: str) -> set[str]:
    """E-mail addresses and tokens with at least three digits, normalised for comparison."""
    text = _THOUSANDS.sub("", text)
    found = {m.lower().rstrip(".") for m in _EMAIL.findall(text)}
    if sum(map(str.isdigit, text)) < 3:
        return found  # no token can hold three digits
    for token in _TOKEN.findall(_EMAIL.sub(" ", text)):
        cleaned = token.lstrip("#$").strip(".-/")
        if sum(map(str.isdigit, cleaned)) >= 3:
            found.add(cleaned.lower())
    return found


@functools.lru_cache(maxsize=256)
def _given(instructions: str | None, persona: str | None, turns: tuple[str, ...]) -> str:
    """A user spec's own text, normalised: the same for every trial of a scenario."""
    return _normal(" ".join(filter(None, [instructions, persona, *turns])))


def invented_facts(session: Session, scenario: Scenario) -> list[tuple[int, str]]:
    """(step, fact) for each fact a simulated user stated that it was never given.

    A fact is given when it appears in the user's instructions, persona or scripted turns, or
    in any assistant message before the user's message. Empty for scripted users.
    """
    if scenario.user.scripted:
        return []
    spec = scenario.user
    known = _given(spec.instructions, spec.persona, tuple(spec.turns or ()))
    found: list[tuple[int, str]] = []
    for event in session.events:
        if isinstance(event, AssistantMessageEvent):
            known += " " + _normal(event.payload.content or "")
        elif isinstance(event, UserMessageEvent):
            content = event.payload.content or ""
            found.extend((event.step, f) for f in sorted(facts_in(content)) if f not in known)
    return found


def _last_text(session: Session, kind: type[UserMessageEvent | AssistantMessageEvent]) -> str:
    for event in reversed(session.events_of(kind)):
        text = (event.payload.content or "").strip()
        if text:
            return text
    return ""


_QUESTION = re.compile(r"[^.!?\n]*\?")
_CONFIRM = re.compile(
    r"\b(confirm|proceed|go ahead|shall i|should i|want me to|like me to|ok(ay)? to)\b", re.I
)


def confirmation_request(reply: str) -> str | None:
    """The reply's last question when it asks the user to confirm an action, else None.

    "Do you confirm I should cancel it?" counts; "Anything else I can help with?" does not.
    """
    questions = _QUESTION.findall(reply)
    last = questions[-1].strip() if questions else ""
    return last if last and _CONFIRM.search(last) else None


def _user(
    session: Session, scenario: Scenario, survival: SessionSurvival | None
) -> tuple[str, str] | None:
    if scenario.user.scripted:
        return None
    divergence = survival.divergence if survival else None
    if (
        divergence is not None
        and divergence.kind is DivergenceClass.missing_call
        and divergence.decision == "stop"
        and session.termination is TerminationReason.user_stop
    ):
        asked = confirmation_request(_last_text(session, AssistantMessageEvent))
        if asked is not None:
            answer = _last_text(session, UserMessageEvent)
            return (
                "user_stopped_before_write",
                f"the simulated user ended the session with a gold write pending "
                f"({divergence.detail}); the agent, on path, had asked {asked[-200:]!r} and "
                f"the user's last message was {answer[-200:]!r}",
            )
    limit = divergence.step if divergence else None
    invented = [(s, f) for s, f in invented_facts(session, scenario) if limit is None or s <= limit]
    if invented:
        shown = ", ".join(f"{f!r} (step {s})" for s, f in invented[:5])
        return (
            "user_invented_fact",
            f"the simulated user stated facts found neither in its instructions nor in what the "
            f"agent told it: {shown}",
        )
    return None


def _agent_evidence(session: Session, survival: SessionSurvival | None) -> str:
    if survival is not None and survival.divergence is not None:
        d = survival.divergence
        return f"first divergence at decision {d.index} (step {d.step}): {d.kind.value}: {d.detail}"
    failed = (
        [c for c in session.outcome.criteria if c.passed is not True] if session.outcome else []
    )
    why = "; ".join(f"{c.name}: {c.evidence}" for c in failed) or "no criterion recorded"
    return f"on path, but failed: {why}"


def _verdict(
    session: Session, source: FailureSource | None, rule: str, evidence: str
) -> Attribution:
    return Attribution(
        session_id=session.session_id,
        scenario_id=session.scenario_id,
        trial=session.trial,
        source=source,
        rule=rule,
        evidence=evidence,
    )


def attribute_failure(
    session: Session,
    scenario: Scenario | None,
    survival: SessionSurvival | None = None,
    traces: TraceCache | None = None,
) -> Attribution | None:
    """The source of one session's failure; None when the session did not fail (or was not
    judged). `survival` is the session's survival, when it could be computed; `traces` the
    traced calls shared with the other metrics (and where the source is made once)."""
    return made_once(traces, "source", (session, scenario, survival), _source, traces)


def _source(
    session: Session,
    scenario: Scenario | None,
    survival: SessionSurvival | None,
    traces: TraceCache | None,
) -> Attribution | None:
    if session.infra_error:
        detail = session.termination_detail or "the session ended in infra_error"
        return _verdict(session, FailureSource.infra, "infra_error", detail)
    if session.verdict is not False:
        return None  # a success, or not judged: neither is a failure to attribute
    env = _environment(session, survival, traces)
    if env is not None:
        return _verdict(session, FailureSource.environment, *env)
    if scenario is None:
        why = "scenario unavailable: the user-side checks cannot run, so the failure is not "
        return _verdict(session, None, "undetermined", why + "charged to the agent")
    user = _user(session, scenario, survival)
    if user is not None:
        return _verdict(session, FailureSource.user, *user)
    return _verdict(session, FailureSource.agent, "agent", _agent_evidence(session, survival))


def attribute_failures(
    sessions: Sequence[Session],
    scenarios: Mapping[str, Scenario],
    survivals: Mapping[str, SessionSurvival],
    traces: TraceCache | None = None,
) -> AttributionReport:
    """Failure sources of every failed or infra_error session (survivals by session id;
    `traces`: the traced calls shared with the other metrics)."""
    report = AttributionReport()
    sources: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    for session in sessions:
        found = attribute_failure(
            session,
            scenarios.get(session.scenario_id),
            survivals.get(session.session_id),
            traces,
        )
        if found is None:
            continue
        report.failed += 1
        report.sessions.append(found)
        rules[found.rule] += 1
        if found.source is None:
            report.undetermined += 1
        else:
            sources[found.source.value] += 1
    report.by_source = {s.value: sources[s.value] for s in FailureSource}
    report.by_rule = dict(rules.most_common())
    return report
