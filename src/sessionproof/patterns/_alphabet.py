"""The event alphabet: each session becomes a sequence of tokens.

This and `_motif_view` (what the behavioural motifs see) are the only modules of `patterns`
that read a `Session`; everything downstream works on the token strings (and then on integer
arrays) or on the motifs' `SessionView`, so a change of the event records touches these two
files alone.

Tokens, in event order (granularity in brackets: what each level adds):

- `user:text` — a user message; `user:correction` — a user message after the first that
  changes an earlier instruction, by one fixed rule (`is_correction`): its text, lower-cased,
  starts with one of `CORRECTION_OPENERS` ("actually", "no,", "wait", "instead",
  "correction", "i meant", "scratch that", "change of plan"), and a "no" is not a polite
  close ("no, that's all", "no, thanks"). `agent:text` — an assistant
  message with text and no tool calls (the tool calls an assistant message carries appear
  as `call:` tokens).
- `call:TOOL` — a tool call [tool]; `call:TOOL(a,b)` with the sorted argument names [args];
  `call_wrong_args:TOOL` — a call whose arguments did not parse as a JSON object (every level).
- `result:TOOL:ok` / `result:TOOL:error` [tool]; `result:TOOL:CLASS` with the taxonomy's error
  class (`rate_limited`, `validation_error`, ...) [outcome, args].
- `guard:DECISION` — a guard decision other than a clean pass (`guard:retry`, `guard:repair`,
  `guard:escalate`, `guard:breaker_open`, ...).
- `drift:KIND` [tool]; `drift:KIND:TOOL` [outcome, args] — a schema drift took effect (an
  announced drift that changed no tool adds nothing).
- `end:REASON` — the termination reason (`end:user_stop`, `end:transfer`, `end:max_steps`...).

A batch of parallel calls reads call, result, call, result in live runs and in imported
logs alike (a log lists the calls, then the results; `_interleaved` puts them in the live
order), so the alphabet is the same for both.

Injected faults add no token of their own: the result they cause carries the class, so a live
run with faults and an imported transcript with the same failure read the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise

from ..records import (
    AssistantMessageEvent,
    EventKind,
    Session,
    ToolCall,
    ToolCallEvent,
    ToolResult,
    ToolResultEvent,
    UserMessageEvent,
)
from ..records._internal import DriftAppliedEvent, GuardDecisionEvent

CORRECTION_OPENERS = (
    "actually",
    "no,",
    "no.",
    "no!",
    "wait",
    "instead",
    "correction",
    "i meant",
    "scratch that",
    "change of plan",
)
"""How a user message that takes back an earlier instruction opens (see `is_correction`)."""

_OPENER = re.compile(r"^(?:" + "|".join(re.escape(o) for o in CORRECTION_OPENERS) + r")(?![a-z])")
_CLOSE = re.compile(r"^no[,.!]?\s*(?:that['’]s all|thanks|thank you|nothing)")
_LEADING = re.compile(r"^[\s\"'“‘(*_-]+")


def is_correction(text: str | None) -> bool:
    """True when a (later) user message opens like a correction: lower-cased, leading quotes,
    spaces and markup stripped, it starts with one of `CORRECTION_OPENERS` as whole words
    ("actually, make it two", "No, the other order"; not "nothing else", "waiting" or the
    polite close "No, that's all, thanks")."""
    if not text:
        return False
    opening = _LEADING.sub("", text.lower())
    return _OPENER.match(opening) is not None and _CLOSE.match(opening) is None


class Granularity(StrEnum):
    """How much of each event a token keeps (see the module docstring)."""

    tool = "tool"
    """Tool names; results only ok / error."""
    outcome = "outcome"
    """Tool names and each result's error class (the default)."""
    args = "args"
    """As `outcome`, and each call's argument names."""


@dataclass(frozen=True)
class SessionTokens:
    """One session as tokens, with the agent step of each token."""

    session_id: str
    scenario_id: str
    arm: str
    success: bool | None
    """The verdict; None when the session was not judged or ended in infra_error."""
    tokens: tuple[str, ...]
    steps: tuple[int, ...]
    """The trace step of each token (for precursors and prefixes by step)."""


def _call_token(call: ToolCall, granularity: Granularity) -> str:
    if call.arguments is None and call.raw_arguments is not None:
        return f"call_wrong_args:{call.name}"
    if granularity is Granularity.args:
        names = ",".join(sorted(call.arguments or {}))
        return f"call:{call.name}({names})"
    return f"call:{call.name}"


