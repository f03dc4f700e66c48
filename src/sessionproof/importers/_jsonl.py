"""Chat logs as JSONL, one session per line: `{"messages": [...], "domain"?, "task"?,
"outcome"?, "id"?, "termination"?}` in OpenAI chat-completions or Anthropic Messages form.

`task` may be a tau2 task, a tau-bench task or a sessionproof scenario; `outcome` the log's own
verdict (`OUTCOME_VALUES`: a reward number, a bool, a word such as success or fail, or
`{reward, success, db_match}`; any other value leaves the session unjudged, with a
warning naming the line). `--label-from NAME` (a dotted path from the record's root, e.g.
`meta.feedback`; `NAME>=N` for a score) reads the verdict from that key instead. Either way the
verdict is stored as the session's outcome, a `label` criterion saying it is the file's own,
never one judged here (`score` still judges a session whose record has a task). A record
without a label stays unjudged. A bad line costs only itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from ..errors import ConfigError, ForeignJSONError
from ..records import CriterionResult, Outcome, Scenario, Session, TerminationReason, ToolCallEvent
from ._anthropic import read_anthropic_messages
from ._common import (
    ImportedSession,
    ImportResult,
    RecordError,
    ReportedVerdict,
    SessionBuilder,
    domain_problem,
    first_problem,
    trial_problem,
)
from ._formats import scenario_from_any_task
from ._json import load_json, without_bom
from ._labels import LABEL_CRITERION, LabelRule, label_session, set_outcome
from ._openai import read_openai_messages
from ._tools import known_tools

Reader = Callable[..., bool]


OUTCOME_VALUES = (
    "a reward number (1 is a pass), true/false, a word (success/failure, pass/fail, "
    "true/false, 1/0, yes/no, correct/incorrect), or {reward, success, db_match}"
)
"""What a chat log's `outcome` may be (said when a value is none of them)."""

_MISSING = " has no "
"""What the warning for a line without the `--label-from` key says after its line number."""

_WORDS = LabelRule("outcome")
"""The label words (success, pass, true, 1, ...) read as a chat log's outcome."""


def _word(value: str) -> ReportedVerdict:
    """The verdict a word (or a number written as text) says; ValueError when none."""
    try:
        number = float(value)
    except ValueError:
        outcome = _WORDS.outcome(value)
        return ReportedVerdict(success=outcome.success, reward=outcome.reward)
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number")
    return ReportedVerdict(reward=number, success=number == 1)


def _outcome(value: object) -> ReportedVerdict | None:
    """The log's own verdict; ValueError (naming what would do) for a value that says none."""
    if value is None:
        return None
    if isinstance(value, bool):
        return ReportedVerdict(success=value, reward=1.0 if value else 0.0)
    if isinstance(value, int | float):
        return ReportedVerdict(reward=float(value), success=value == 1)
    if isinstance(value, str):
        try:
            return _word(value)
        except ValueError:
            raise ValueError(f"{value!r} is not an outcome; expected {OUTCOME_VALUES}") from None
    if isinstance(value, dict):
        fields = {k: value[k] for k in ("reward", "success", "db_match") if k in value}
        if isinstance(fields.get("success"), str):
            fields["success"] = _word(fields["success"]).success
        verdict = ReportedVerdict.model_validate(fields)
        if verdict.success is None and verdict.reward is not None:
            verdict.success = verdict.reward == 1
        verdict.detail = dict(value)
        return verdict
    raise ValueError(f"a {type(value).__name__} is not an outcome; expected {OUTCOME_VALUES}")


def _termination(value: object, calls: Sequence[str]) -> TerminationReason:
    if isinstance(value, str):
        return TerminationReason(value)
    if "transfer_to_human_agents" in calls:
        return TerminationReason.transfer
    return TerminationReason.user_stop


def import_jsonl(
    raw: bytes,
    *,
    fmt: str,
    source: str,
    run_id: str,
    domain: str | None = None,
    label_from: LabelRule | None = None,
) -> ImportResult:
    """Read a JSONL chat log (`fmt` "openai" or "anthropic") into sessions; with
    `label_from`, each session's verdict is the label that key of its record holds.

    Raises ConfigError when `label_from` names a key no line has (a misspelt key would
    otherwise store every session unjudged, one warning each)."""
    reader: Reader = read_anthropic_messages if fmt == "anthropic" else read_openai_messages
    result = ImportResult(format=fmt, source=source, domain=domain)
    stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    for index, line in enumerate(without_bom(raw).splitlines()):
        if not line.strip():
            continue
        try:
            record = load_json(line)
        except ForeignJSONError as exc:
            result.errors.append(
                RecordError(index=index, field="", message=f"line {index + 1} is {exc}")
            )
            continue
        imported = _line(index, record, reader, stem, run_id, domain, result, label_from)
        if imported is not None:
            result.sessions.append(imported)
    if label_from is not None and result.sessions:
        _some_line_has(label_from, result)
    return result


def _some_line_has(rule: LabelRule, result: ImportResult) -> None:
    """ConfigError when no session read carries the key `rule` names."""
    missing = sum(1 for e in result.errors if e.field == rule.name and _MISSING in e.message)
    if missing == len(result.sessions):
        raise ConfigError(
            f"--label-from {rule}: no line of {result.source} has {rule.name!r} (a dotted "
            "path from the line's root, e.g. meta.feedback)"
        )


