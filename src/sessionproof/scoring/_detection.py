"""Fault detection and fault recovery of one session, from its trace alone.

A **fault** is one faulted tool call: the first `fault_injected` (explicit: the agent saw an
error) or `implicit_fault` (implicit: the call answered normally and was wrong) event of a call
id; a guard re-sending the same call id adds no fault. Its *kind* is the error class or the
implicit kind; it is *permanent* when its payload says so (an implicit fault marked
`permanent`: every repeat in the session meets it), else *transient* (a repeat can clear it;
explicit faults are drawn afresh on every attempt, so they are transient). A fault on a call
the agent never made (a read the guard made to verify a write) is not counted.

A fault is **detected** when, after its event, the trace shows that someone noticed:

- `repeated`: the agent made the same call again (same tool, equal arguments, a new call id);
- `re_read`: the agent called the same read tool again, or, after a faulted write, any read
  tool, with one of the faulted call's id values among its arguments (an argument named `id`,
  `*_id` or camel-case `*Id`, a string or an integer: `is_id_name`);
- `cross_check`: after a faulted read, a *different* read tool with one of its id values;
- `told` / `asked`: an assistant message whose text has a problem cue (`PROBLEM_CUES`; a
  question with one is `asked`); a routine confirmation ("can you confirm you want to
  proceed?") has none and is not a detection;
- `refused`: an assistant message with a refusal cue (`REFUSAL_CUES`);
- `escalated`: a call of a `transfer*` tool;
- `guard`: a guard decision other than `pass` on the faulted call (the guard noticed, not the
  agent; reported apart in `detected_how`).

The first of these in the trace is the way it was detected. A tool is a read when the domain
says it does not write; without the domain, when its name starts with a read verb
(`READ_PREFIXES`). Cues are matched on lower-cased text and are deliberately narrow: a missed
"the order looks odd" lowers detection; a false hit would raise it for agents that noticed
nothing.

A session with faults is **recovered** when it reached its goal (verdict success), or when a
permanent fault made the goal unreachable and, after the first permanent fault, the agent
escalated (a `transfer*` call) or told the user (a problem or refusal cue). Sessions that
ended as infra_error are left out of both; sessions without a verdict are left out of recovery
(never a pass nor a failure) and counted.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..records import AssistantMessageEvent, EventKind, Session, ToolCall, ToolCallEvent
from ..records._internal import (
    Decision,
    FaultInjectedEvent,
    GuardDecisionEvent,
    ImplicitFaultEvent,
)

PROBLEM_CUES: tuple[str, ...] = (
    r"\b(?:did|does|do|has|have|had|was|were|is)(?:n't| not) (?:go through|gone through|"
    r"take effect|taken effect|succeed|succeeded|work|worked|apply|applied|update|updated|"
    r"save|saved|complete|completed|been (?:applied|updated|saved|processed|cancell?ed|"
    r"changed|modified|recorded))",
    r"\b(?:failed|failure)\b",
    r"\b(?:inconsisten(?:t|cy|cies)|discrepanc(?:y|ies)|mismatch(?:es|ed)?|"
    r"(?:does|do)(?:n't| not) match)\b",
    r"\b(?:seems?|appears?|looks?) (?:to be )?(?:wrong|incorrect|inconsistent|stale|outdated|"
    r"out of date)\b",
    r"\bsomething (?:went|is|seems|looks) wrong\b",
    r"\b(?:an? )?(?:error|problem) (?:occurred|happened)\b",
    r"\b(?:unable|not able) to (?:confirm|verify|complete|process)\b",
    r"\bcould(?:n't| not) (?:confirm|verify|complete|process)\b",
    r"\b(?:double[- ]check|re-?check|check again|look again)\b",
    r"\bverify (?:that|whether|if) (?:the|your|it|this)\b",
    r"\bstill (?:shows?|showing|says|lists?|reads?)\b",
)
"""Text that says something went wrong (lower-cased, regular expressions)."""

REFUSAL_CUES: tuple[str, ...] = (
    r"\bi (?:can(?:'|no)t|won't|will not|am unable to|'m unable to) (?:proceed|continue|"
    r"complete (?:this|the|your))\b",
)
"""Text that refuses to go on."""

READ_PREFIXES: tuple[str, ...] = (
    "get",
    "list",
    "find",
    "search",
    "read",
    "lookup",
    "fetch",
    "query",
    "show",
    "describe",
    "view",
    "check",
)
"""Name prefixes of read tools when the domain is not known."""

_PROBLEM = re.compile("|".join(PROBLEM_CUES))
_REFUSAL = re.compile("|".join(REFUSAL_CUES))
_SPLIT = re.compile(r"[_.\-]|(?<=[a-z])(?=[A-Z])")


@dataclass(frozen=True)
class Fault:
    """One faulted call of a session and whether (and how) it was detected."""

    call_id: str
    tool: str
    kind: str
    """The error class (explicit) or the implicit kind."""
    implicit: bool
    permanent: bool
    index: int
    """Position of its first fault event in the session's events."""
    how: str | None
    """The first detection rule that fired (None: not detected)."""

    @property
    def detected(self) -> bool:
        """True when some rule saw it noticed."""
        return self.how is not None


def text_cue(text: str) -> str | None:
    """`asked`, `told` or `refused` when the text carries a cue; None otherwise."""
    low = text.lower().replace("\u2019", "'")
    if _PROBLEM.search(low):
        return "asked" if "?" in low else "told"
    if _REFUSAL.search(low):
        return "refused"
    return None


