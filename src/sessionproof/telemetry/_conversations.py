"""Spans → the units a session is built from: one trace each, or, when one trace carries
several conversations (two conversations whose spans reuse the same trace id, as a tracer
that restarts its id generator writes them), one unit per conversation; a span id used by
more than one span of such a trace is named in a warning, every such span kept."""

from __future__ import annotations

from ..importers import RecordError
from . import _names as n
from ._decode import SpanData
from ._session_spans import text_attr

_SHOWN = 5
"""Span positions a duplicate-id warning lists."""


_KEYS = (n.CONVERSATION_ID, n.OI_SESSION)
"""The attributes naming a conversation, in order of trust."""


def _key(members: list[SpanData]) -> str:
    """The one attribute that tells a trace's conversations apart: the first of `_KEYS` any
    of its spans carries (an OpenInference export adds `session.id` RUN:SESSION to spans whose
    root says `gen_ai.conversation.id` SESSION: the two must not be compared)."""
    return next((k for k in _KEYS if any(k in s.attrs for s in members)), _KEYS[0])


def _conversation(span: SpanData, key: str) -> str:
    return text_attr(span.attrs, key)


def units(spans: list[SpanData], problems: list[RecordError]) -> dict[str, list[SpanData]]:
    """The spans by trace (the key its id), a trace of several conversations split by
    conversation (the key `TRACE/CONVERSATION`)."""
    by_trace: dict[str, list[SpanData]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    out: dict[str, list[SpanData]] = {}
    for trace_id, members in by_trace.items():
        key = _key(members)
        if len({c for s in members if (c := _conversation(s, key))}) <= 1:
            out[trace_id] = members
            continue
        by_id = _by_id(trace_id, members, problems)
        for conversation, part in _split(members, by_id, key).items():
            out[f"{trace_id}/{conversation}"] = part
    return out


def _by_id(
    trace_id: str, members: list[SpanData], problems: list[RecordError]
) -> dict[str, list[SpanData]]:
    """The shared trace's spans by span id; a warning per id more than one span uses."""
    by_id: dict[str, list[SpanData]] = {}
    for span in members:
        by_id.setdefault(span.span_id, []).append(span)
    for span_id, same in by_id.items():
        if len(same) > 1:
            shown = ", ".join(f"#{s.index}" for s in same[:_SHOWN])
            more = f" and {len(same) - _SHOWN} more" if len(same) > _SHOWN else ""
            problems.append(
                RecordError(
                    index=same[1].index,
                    field="spanId",
                    fatal=False,
                    message=f"span id {span_id} of trace {trace_id} is used by {len(same)} "
                    f"spans ({shown}{more}); each kept, a child joined to the latest of them "
                    "started before it",
                )
            )
    return by_id


def _parent(span: SpanData, by_id: dict[str, list[SpanData]]) -> SpanData | None:
    """The span's parent in its trace: of several spans with that id, the latest started
    no later than the span (else the earliest)."""
    candidates = [p for p in by_id.get(span.parent_id, []) if p is not span]
    if not span.parent_id or not candidates:
        return None
    before = [p for p in candidates if p.start_ns <= span.start_ns]
    if before:
        return max(before, key=lambda p: (p.start_ns, p.index))
    return min(candidates, key=lambda p: (p.start_ns, p.index))


def _split(
    members: list[SpanData], by_id: dict[str, list[SpanData]], key: str
) -> dict[str, list[SpanData]]:
    """The trace's spans by conversation: a span's own, else its nearest ancestor's, else
    the first conversation's (by start)."""
    resolved: dict[int, str] = {}
    for span in members:
        chain: list[SpanData] = []
        seen: set[int] = set()
        node: SpanData | None = span
        found = ""
        while node is not None and node.index not in seen:
            if node.index in resolved:
                found = resolved[node.index]
                break
            found = _conversation(node, key)
            if found:
                break
            seen.add(node.index)
            chain.append(node)
            node = _parent(node, by_id)
        for walked in chain:
            resolved[walked.index] = found
        resolved[span.index] = resolved.get(span.index) or found or _conversation(span, key)
    first = min((s for s in members if _conversation(s, key)), key=lambda s: (s.start_ns, s.index))
    out: dict[str, list[SpanData]] = {}
    for span in members:
        out.setdefault(resolved[span.index] or _conversation(first, key), []).append(span)
    return out
