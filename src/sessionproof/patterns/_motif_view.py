"""What a motif sees of a session: its conversation as turns, each tool call with its result.

A `SessionView` is built once per session (`view_of`) and read by every motif. It keeps, in
trace order, the user's and the agent's texts and each tool call joined to its result, plus
the `implicit_fault` events by call id. The helpers below are the shared vocabulary of the
built-in motifs: which tool is a read, a write or a hand-over (`tool_role`), which argument
values name an entity or an amount (`id_values`), and whether a value appears in a text
(`mentions`).

Roles of tools are read from the name alone unless the caller knows better (a domain's tool
specs, passed as `MotifContext.write_tools`): a name whose first word is one of `READ_VERBS`
is a read, one of `HANDOVER_VERBS` a hand-over, anything else a write — erring towards
"write" keeps the write motifs conservative in what they call a read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from ..records import (
    AssistantMessageEvent,
    Session,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from ..records._internal import ImplicitFault, ImplicitFaultEvent

READ_VERBS = frozenset(
    [
        "get",
        "find",
        "list",
        "search",
        "read",
        "lookup",
        "fetch",
        "check",
        "calculate",
        "compute",
        "query",
        "show",
        "view",
        "count",
        "retrieve",
        "describe",
        "think",
        "validate",
        "verify",
        "is",
        "has",
        "lookup",
        "browse",
        "inspect",
        "peek",
        "preview",
    ]
)
"""First words of a tool name that make it a read (`get_order`, `searchFlights`)."""
HANDOVER_VERBS = frozenset(["transfer", "escalate", "handoff", "hand"])
"""First words of a tool name that make it a hand-over to a human (`transfer_to_human`)."""

Role = Literal["read", "write", "handover"]

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_ID_KEY = re.compile(r"(?:^|_)(?:id|ids|number|code|key|ref|reference)$", re.IGNORECASE)
_ID_TEXT = re.compile(r"^(?=[^\s]*\d)[A-Za-z0-9][\w.@#:/-]{2,}$")


def first_word(name: str) -> str:
    """The first word of a tool name, lower-cased (`get_order` → get, `searchFlights` →
    search)."""
    words = _WORD.findall(name)
    return words[0].lower() if words else ""


def tool_role(name: str, write_tools: frozenset[str] | None = None) -> Role:
    """A tool's role: read, write or hand-over (rules: the module docstring)."""
    verb = first_word(name)
    if verb in HANDOVER_VERBS:
        return "handover"
    if write_tools is not None:
        return "write" if name in write_tools else "read"
    return "read" if verb in READ_VERBS else "write"


def _scalars(key: str, value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _scalars(str(k), v)
    elif isinstance(value, list):
        for v in value:
            yield from _scalars(key, v)
    else:
        yield key, value


def id_values(arguments: dict[str, Any] | None) -> list[str]:
    """The argument values that name an entity or an amount, as text: strings under an id-like
    key (`order_id`, `item_ids`, `code`) or shaped like an id (no spaces, at least three
    characters, a digit among them: `#W2378156`, `XEWRD9`), and numbers of at least two digits
    (amounts; a count of 1 or 2 names nothing). Booleans and free text are not values here."""
    out: list[str] = []
    for key, value in _scalars("", arguments or {}):
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | float):
            if abs(value) >= 10:
                out.append(_number_text(value))
        elif isinstance(value, str):
            text = value.strip()
            if len(text) >= 3 and (
                _ID_TEXT.match(text) or (_ID_KEY.search(key) and " " not in text)
            ):
                out.append(text)
    return list(dict.fromkeys(out))


def _number_text(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def mentions(text: str, value: str) -> bool:
    """True when `value` appears in `text` as a whole token (case-insensitive; a number also
    matches written with two decimals: 120 in "120.00")."""
    if not text or not value:
        return False
    pattern = re.escape(value)
    if re.fullmatch(r"\d+", value):
        pattern += r"(?:\.0+)?"
    return re.search(rf"(?<![\w.]){pattern}(?![\w])", text, re.IGNORECASE) is not None


@dataclass(frozen=True)
class ViewCall:
    """One tool call joined to its result (None: no result was recorded)."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    output: str | None
    error_class: str | None
    """The taxonomy class of a failed result; None when it succeeded or has no result."""

    @property
    def failed(self) -> bool:
        """True when the call's result was an error."""
        return self.error_class is not None


@dataclass(frozen=True)
class Turn:
    """One step of the conversation: a user text, an agent text, or a tool call."""

    kind: Literal["user", "agent", "call"]
    text: str = ""
    call: ViewCall | None = None
    step: int = 0
    """The trace step it belongs to (for prefixes of the session)."""


@dataclass(frozen=True)
class SessionView:
    """A session as motifs read it (see the module docstring)."""

    session_id: str
    turns: tuple[Turn, ...]
    termination: str
    implicit: dict[str, ImplicitFault] = field(default_factory=dict)
    """The implicit faults, by the id of the call they changed."""

    def calls(self) -> list[tuple[int, ViewCall]]:
        """(turn index, call) of every tool call, in order."""
        return [(i, t.call) for i, t in enumerate(self.turns) if t.call is not None]

    def prefix(self, step: int) -> SessionView:
        """The session as it stood at `step`: the turns of that step and before."""
        turns = tuple(t for t in self.turns if t.step <= step)
        ids = {t.call.id for t in turns if t.call is not None}
        kept = {k: v for k, v in self.implicit.items() if k in ids}
        return SessionView(self.session_id, turns, self.termination, kept)

    def first_user_text(self) -> str:
        """The first user message (the request that sets the task), or ''."""
        return next((t.text for t in self.turns if t.kind == "user"), "")


def view_of(session: Session) -> SessionView:
    """The session's turns in trace order (by `seq`), calls joined to their results."""
    events = (
        sorted(session.events, key=lambda e: e.seq)
        if any(b.seq < a.seq for a, b in pairwise(session.events))
        else session.events
    )
    results: dict[str, tuple[str, str | None]] = {}
    implicit: dict[str, ImplicitFault] = {}
    for e in events:
        if isinstance(e, ToolResultEvent):
            r = e.payload
            cls = r.error_class.value if r.error_class is not None else None
            results[r.call_id] = (r.output, cls)
        elif isinstance(e, ImplicitFaultEvent):
            implicit[e.payload.call_id] = e.payload
    turns: list[Turn] = []
    for e in events:
        if isinstance(e, UserMessageEvent):
            turns.append(Turn("user", e.payload.content or "", step=e.step))
        elif isinstance(e, AssistantMessageEvent):
            if e.payload.content and e.payload.content.strip():
                turns.append(Turn("agent", e.payload.content, step=e.step))
        elif isinstance(e, ToolCallEvent):
            c = e.payload
            output, cls = results.get(c.id, (None, None))
            args = c.arguments
            call = ViewCall(c.id, c.name, args, output, cls)
            turns.append(Turn("call", call=call, step=e.step))
    return SessionView(session.session_id, tuple(turns), session.termination.value, implicit)
