"""Advice: each finding mapped, through the error taxonomy and the guard's features, to the
engineering investment that would address it.

The pattern's **cause token** decides: the first failed result (its error class, read through
`taxonomy.semantics`), else a call with unparseable arguments, a drift, a guard decision, the
termination; a pattern of plain calls is a workflow matter. Ranking is by the failed sessions
each investment's findings cover together (a session counted once).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..records import ErrorClass
from ..taxonomy import ErrorAction, semantics

RETRY = "retry with backoff honouring Retry-After (guard: retry)"
SAFE_RETRY = (
    "retry reads with backoff; for writes check whether the first attempt landed before "
    "re-sending (guard: retry + no_retry_write)"
)
REPAIR = "validate arguments against the tool schema and repair before sending (guard: repair)"
DRIFT = "tolerate schema drift: re-read tool schemas, map renamed parameters (guard: repair)"
ESCALATE = "escalate instead of looping: refresh credentials or hand over (guard: escalate)"
INFORM = "have the agent read the error and change course (look the record up, tell the user)"
BREAKER = "bound the loop: detect repeated failing calls, stop early (guard: breaker)"
TRANSFER = "review the hand-over policy: transfers here end in failure"
WORKFLOW = "add a check for this sequence (confirm state before the write; a scenario test)"


class AdviceItem(BaseModel):
    """One investment, with the findings that point to it and the failures they cover."""

    model_config = ConfigDict(extra="forbid")

    investment: str
    covers_failures: float
    """Share of failed sessions holding at least one of its findings."""
    failures: int
    patterns: list[str] = Field(default_factory=list)


def _result_advice(tool: str, cls: str) -> tuple[str, str]:
    if cls == "error":
        return f"failed `{tool}`", INFORM
    try:
        sem = semantics(ErrorClass(cls))
    except ValueError:
        return f"`{cls}` on `{tool}`", INFORM
    what = f"`{cls}` on `{tool}`"
    if sem.error_class is ErrorClass.validation_error:
        return what, REPAIR
    if sem.error_class is ErrorClass.schema_mismatch:
        return what, DRIFT
    if sem.action is ErrorAction.retry:
        return "unrecovered " + what, SAFE_RETRY if sem.outcome_unknown else RETRY
    if sem.action is ErrorAction.escalate:
        return what, ESCALATE
    return what, INFORM


def advise(tokens: list[str], covers: float) -> tuple[str, str]:
    """(investment, the advice sentence) for a finding's tokens."""
    what, remedy = "", ""
    for token in tokens:
        kind, _, rest = token.partition(":")
        if kind == "result" and not rest.endswith(":ok"):
            tool, _, cls = rest.rpartition(":")
            what, remedy = _result_advice(tool, cls)
            break
        if kind == "call_wrong_args":
            what, remedy = f"unparseable arguments to `{rest}`", REPAIR
            break
        if kind == "drift":
            what, remedy = f"schema drift `{rest}`", DRIFT
            break
        if kind == "guard":
            what = f"guard `{rest}`"
            remedy = f"the guard's {rest} did not save these sessions: review its policy there"
            break
    if not remedy:
        ends = [t.partition(":")[2] for t in tokens if t.startswith("end:")]
        if ends and ends[0] == "transfer":
            what, remedy = "a transfer", TRANSFER
        elif ends and ends[0] in ("max_steps", "too_many_errors"):
            what, remedy = f"ending by {ends[0]}", BREAKER
        else:
            what, remedy = "the sequence " + " ".join(f"`{t}`" for t in tokens), WORKFLOW
    return remedy, f"{what} precedes {covers:.0%} of failures → {remedy}"


def rank_advice(items: list[tuple[str, str, set[int]]], failures: int) -> list[AdviceItem]:
    """(investment, pattern, failed rows) per finding → investments, most failures first."""
    groups: dict[str, tuple[list[str], set[int]]] = {}
    for investment, pattern, rows in items:
        names, covered = groups.setdefault(investment, ([], set()))
        names.append(pattern)
        covered |= rows
    out = [
        AdviceItem(
            investment=inv,
            covers_failures=len(rows) / failures if failures else 0.0,
            failures=len(rows),
            patterns=names,
        )
        for inv, (names, rows) in groups.items()
    ]
    return sorted(out, key=lambda a: -a.failures)
