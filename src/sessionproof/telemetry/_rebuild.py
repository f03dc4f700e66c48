"""Flat spans → sessions: ours back exactly, anyone's GenAI or OpenInference traces as well
as their attributes allow.

Spans group into sessions by `gen_ai.conversation.id` (OpenInference `session.id`), else by
trace. Within a session, events are ordered by the position our export carries, else by time,
so spans out of order or interleaved with another session's read the same. A span whose parent
is not in the file is kept and named in a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ValidationError

from ..errors import SessionproofError
from ..importers import ImportedSession, ImportResult, RecordError, ReportedVerdict
from ..importers._internal import LabelRule, distinct_trials, first_problem
from . import _names as n
from ._conversations import units
from ._decode import Restore, SpanData, decode_slim
from ._labelled import apply_label
from ._session_spans import SessionSpans, text_attr


def _group(spans: list[SpanData], problems: list[RecordError]) -> list[SessionSpans]:
    by_trace = units(spans, problems)  # a trace, or one conversation of a shared trace
    sessions: dict[str, SessionSpans] = {}
    for trace_id, members in by_trace.items():
        ids = {s.span_id for s in members}
        roots = [s for s in members if text_attr(s.attrs, n.OPERATION) == n.INVOKE_AGENT]
        roots = roots or [s for s in members if not s.parent_id]
        for s in members:
            if s.parent_id and s.parent_id not in ids:
                problems.append(
                    RecordError(
                        index=s.index,
                        field="parentSpanId",
                        fatal=False,
                        message=f"parent {s.parent_id} is not in the file; kept in its trace",
                    )
                )
        root = min(roots, key=lambda s: s.start_ns) if roots else None
        key = trace_id
        for s in ([root] if root else []) + members:
            key = text_attr(s.attrs, n.CONVERSATION_ID) or text_attr(s.attrs, n.OI_SESSION) or ""
            if key:
                break
        key = key or trace_id
        group = sessions.setdefault(key, SessionSpans(key))
        group.spans.extend(members)
        if root is not None and (group.root is None or root.start_ns < group.root.start_ns):
            group.root = root
    return list(sessions.values())


_GROUPING = frozenset({n.OPERATION, n.CONVERSATION_ID, n.OI_SESSION, n.TRIAL})
"""The attributes grouping spans into sessions reads (all a slim span keeps)."""


def _in_full(group: SessionSpans, restore: Restore) -> SessionSpans:
    """`group` with its spans (and root) decoded in full, in the same order."""
    full = SessionSpans(group.key)
    full.spans = [restore(s) for s in group.spans]
    if group.root is not None:
        full.root = next(s for s in full.spans if s.index == group.root.index)
    return full


@dataclass
class RunInfo:
    """What the resource says of the run the spans came from (our export only)."""

    suite: str | None = None
    limit: int | None = None
    arms: list[str] = field(default_factory=list)


def _run_info(spans: list[SpanData]) -> RunInfo:
    suites = {text_attr(s.resource, n.RUN_SUITE) for s in spans} - {""}
    if len(suites) != 1:
        return RunInfo()  # none, or several runs in one file: no one suite to name
    first = spans[0].resource
    limit = first.get(n.RUN_LIMIT)
    arms = first.get(n.RUN_ARMS)
    return RunInfo(
        suite=suites.pop(),
        limit=limit if isinstance(limit, int) else None,
        arms=[a for a in arms if isinstance(a, str)] if isinstance(arms, list) else [],
    )


def read_otlp(
    raw: bytes,
    *,
    source: str,
    run_id: str,
    domain: str | None,
    fmt: str = "otlp-json",
    label_from: LabelRule | None = None,
) -> ImportResult:
    """The sessions an OTLP file holds (the importers' `FormatReader` for OTLP)."""
    return read_otlp_run(
        raw, source=source, run_id=run_id, domain=domain, fmt=fmt, label_from=label_from
    )[0]


def read_otlp_run(
    raw: bytes,
    *,
    source: str,
    run_id: str,
    domain: str | None,
    fmt: str = "otlp-json",
    label_from: LabelRule | None = None,
) -> tuple[ImportResult, RunInfo]:
    """The sessions an OTLP file holds, and what its resource says of the run; with
    `label_from`, each session's outcome is the label it names instead of its own verdict."""
    spans, problems, restore = decode_slim(raw, fmt, _GROUPING)
    groups = _group(spans, problems)
    result = ImportResult(format=fmt, source=source, domain=domain)
    # The result copies its lists: every problem goes on its own.
    result.errors.extend(problems)
    for index, slim in enumerate(groups):
        group = _in_full(slim, restore)  # one session's spans in full at a time
        try:
            session = group.build(run_id)
        except (ValidationError, ValueError) as exc:
            where, message = (
                first_problem(exc) if isinstance(exc, ValidationError) else ("", str(exc))
            )
            result.errors.append(
                RecordError(index=index, field=where, message=message, record_id=group.key)
            )
            continue
        if label_from is not None:
            problem = apply_label(group.spans, group.root, session, label_from, index)
            if problem is not None:
                result.errors.append(problem)
        reported = None
        if session.outcome is not None:
            reported = ReportedVerdict(
                reward=session.outcome.reward, success=session.outcome.success
            )
        result.sessions.append(ImportedSession(index=index, session=session, reported=reported))
    # Our export names each trial; a foreign trace does not, and its sessions of one task
    # would collide in the store.
    distinct_trials(
        result.sessions,
        keep={i for i, g in enumerate(groups) if g.root and n.TRIAL in g.root.attrs},
    )
    info = _run_info(spans)
    _attach_scenarios(result, info)
    return result, info


def _attach_scenarios(result: ImportResult, info: RunInfo) -> None:
    """Give each session the scenario it ran, from the suite the resource names, so `score`
    and `rerun` judge it again; a suite that is not here leaves the sessions without.

    Only a built-in suite is loaded: a user's suite is code (`python:` modules, `mcp:`
    commands), and reading a trace must never run what the trace merely names. Its sessions
    get their scenarios when the user names the suite (`score`/`rerun`/`patterns --suite`)."""
    # The suites load domains; only an import of ours needs them.
    from ..suites import load_suite
    from ..suites._internal import is_builtin_suite

    if info.suite is None or not is_builtin_suite(info.suite):
        return

    try:
        scenarios = {s.id: s for s in load_suite(info.suite).scenarios}
    except SessionproofError:
        return
    for item in result.sessions:
        item.scenario = scenarios.get(item.session.scenario_id)


def _reader(fmt: str) -> Callable[..., ImportResult]:
    def read(
        raw: bytes,
        *,
        source: str,
        run_id: str,
        domain: str | None,
        label_from: LabelRule | None = None,
    ) -> ImportResult:
        return read_otlp(
            raw, source=source, run_id=run_id, domain=domain, fmt=fmt, label_from=label_from
        )

    read.__doc__ = f"Reads an {fmt} file into sessions."
    return read


read_otlp_json = _reader("otlp-json")
"""The importers' reader of OTLP-JSON files."""
read_otlp_proto = _reader("otlp-proto")
"""The importers' reader of OTLP protobuf files."""
