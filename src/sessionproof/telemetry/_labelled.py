"""`--label-from` on traces: the span attribute (or span event attribute, or evaluation event)
that carries a session's outcome label, and the session's outcome from it."""

from __future__ import annotations

from ..importers import RecordError
from ..importers._internal import LabelRule, label_session, set_outcome
from ..records import Session
from . import _names as n
from ._decode import SpanData, Value


def find_label(
    spans: list[SpanData], root: SpanData | None, rule: LabelRule
) -> tuple[Value, SpanData] | None:
    """The value of the label `rule` names, and the span that carries it: the root's, else the
    latest span's (a span attribute, an attribute of one of its events, or the score of a
    `gen_ai.evaluation.result` event of that name: its label, else its value)."""
    # The root speaks for the session; among the others the latest word (feedback given
    # after a retry) wins.
    order = sorted(spans, key=lambda s: (s is root, s.end_ns, s.index), reverse=True)
    for span in order:
        if rule.name in span.attrs:
            return span.attrs[rule.name], span
        for event in reversed(span.events):
            if rule.name in event.attrs:
                return event.attrs[rule.name], span
            if event.name == n.EVALUATION_EVENT and event.attrs.get(n.EVALUATION_NAME) == rule.name:
                label = event.attrs.get(n.SCORE_LABEL)
                return (event.attrs.get(n.SCORE_VALUE) if label is None else label), span
    return None


def apply_label(
    spans: list[SpanData], root: SpanData | None, session: Session, rule: LabelRule, index: int
) -> RecordError | None:
    """Give `session` the outcome its label says; the problem when it has none usable (the
    session is then kept without an outcome: a guessed verdict would be worse than none)."""
    found = find_label(spans, root, rule)
    if found is None:
        set_outcome(session, None)
        return RecordError(
            index=index,
            field=rule.name,
            message=f"no span of the session carries {rule.name!r}: kept without an outcome",
            record_id=session.session_id,
            fatal=False,
        )
    value, span = found
    where = f"span #{span.index} {span.name!r} (span id {span.span_id}): "
    return label_session(session, rule, value, index=index, where=where)