def _line(
    index: int,
    record: object,
    reader: Reader,
    stem: str,
    run_id: str,
    domain: str | None,
    result: ImportResult,
    label_from: LabelRule | None = None,
) -> ImportedSession | None:
    if not isinstance(record, dict):
        result.errors.append(
            RecordError(
                index=index, field="", message=f"expected an object, got {type(record).__name__}"
            )
        )
        return None
    messages = record.get("messages")
    if not isinstance(messages, list):
        result.errors.append(
            RecordError(index=index, field="messages", message="missing, or not a list of messages")
        )
        return None
    dom = record.get("domain", domain)
    if dom is not None and not isinstance(dom, str):
        result.errors.append(RecordError(index=index, field="domain", message="must be text"))
        return None
    # Checked here, not when judging: an unknown domain must cost its line, not the file.
    problem = domain_problem(dom) if dom else None
    if problem:
        result.errors.append(RecordError(index=index, field="domain", message=problem))
        return None
    trial = record.get("trial", 0)
    problem = trial_problem(trial)
    if problem:
        result.errors.append(RecordError(index=index, field="trial", message=problem))
        return None
    scenario: Scenario | None = None
    if record.get("task") is not None:
        try:
            scenario = scenario_from_any_task(record["task"], dom or "")
        except ValidationError as exc:
            where, msg = first_problem(exc, "task")
            result.errors.append(RecordError(index=index, field=where, message=msg))
            return None
        except ValueError as exc:
            result.errors.append(RecordError(index=index, field="task", message=str(exc)))
            return None
        problem = (
            domain_problem(scenario.domain)
            if scenario.domain
            else "the record names no domain: give it a `domain` field, or pass one"
        )
        if problem:
            result.errors.append(RecordError(index=index, field="task.domain", message=problem))
            return None
    sid = str(record.get("id") or f"{stem}-{index}")
    reported = None if label_from is not None else _reported(record, index, sid, result)
    builder = SessionBuilder(run_id, sid)
    ok = reader(
        builder, messages, index=index, record_id=sid, tools=known_tools(dom), errors=result.errors
    )
    if not ok:
        return None
    calls = [e.payload.name for e in builder.events if isinstance(e, ToolCallEvent)]
    try:
        termination = _termination(record.get("termination"), calls)
    except ValueError:
        valid = ", ".join(t.value for t in TerminationReason)
        result.errors.append(
            RecordError(index=index, field="termination", message=f"must be one of {valid}")
        )
        return None
    metadata: dict[str, Any] = {"source_index": index, "format": result.format}
    if dom:
        metadata["domain"] = dom
    session = builder.session(
        scenario_id=scenario.id if scenario else sid,
        trial=trial if isinstance(trial, int) else 0,  # checked above
        termination=termination,
        model=str(record.get("model", "")),
        metadata=metadata,
    )
    if label_from is not None:
        reported = _labelled(record, session, label_from, index, result.errors)
    elif reported is not None:
        _keep_label(session, reported, record.get("outcome"))
    return ImportedSession(index=index, session=session, scenario=scenario, reported=reported)


def _reported(
    record: dict[str, Any], index: int, sid: str, result: ImportResult
) -> ReportedVerdict | None:
    """The verdict the record's `outcome` gives; None (with a warning naming the line) when
    it says none."""
    try:
        return _outcome(record.get("outcome"))
    except (ValueError, ValidationError) as exc:
        # An outcome that says no verdict leaves the session unjudged, never a failure.
        message = first_problem(exc)[1] if isinstance(exc, ValidationError) else str(exc)
        result.errors.append(
            RecordError(
                index=index,
                field="outcome",
                message=f"line {index + 1}: {message}; kept, not judged",
                record_id=sid,
                fatal=False,
            )
        )
        return None


def _keep_label(session: Session, reported: ReportedVerdict, value: object) -> None:
    """Store the record's own `outcome` as the session's verdict (a `label` criterion, not a
    judged one). An outcome that says no pass or fail (`{db_match}` alone) sets none."""
    if reported.success is None:
        return
    reward = reported.reward if reported.reward is not None else float(reported.success)
    if isinstance(value, dict):  # only what was read: the rest of the object is not evidence
        value = {k: value[k] for k in ("success", "reward") if k in value}
    evidence = f"outcome: {value!r}"
    criterion = CriterionResult(name=LABEL_CRITERION, passed=reported.success, evidence=evidence)
    set_outcome(session, Outcome(success=reported.success, reward=reward, criteria=[criterion]))


def _path(record: dict[str, Any], path: str) -> tuple[bool, object]:
    """(found, value) at the dotted `path` from the record's root."""
    node: object = record
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    return True, node


def _labelled(
    record: dict[str, Any],
    session: Session,
    rule: LabelRule,
    index: int,
    errors: list[RecordError],
) -> ReportedVerdict | None:
    """The session's verdict from the key `rule` names; None (the session kept unjudged,
    with a warning naming the line) when the record lacks it or its value is no label."""
    found, value = _path(record, rule.name)
    if not found or value is None:
        errors.append(
            RecordError(
                index=index,
                field=rule.name,
                message=f"line {index + 1}{_MISSING}{rule.name!r}: kept without an outcome"
                if not found
                else f"line {index + 1}: {rule.name!r} is null: kept without an outcome",
                record_id=session.session_id,
                fatal=False,
            )
        )
        return None
    error = label_session(session, rule, value, index=index, where=f"line {index + 1}: ")
    if error is not None or session.outcome is None:
        errors.extend([] if error is None else [error])
        return None
    return ReportedVerdict(reward=session.outcome.reward, success=session.outcome.success)