def _result_token(result: ToolResult, granularity: Granularity) -> str:
    if result.error_class is None:
        return f"result:{result.name}:ok"
    if granularity is Granularity.tool:
        return f"result:{result.name}:error"
    return f"result:{result.name}:{result.error_class.value}"


def _call_id(e: object) -> tuple[str, str] | None:
    if isinstance(e, ToolCallEvent):
        return ("call", e.payload.id)
    if isinstance(e, ToolResultEvent):
        return ("result", e.payload.call_id)
    return None


def _interleaved(
    tokens: list[str], steps: list[int], ids: list[tuple[str, str] | None]
) -> tuple[list[str], list[int]]:
    """Each batch of parallel calls as call, its result, call, its result.

    A live run executes a batch one call at a time (call, result, call, result); a chat log
    lists the batch's calls, then their results. A run of consecutive calls followed at once
    by a run of results answering them is put in the live order, so both read the same.
    """
    order: list[int] = []
    i, n = 0, len(tokens)

    def run_of(start: int, what: str) -> list[str]:
        found: list[str] = []
        while start + len(found) < n and (key := ids[start + len(found)]) and key[0] == what:
            found.append(key[1])
        return found

    while i < n:
        calls = run_of(i, "call")
        answers = run_of(i + len(calls), "result")
        by_call = {cid: i + len(calls) + r for r, cid in enumerate(answers)}
        batch = len(calls) >= 2 and answers and len(by_call) == len(answers) <= len(calls)
        if batch and set(by_call) <= set(calls):
            for c, cid in enumerate(calls):
                order.append(i + c)
                if cid in by_call:
                    order.append(by_call[cid])
            i += len(calls) + len(answers)
            continue
        order.append(i)
        i += 1
    return [tokens[x] for x in order], [steps[x] for x in order]


_TOKEN_KINDS = {
    kind: rank
    for rank, kind in enumerate(
        (
            EventKind.user_message,
            EventKind.assistant_message,
            EventKind.tool_call,
            EventKind.tool_result,
            EventKind.guard_decision,
            EventKind.drift_applied,
            EventKind.end,
        )
    )
}
"""The kinds of event a token can come from (each kind's place breaks a tie in `seq`)."""


def tokenize(session: Session, granularity: Granularity = Granularity.outcome) -> SessionTokens:
    """The session's token sequence at `granularity`."""
    tokens: list[str] = []
    steps: list[int] = []
    # One pass over the trace for the kinds that make tokens, in trace order (by `seq`; the
    # kinds' order breaks a tie, as it always has).
    events = [e for e in session.events if e.kind in _TOKEN_KINDS]
    if any(b.seq <= a.seq for a, b in pairwise(events)):
        events.sort(key=lambda e: (e.seq, _TOKEN_KINDS[e.kind]))
    users = 0
    ids: list[tuple[str, str] | None] = []
    for e in events:
        token: str | None = None
        if isinstance(e, UserMessageEvent):
            # The first user message sets the task; only later ones can correct it.
            later = users > 0
            users += 1
            token = "user:correction" if later and is_correction(e.payload.content) else "user:text"
        elif isinstance(e, AssistantMessageEvent):
            if not e.payload.tool_calls and e.payload.content:
                token = "agent:text"
        elif isinstance(e, ToolCallEvent):
            token = _call_token(e.payload, granularity)
        elif isinstance(e, ToolResultEvent):
            token = _result_token(e.payload, granularity)
        elif isinstance(e, GuardDecisionEvent):
            decision = str(e.payload.decision.value)
            if decision and decision != "pass":
                token = f"guard:{decision}"
        elif isinstance(e, DriftAppliedEvent):
            if not e.payload.applied:
                continue  # nothing changed: the session met no drift
            kind = str(e.payload.kind or "unknown")
            tool = str(e.payload.tool or "")
            fine = granularity is not Granularity.tool and tool
            token = f"drift:{kind}:{tool}" if fine else f"drift:{kind}"
        else:
            token = f"end:{session.termination.value}"
        if token is not None:
            tokens.append(token)
            steps.append(e.step)
            ids.append(_call_id(e))
    tokens, steps = _interleaved(tokens, steps, ids)
    if not any(t.startswith("end:") for t in tokens):
        tokens.append(f"end:{session.termination.value}")
        steps.append(steps[-1] if steps else 0)
    return SessionTokens(
        session_id=session.session_id,
        scenario_id=session.scenario_id,
        arm=session.arm,
        success=session.verdict,  # None when not judged: neither a failure nor a success
        tokens=tuple(tokens),
        steps=tuple(steps),
    )