def is_read(tool: str, writes: Collection[str] | None) -> bool:
    """True for a read tool: not among `writes` when the domain's writes are known, else a
    name starting with a read verb."""
    if tool.startswith("transfer"):
        return False
    if writes is not None:
        return tool not in writes
    first = _SPLIT.split(tool, maxsplit=1)[0].lower()
    return first in READ_PREFIXES


def is_id_name(name: str) -> bool:
    """An argument that names an entity: `id`, `*_id` / `*-id`, or camel-case `*Id` / `*ID`."""
    return (
        name.lower() in ("id", "_id")
        or name.lower().endswith(("_id", "-id"))
        or (len(name) > 2 and name.endswith(("Id", "ID")) and name[-3].islower())
    )


def _id_values(call: ToolCall) -> set[str]:
    found: set[str] = set()
    for key, value in (call.arguments or {}).items():
        if not is_id_name(key):
            continue
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            found.add(str(value))
    return found


class _Trace:
    """The events of one session that the rules read, in order."""

    def __init__(self, session: Session) -> None:
        self.calls: dict[str, ToolCall] = {}
        self.later_calls: list[tuple[int, ToolCall]] = []
        self.cues: list[tuple[int, str]] = []
        self.guard: list[tuple[int, str]] = []
        self.faults: list[tuple[int, str, str, str, bool, bool]] = []
        self._seen: set[str] = set()
        for i, event in enumerate(session.events):
            if isinstance(event, ToolCallEvent):
                call = event.payload
                self.calls.setdefault(call.id, call)
                self.later_calls.append((i, call))
                if call.name.startswith("transfer"):
                    self.cues.append((i, "escalated"))
            elif isinstance(event, AssistantMessageEvent) and event.payload.content:
                cue = text_cue(event.payload.content)
                if cue is not None:
                    self.cues.append((i, cue))
            elif isinstance(event, GuardDecisionEvent):
                decided = event.payload
                if decided.decision is not Decision.pass_ and decided.call_id:
                    self.guard.append((i, decided.call_id))
            elif isinstance(event, FaultInjectedEvent) and event.payload.side == "agent":
                # (a fault on the user's own tools is none the agent could detect)
                p = event.payload
                # A plan that marks explicit faults permanent says so on its payload.
                permanent = bool(getattr(p, "permanent", False))
                self._fault(i, p.call_id, p.tool, p.error_class.value, False, permanent)
            elif isinstance(event, ImplicitFaultEvent) and event.payload.side == "agent":
                q = event.payload
                self._fault(i, q.call_id, q.tool, q.fault.value, True, q.permanent)

    def _fault(
        self, i: int, call_id: str, tool: str, kind: str, implicit: bool, permanent: bool
    ) -> None:
        # A guard re-sending the call adds no fault; a call the agent never made (a read the
        # guard made itself to verify a write) is none of the agent's faults.
        if call_id not in self._seen and call_id in self.calls:
            self._seen.add(call_id)
            self.faults.append((i, call_id, tool, kind, implicit, permanent))

    def how(
        self, index: int, call_id: str, tool: str, writes: Collection[str] | None
    ) -> str | None:
        """The first rule (in trace order) by which the fault at `index` was noticed."""
        found: list[tuple[int, str]] = []
        call = self.calls.get(call_id)
        ids = _id_values(call) if call is not None else set()
        read = is_read(tool, writes)
        for i, later in self.later_calls:
            if i <= index or later.id == call_id:
                continue
            if call is not None and later.name == tool and later.arguments == call.arguments:
                found.append((i, "re_read" if read else "repeated"))
                break
            if ids and is_read(later.name, writes) and ids & _id_values(later):
                found.append((i, "re_read" if later.name == tool or not read else "cross_check"))
                break
        found += [(i, cue) for i, cue in self.cues if i > index][:1]
        found += [(i, "guard") for i, cid in self.guard if i >= index and cid == call_id][:1]
        return min(found)[1] if found else None


_FAULT_EVENTS = frozenset({EventKind.fault_injected, EventKind.implicit_fault})


def met_a_fault(session: Session) -> bool:
    """True when an explicit or implicit tool fault was injected into `session`: one pass over
    its event kinds, so the walks that read the faults skip the sessions that met none."""
    return any(event.kind in _FAULT_EVENTS for event in session.events)


def session_faults(session: Session, writes: Collection[str] | None = None) -> list[Fault]:
    """Every faulted call of `session`, in order, each with how it was detected (or None).

    `writes`: the names of the domain's write tools (None: told apart by name)."""
    if not met_a_fault(session):
        return []
    trace = _Trace(session)
    return [
        Fault(call_id, tool, kind, implicit, permanent, i, trace.how(i, call_id, tool, writes))
        for i, call_id, tool, kind, implicit, permanent in trace.faults
    ]


def informed_after(session: Session, index: int) -> bool:
    """True when, after event `index`, the agent escalated or said there was a problem."""
    for i, event in enumerate(session.events):
        if i <= index:
            continue
        if isinstance(event, ToolCallEvent) and event.payload.name.startswith("transfer"):
            return True
        if (
            isinstance(event, AssistantMessageEvent)
            and event.payload.content
            and text_cue(event.payload.content) is not None
        ):
            return True
    return False


def session_recovered(session: Session, faults: list[Fault]) -> bool | None:
    """Whether a session with faults recovered (the module docstring's rule); None when it
    has no fault or no verdict (infra_error included)."""
    if not faults or session.infra_error or session.verdict is None:
        return None
    if session.verdict:
        return True
    permanent = [f.index for f in faults if f.permanent]
    return bool(permanent) and informed_after(session, min(permanent))
