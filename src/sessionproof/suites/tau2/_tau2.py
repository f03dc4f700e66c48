"""tau2-bench results files: `{timestamp, info, tasks, simulations: [...]}`.

Each simulation becomes a session; the task it names (embedded in the same file, as tau2
graded it) becomes its scenario; its `reward_info` is the reported verdict. A broken
simulation or task costs only itself; a file cut short keeps every complete simulation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired

from pydantic import BeforeValidator, ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from ...importers import ImportedSession, ImportResult, RecordError, ReportedVerdict, SessionBuilder
from ...importers._internal import (
    TOO_DEEP,
    first_problem,
    known_tools,
    load_salvaging,
    parse_time,
    repeated_call_ids,
    too_deep,
    tool_call,
    trial_problem,
    unanswered_result,
)
from ...records import Scenario, TerminationReason
from ._tau2task import Tau2Task, scenario_from_task

FORMAT = "tau2"

_TERMINATIONS = {
    "agent_stop": TerminationReason.agent_stop,
    "user_stop": TerminationReason.user_stop,
    "max_steps": TerminationReason.max_steps,
    "too_many_errors": TerminationReason.too_many_errors,
}
"""tau2 termination reasons with an equivalent here; any other (agent_error, user_error,
infrastructure errors...) is recorded as infra_error with the original in the detail."""


# The records are read as TypedDicts: validated like models (extra keys ignored, the same
# errors), but built as plain dicts, about three times faster than as model instances on
# the 28,000 messages of a thousand simulations. Optional keys may be absent: read with .get.


class _Call(TypedDict):
    __pydantic_config__ = ConfigDict(extra="ignore")  # type: ignore[misc]

    id: str
    name: str
    arguments: NotRequired[Any]


class _Message(TypedDict):
    __pydantic_config__ = ConfigDict(extra="ignore")  # type: ignore[misc]

    role: Literal["assistant", "user", "tool", "system"]
    content: NotRequired[str | None]
    tool_calls: NotRequired[list[_Call] | None]
    id: NotRequired[str | None]
    error: NotRequired[bool | None]
    timestamp: NotRequired[str | float | None]
    requestor: NotRequired[str | None]


def _as_text(value: object) -> object:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class _Simulation(TypedDict):
    __pydantic_config__ = ConfigDict(extra="ignore")  # type: ignore[misc]

    id: NotRequired[str | None]
    task_id: Annotated[str, BeforeValidator(_as_text)]
    trial: NotRequired[int]
    termination_reason: str
    reward_info: NotRequired[dict[str, Any] | None]
    messages: list[_Message]
    start_time: NotRequired[str | None]


_SIMULATION: TypeAdapter[_Simulation] = TypeAdapter(_Simulation)


def _reported(
    info: Mapping[str, Any] | None, index: int, rid: str, result: ImportResult
) -> ReportedVerdict | None:
    """The file's own verdict; a reward or `db_match` of the wrong type is left out of it
    (kept in `detail`) with a warning, since the session itself is still good to score."""
    if info is None:
        return None

    def warn(field: str, message: str) -> None:
        result.errors.append(
            RecordError(index=index, field=field, message=message, record_id=rid, fatal=False)
        )

    reward = info.get("reward")
    value: float | None = None
    if isinstance(reward, int | float):
        try:
            value = float(reward)
        except OverflowError:  # an integer of hundreds of digits, which the stdlib parser reads
            warn("reward_info.reward", "the reported reward is beyond a float; ignored")
    db = info.get("db_check")
    db_match = db.get("db_match") if isinstance(db, Mapping) else None
    if db_match is not None and not isinstance(db_match, bool):
        warn(
            "reward_info.db_check.db_match",
            f"the reported db_match is {type(db_match).__name__}, not true/false; ignored",
        )
        db_match = None
    return ReportedVerdict(
        reward=value,
        success=value == 1.0 if value is not None else None,
        db_match=db_match,
        detail=dict(info),
    )


def _tasks(
    raw: object, domain: str, result: ImportResult
) -> dict[str, tuple[Scenario | None, str | None]]:
    """Task id → (scenario, why it is unusable)."""
    out: dict[str, tuple[Scenario | None, str | None]] = {}
    if not isinstance(raw, list):
        result.errors.append(
            RecordError(
                index=None,
                field="tasks",
                message="no embedded task list: sessions cannot be graded",
                fatal=False,
            )
        )
        return out
    for i, item in enumerate(raw):
        if too_deep(item):
            tid = item.get("id") if isinstance(item, dict) else None
            result.errors.append(
                RecordError(
                    index=None,
                    field=f"tasks.{i}",
                    message=TOO_DEEP,
                    record_id=str(tid),
                    fatal=False,
                )
            )
            if tid is not None:
                out[str(tid)] = (None, f"its task is {TOO_DEEP}")
            continue
        try:
            task = Tau2Task.model_validate(item)
        except ValidationError as exc:
            where, msg = first_problem(exc, f"tasks.{i}")
            tid = item.get("id") if isinstance(item, dict) else None
            result.errors.append(
                RecordError(index=None, field=where, message=msg, record_id=str(tid), fatal=False)
            )
            if tid is not None:
                out[str(tid)] = (None, f"its task is invalid ({where}: {msg})")
            continue
        if domain == "telecom":  # set-up on both sides and the user's own actions
            from .telecom._internal import TelecomFiles, scenario_of, task_problem

            why = task_problem(task)
            if why:
                out[task.id] = (None, f"task {task.id}: {why}")
            else:
                out[task.id] = (scenario_of(task, item, TelecomFiles()), None)
            continue
        why = task.unsupported()
        if why:
            out[task.id] = (None, f"task {task.id}: {why}")
            continue
        out[task.id] = (scenario_from_task(task, item, domain), None)
    return out


def import_tau2(raw: bytes, *, source: str, run_id: str, domain: str | None = None) -> ImportResult:
    """Read a tau2 results file (bytes) into sessions with their embedded scenarios."""
    result = ImportResult(format=FORMAT, source=source)
    doc = load_salvaging(raw)
    if doc.problem:
        result.errors.append(
            RecordError(
                index=doc.complete_items if doc.broken_list == "simulations" else None,
                field=doc.broken_list or "",
                message=doc.problem
                + (
                    f"; the {doc.complete_items} complete simulations before it were read"
                    if doc.broken_list == "simulations"
                    else ""
                ),
            )
        )
    result.errors += [
        RecordError(index=None, field="", message=note, fatal=False) for note in doc.notes
    ]
    data = doc.value
    if not isinstance(data, dict) or not isinstance(data.get("simulations"), list):
        result.errors.append(
            RecordError(index=None, field="simulations", message="no simulations list found")
        )
        return result
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    env = info.get("environment_info") if isinstance(info, dict) else None
    file_domain = env.get("domain_name") if isinstance(env, dict) else None
    dom = domain or (file_domain if isinstance(file_domain, str) else None)
    if domain and isinstance(file_domain, str) and file_domain != domain:
        result.errors.append(
            RecordError(
                index=None,
                field="info.environment_info.domain_name",
                message=f"the file says {file_domain!r}; scoring in {domain!r} as asked",
                fatal=False,
            )
        )
    if dom is None:
        result.errors.append(
            RecordError(
                index=None,
                field="info.environment_info.domain_name",
                message="the file names no domain; pass one (retail or airline)",
            )
        )
        return result
    result.domain = dom
    agent = info.get("agent_info") if isinstance(info, dict) else None
    model = agent.get("llm") if isinstance(agent, dict) else None
    tasks = _tasks(data.get("tasks"), dom, result)
    tools = known_tools(dom)
    seen: set[str] = set()
    for index, item in enumerate(data["simulations"]):
        imported = _simulation(
            index,
            item,
            run_id=run_id,
            source=source,
            tasks=tasks,
            tools=tools,
            model=model if isinstance(model, str) else "",
            result=result,
        )
        if imported is None:
            continue
        sid = imported.session.session_id
        if sid in seen:
            imported.session.session_id = sid = f"{sid}#{index}"
            for event in imported.session.events:
                event.session_id = sid
        seen.add(sid)
        result.sessions.append(imported)
    return result


def _simulation(
    index: int,
    item: object,
    *,
    run_id: str,
    source: str,
    tasks: Mapping[str, tuple[Scenario | None, str | None]],
    tools: frozenset[str] | None,
    model: str,
    result: ImportResult,
) -> ImportedSession | None:
    rid = str(item.get("id") or item.get("task_id")) if isinstance(item, dict) else None
    if too_deep(item):
        result.errors.append(RecordError(index=index, field="", message=TOO_DEEP, record_id=rid))
        return None
    try:
        sim = _SIMULATION.validate_python(item)
    except ValidationError as exc:
        where, msg = first_problem(exc)
        result.errors.append(RecordError(index=index, field=where, message=msg, record_id=rid))
        return None
    trial = sim.get("trial", 0)
    task_id = sim["task_id"]
    problem = trial_problem(trial)
    if problem:
        result.errors.append(
            RecordError(index=index, field="trial", message=problem, record_id=rid)
        )
        return None
    scenario, why = tasks.get(task_id, (None, f"task {task_id!r} is not in the file"))
    if scenario is None and tasks:
        result.errors.append(
            RecordError(index=index, field="task_id", message=f"cannot grade: {why}", record_id=rid)
        )
        return None
    sid = sim.get("id") or f"{task_id}-{trial}"
    builder = SessionBuilder(run_id, sid, parse_time(sim.get("start_time")))
    for j, message in enumerate(sim["messages"]):
        at = parse_time(message.get("timestamp"))
        role = message["role"]
        if role == "user":
            own = message.get("tool_calls")
            if own:  # the user on its own tools (dual control: telecom's phone)
                builder.user_calls(
                    [tool_call(c["id"], c["name"], c.get("arguments")) for c in own], at
                )
            if message.get("content") or not own:
                builder.user(message.get("content") or "", at)
        elif role == "assistant":
            calls = [
                tool_call(c["id"], c["name"], c.get("arguments"))
                for c in message.get("tool_calls") or []
            ]
            for k, call in enumerate(calls):
                if call.parse_error:
                    result.errors.append(
                        RecordError(
                            index=index,
                            field=f"messages.{j}.tool_calls.{k}.arguments",
                            message=f"arguments are not a JSON object: {call.parse_error}",
                            record_id=sid,
                            fatal=False,
                        )
                    )
                if tools is not None and call.name not in tools:
                    result.errors.append(
                        RecordError(
                            index=index,
                            field=f"messages.{j}.tool_calls.{k}.name",
                            message=f"unknown tool {call.name!r}; kept, replayed as a no-op",
                            record_id=sid,
                            fatal=False,
                        )
                    )
            # Most messages carry one new call id or none: their warnings are only looked for
            # (and their field paths spelled) when an id could repeat.
            if len(calls) > 1 or (calls and builder.knows_call(calls[0].id)):
                result.errors.extend(
                    repeated_call_ids(
                        builder,
                        calls,
                        fields=[f"messages.{j}.tool_calls.{k}" for k in range(len(calls))],
                        index=index,
                        record_id=sid,
                    )
                )
            builder.assistant(message.get("content"), calls, at)
        elif role == "tool":
            call_id = message.get("id")
            if call_id is None:
                result.errors.append(
                    RecordError(
                        index=index,
                        field=f"messages.{j}.id",
                        message="tool message without the id of its call",
                        record_id=sid,
                    )
                )
                return None
            output = message.get("content") or ""
            if message.get("requestor") == "user":
                if builder.user_tool_result(call_id, output, message.get("error"), at) is None:
                    result.errors.append(
                        unanswered_result(
                            call_id, field=f"messages.{j}.id", index=index, record_id=sid
                        )
                    )
                continue
            if builder.tool_result(call_id, output, message.get("error"), at) is None:
                result.errors.append(
                    unanswered_result(call_id, field=f"messages.{j}.id", index=index, record_id=sid)
                )
    termination = _TERMINATIONS.get(sim["termination_reason"], TerminationReason.infra_error)
    detail = "" if sim["termination_reason"] in _TERMINATIONS else sim["termination_reason"]
    session = builder.session(
        scenario_id=task_id,
        trial=trial,
        termination=termination,
        detail=detail,
        model=model,
        metadata={
            "source": source,
            "format": FORMAT,
            "source_index": index,
            "tau2_termination": sim["termination_reason"],
        },
    )
    return ImportedSession(
        index=index,
        session=session,
        scenario=scenario,
        reported=_reported(sim.get("reward_info"), index, sid, result),
    )
