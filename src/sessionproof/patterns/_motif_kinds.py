"""The built-in motifs: each rule, why it matters, and what addresses it.

Every rule reads only the `SessionView` (and the `MotifContext`); each is deliberately
conservative and documented in docs/patterns.md ("Motifs"). "Entity values" are the argument
values `id_values` picks (ids and amounts); a "failed call" is one whose result carries an
error class.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._motif_view import SessionView, ViewCall, id_values, mentions, tool_role
from ._motifs import FunctionMotif, MotifContext, motif

CONFIRM = "confirm before write"
VERIFY = "read before write"
GROUND = "ground arguments"
REPLAN = "back off and re-plan after an error"
LOOP = "bound read loops"
IMPLICIT = "verify after write (guard read-back)"
POLICY = "enforce the policy's reads"

YES = re.compile(
    r"\b(?:yes|yeah|yep|yup|confirm(?:ed|s)?|go ahead|proceed|please do|do it|sure|ok(?:ay)?|"
    r"correct|that'?s right|sounds good|approved?|agreed?|affirmative)\b",
    re.IGNORECASE,
)
"""A user message that says yes (write_without_confirmation)."""
ACK = re.compile(
    r"\b(?:error|fail(?:ed|s|ure)?|unable|could ?n[o']t|can ?n[o']t|cannot|not possible|"
    r"problem|issue|sorry|unfortunately|invalid|not found|did ?n[o']t work|apolog\w*)\b",
    re.IGNORECASE,
)
"""Agent text that acknowledges a problem (proceed_after_error_unacknowledged)."""


def _role(call: ViewCall, context: MotifContext) -> str:
    return tool_role(call.name, context.write_tools)


def _writes(view: SessionView, context: MotifContext) -> list[tuple[int, ViewCall]]:
    return [(i, c) for i, c in view.calls() if _role(c, context) == "write"]


def _no_writes(views: Sequence[SessionView], context: MotifContext) -> str | None:
    if any(_writes(v, context) for v in views):
        return None
    return "no session made a write call"


def _no_errors(views: Sequence[SessionView], context: MotifContext) -> str | None:
    if any(c.failed for v in views for _, c in v.calls()):
        return None
    return "no tool call failed in any session"


@motif(
    name="write_without_prior_read",
    why="a write to an entity the agent never looked up acts on an assumption of its state",
    advice="read the entity before changing it (a policy check or a guard rule: no write "
    "without an earlier read of the same id)",
    investment=VERIFY,
    applies=_no_writes,
    register=False,
)
def _write_without_prior_read(view: SessionView, context: MotifContext) -> bool | None:
    """A write whose entity values appear in no earlier read's arguments or output (a write
    naming no entity value is not counted either way)."""
    seen: list[str] = []
    judged = False
    for _, call in view.calls():
        role = _role(call, context)
        if role == "read":
            seen.append(" ".join(str(v) for v in (call.arguments or {}).values()))
            seen.append(call.output or "")
            continue
        if role != "write":
            continue
        values = id_values(call.arguments)
        if not values:
            continue
        judged = True
        if not any(mentions(text, v) for v in values for text in seen):
            return True
    return False if judged or not _writes(view, context) else None


@motif(
    name="write_without_confirmation",
    why="a state change the user did not explicitly approve may be the wrong one, and cannot "
    "be taken back",
    advice="state the exact change and wait for an explicit yes before the write (guard "
    "policy: confirm before write)",
    investment=CONFIRM,
    applies=_no_writes,
    register=False,
)
def _write_without_confirmation(view: SessionView, context: MotifContext) -> bool | None:
    """A write with no user message saying yes (`YES`) between the agent's last text before
    it and the write itself (a write with no agent text before it at all counts too)."""
    proposal = -1
    for i, turn in enumerate(view.turns):
        if turn.kind == "agent":
            proposal = i
        elif turn.call is not None and _role(turn.call, context) == "write":
            window = view.turns[proposal + 1 : i]
            if not any(t.kind == "user" and YES.search(t.text) for t in window):
                return True
    return False


@motif(
    name="ungrounded_argument",
    why="an id or amount that appears nowhere earlier in the conversation was invented or "
    "changed by the agent",
    advice="ground arguments: take ids and amounts from the user's words or a tool's output, "
    "and check them before sending (guard: argument grounding)",
    investment=GROUND,
    register=False,
)
def _ungrounded_argument(view: SessionView, context: MotifContext) -> bool | None:
    """A call's entity value that appears in no earlier user message and no earlier tool
    output."""
    grounds: list[str] = []
    for turn in view.turns:
        if turn.kind == "user":
            grounds.append(turn.text)
        elif turn.call is not None:
            values = id_values(turn.call.arguments)
            if any(not any(mentions(g, v) for g in grounds) for v in values):
                return True
            grounds.append(turn.call.output or "")
    return False


def _same(a: ViewCall, b: ViewCall) -> bool:
    return a.name == b.name and a.arguments == b.arguments


@motif(
    name="retry_unchanged_after_error",
    why="sending the same failed call again unchanged rarely gets a different answer and "
    "wastes the session's budget",
    advice="back off and re-plan: read the error, change the arguments or the approach, or "
    "let the guard retry only transient errors (guard: retry with backoff, breaker)",
    investment=REPLAN,
    applies=_no_errors,
    register=False,
)
def _retry_unchanged(view: SessionView, context: MotifContext) -> bool | None:
    """A failed call whose next call of the same tool has the same arguments."""
    calls = [c for _, c in view.calls()]
    for k, call in enumerate(calls):
        if not call.failed:
            continue
        following = next((c for c in calls[k + 1 :] if c.name == call.name), None)
        if following is not None and following.arguments == call.arguments:
            return True
    return False


@motif(
    name="proceed_after_error_unacknowledged",
    why="carrying on after a failed call as if it succeeded builds on a step that did not happen",
    advice="have the agent read each error and say what it means before going on (prompt or "
    "guard: surface errors, re-plan)",
    investment=REPLAN,
    applies=_no_errors,
    register=False,
)
def _proceed_unacknowledged(view: SessionView, context: MotifContext) -> bool | None:
    """After a failed call, the agent's next text does not acknowledge a problem (`ACK`), or
    a write other than an unchanged retry comes before any acknowledging text."""
    for i, turn in enumerate(view.turns):
        if turn.call is None or not turn.call.failed:
            continue
        for later in view.turns[i + 1 :]:
            if later.kind == "agent":
                if not ACK.search(later.text):
                    return True
                break
            c = later.call
            if c is not None and _role(c, context) == "write" and not _same(c, turn.call):
                return True
    return False


@motif(
    name="transfer_or_stop_after_error",
    why="handing over or stopping at the first error gives up on a task a re-plan could finish",
    advice="back off and re-plan before giving up: look the record up again, ask the user, "
    "then hand over only what cannot be done (guard: escalate policy)",
    investment=REPLAN,
    applies=_no_errors,
    register=False,
)
def _transfer_or_stop(view: SessionView, context: MotifContext) -> bool | None:
    """A failed call whose next call is a hand-over, or after which no tool is called again."""
    calls = [c for _, c in view.calls()]
    for k, call in enumerate(calls):
        if not call.failed:
            continue
        rest = calls[k + 1 :]
        if not rest or _role(rest[0], context) == "handover":
            return True
    return False


@motif(
    name="read_loop",
    why="a long run of reads without acting or asking is a search the agent cannot end",
    advice="bound read loops: ask the user or act after a few reads (guard: breaker on "
    "repeated reads)",
    investment=LOOP,
    register=False,
)
def _read_loop(view: SessionView, context: MotifContext) -> bool | None:
    """At least `context.read_loop` read calls in a row (a write, a hand-over or a user
    message breaks the run; the agent's own text does not)."""
    run = 0
    for turn in view.turns:
        if turn.call is not None and _role(turn.call, context) == "read":
            run += 1
            if run >= context.read_loop:
                return True
        elif turn.kind != "agent":
            run = 0
    return False


def _no_implicit(views: Sequence[SessionView], context: MotifContext) -> str | None:
    if any(v.implicit for v in views):
        return None
    return "no implicit fault ran (no implicit_fault event in any session)"


@motif(
    name="acting_on_implicit_fault",
    why="an output an implicit fault changed looks normal: acting on it spreads the wrong value",
    advice="verify after write and cross-check what a read returned (guard read-back, being "
    "built on branch h-detect)",
    investment=IMPLICIT,
    applies=_no_implicit,
    register=False,
)
def _acting_on_implicit(view: SessionView, context: MotifContext) -> bool | None:
    """A later call whose entity values appear in the output of a call an implicit fault
    changed (or, for a fault on a write, any later write: the agent went on as if it had
    landed)."""
    changed: list[ViewCall] = []
    for _, call in view.calls():
        values = id_values(call.arguments)
        for c in changed:
            if any(mentions(c.output or "", v) for v in values):
                return True
            if _role(c, context) == "write" and _role(call, context) == "write":
                return True
        if call.id in view.implicit:
            changed.append(call)
    return False


def _no_policy(views: Sequence[SessionView], context: MotifContext) -> str | None:
    if context.policy_reads:
        return None
    return "no policy read is configured (a suite or --require-read WRITE=READ declares one)"


@motif(
    name="policy_read_skipped",
    why="the policy asks for a read before this write (e.g. the order's status before a "
    "cancel); skipping it acts outside the policy",
    advice="enforce the policy's reads before the write (a guard rule or a workflow check)",
    investment=POLICY,
    applies=_no_policy,
    register=False,
)
def _policy_read_skipped(view: SessionView, context: MotifContext) -> bool | None:
    """A configured write with none of its configured reads earlier in the session; None
    when the session makes no configured write."""
    done: set[str] = set()
    judged = False
    for _, call in view.calls():
        wanted = context.policy_reads.get(call.name)
        if wanted:
            judged = True
            if not done.intersection(wanted):
                return True
        done.add(call.name)
    return False if judged else None


WRITE_WITHOUT_PRIOR_READ: FunctionMotif = _write_without_prior_read
WRITE_WITHOUT_CONFIRMATION: FunctionMotif = _write_without_confirmation
UNGROUNDED_ARGUMENT: FunctionMotif = _ungrounded_argument
RETRY_UNCHANGED_AFTER_ERROR: FunctionMotif = _retry_unchanged
PROCEED_AFTER_ERROR_UNACKNOWLEDGED: FunctionMotif = _proceed_unacknowledged
TRANSFER_OR_STOP_AFTER_ERROR: FunctionMotif = _transfer_or_stop
READ_LOOP: FunctionMotif = _read_loop
ACTING_ON_IMPLICIT_FAULT: FunctionMotif = _acting_on_implicit
POLICY_READ_SKIPPED: FunctionMotif = _policy_read_skipped
