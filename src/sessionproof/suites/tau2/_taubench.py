"""tau-bench historical trajectories: a JSON list of `{task_id, trial, reward, info: {task,
reward_info, ...}, traj: [OpenAI chat messages]}`.

The task embedded in `info.task` becomes the scenario; `reward` and `info.reward_info` the
reported verdict (`reward_info` null means the run hit its step limit: termination
max_steps). A broken record costs only itself; a file cut short keeps every complete record.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ...importers import ImportedSession, ImportResult, RecordError, ReportedVerdict, SessionBuilder
from ...importers._internal import (
    TOO_DEEP,
    first_problem,
    known_tools,
    load_salvaging,
    read_openai_messages,
    too_deep,
    trial_problem,
)
from ...records import TerminationReason, ToolCallEvent
from ._taubench_task import TauBenchTask, scenario_from_taubench

FORMAT = "tau-bench"
_FLOAT_INT = 2**1023
"""Integers below this in size convert to a float (`float()` overflows past it)."""

AIRLINE_ONLY = frozenset(
    {
        "book_reservation",
        "cancel_reservation",
        "get_reservation_details",
        "search_direct_flight",
        "search_onestop_flight",
        "send_certificate",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
        "list_all_airports",
    }
)
RETAIL_ONLY = frozenset(
    {
        "cancel_pending_order",
        "exchange_delivered_order_items",
        "find_user_id_by_email",
        "find_user_id_by_name_zip",
        "get_order_details",
        "get_product_details",
        "list_all_product_types",
        "modify_pending_order_address",
        "modify_pending_order_items",
        "modify_pending_order_payment",
        "modify_user_address",
        "return_delivered_order_items",
    }
)


def taubench_domain(domain: str | None) -> str | None:
    """The tau-bench variant of a domain name (retail → taubench-retail)."""
    if domain in ("retail", "airline"):
        return f"taubench-{domain}"
    return domain


def _list(value: object) -> list[Any]:
    """`value` when it is a list, else empty: guessing reads records not yet validated."""
    return value if isinstance(value, list) else []


def guess_domain(records: list[Any]) -> str | None:
    """retail or airline, from the tool names the records use (None when they do not tell)."""
    names: set[str] = set()
    for record in records[:50]:
        if not isinstance(record, dict):
            continue
        info = record.get("info")
        task = info.get("task") if isinstance(info, dict) else None
        if isinstance(task, dict):
            names.update(
                str(a.get("name")) for a in _list(task.get("actions")) if isinstance(a, dict)
            )
        for msg in _list(record.get("traj")):
            calls = msg.get("tool_calls") if isinstance(msg, dict) else None
            for call in _list(calls):
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    names.add(str(call["function"].get("name")))
    airline, retail = bool(names & AIRLINE_ONLY), bool(names & RETAIL_ONLY)
    if airline != retail:
        return "airline" if airline else "retail"
    return None


def import_taubench(
    raw: bytes, *, source: str, run_id: str, domain: str | None = None
) -> ImportResult:
    """Read a tau-bench trajectory file (bytes); sessions run in the tau-bench variant domain."""
    result = ImportResult(format=FORMAT, source=source)
    doc = load_salvaging(raw)
    if doc.problem:
        complete = doc.broken_list == ""
        result.errors.append(
            RecordError(
                index=doc.complete_items if complete else None,
                field="",
                message=doc.problem
                + (
                    f"; the {doc.complete_items} complete records before it were read"
                    if complete
                    else ""
                ),
            )
        )
    result.errors += [
        RecordError(index=None, field="", message=note, fatal=False) for note in doc.notes
    ]
    records = doc.value
    if not isinstance(records, list):
        result.errors.append(
            RecordError(index=None, field="", message="expected a JSON list of trajectory records")
        )
        return result
    dom = taubench_domain(domain or guess_domain(records))
    if dom is None:
        result.errors.append(
            RecordError(
                index=None,
                field="",
                message="cannot tell the domain from the tools used; pass one (retail or airline)",
            )
        )
        return result
    result.domain = dom
    tools = known_tools(dom)
    seen: set[str] = set()
    for index, record in enumerate(records):
        imported = _record(index, record, run_id, source, dom, tools, result)
        if imported is None:
            continue
        if imported.session.session_id in seen:
            sid = f"{imported.session.session_id}#{index}"
            imported.session.session_id = sid
            for event in imported.session.events:
                event.session_id = sid
        seen.add(imported.session.session_id)
        result.sessions.append(imported)
    return result


def _record(
    index: int,
    record: object,
    run_id: str,
    source: str,
    domain: str,
    tools: frozenset[str] | None,
    result: ImportResult,
) -> ImportedSession | None:
    def bad(field: str, message: str, rid: str | None = None) -> None:
        result.errors.append(RecordError(index=index, field=field, message=message, record_id=rid))

    if not isinstance(record, dict):
        bad("", f"expected an object, got {type(record).__name__}")
        return None
    if too_deep(record):
        bad("", TOO_DEEP)
        return None
    task_id = record.get("task_id")
    if isinstance(task_id, bool) or not isinstance(task_id, int | str):
        bad("task_id", "missing, or not a number or text")
        return None
    trial = record.get("trial", 0)
    problem = trial_problem(trial)
    if problem or not isinstance(trial, int):
        bad("trial", problem or "must be an integer", str(task_id))
        return None
    rid = f"{task_id}-{trial}"
    info = record.get("info")
    if not isinstance(info, dict) or not isinstance(info.get("task"), dict):
        bad("info.task", "missing: the task the record was graded against", rid)
        return None
    try:
        task = TauBenchTask.model_validate(info["task"])
    except ValidationError as exc:
        where, msg = first_problem(exc, "info.task")
        bad(where, msg, rid)
        return None
    traj = record.get("traj")
    if not isinstance(traj, list):
        bad("traj", "missing, or not a list of messages", rid)
        return None
    reward_info = info.get("reward_info", None)
    if reward_info is not None and not isinstance(reward_info, dict):
        bad("info.reward_info", "must be an object or null", rid)
        return None
    reward = record.get("reward")
    if reward is not None and (isinstance(reward, bool) or not isinstance(reward, int | float)):
        bad("reward", "must be a number", rid)
        return None
    if isinstance(reward, int) and not -_FLOAT_INT < reward < _FLOAT_INT:
        # The stdlib parser (the fallback for a broken file) reads integers of any length.
        bad("reward", "a number beyond the range of a float", rid)
        return None
    builder = SessionBuilder(run_id, rid)
    if not read_openai_messages(
        builder, traj, index=index, record_id=rid, tools=tools, errors=result.errors, prefix="traj"
    ):
        return None
    calls = [e.payload.name for e in builder.events if isinstance(e, ToolCallEvent)]
    if reward_info is None:
        termination = TerminationReason.max_steps
    elif "transfer_to_human_agents" in calls:
        termination = TerminationReason.transfer
    else:
        termination = TerminationReason.user_stop
    scenario = scenario_from_taubench(task, info["task"], str(task_id), domain)
    inner = reward_info.get("info") if isinstance(reward_info, dict) else None
    r_actions = inner.get("r_actions") if isinstance(inner, dict) else None
    session = builder.session(
        scenario_id=str(task_id),
        trial=trial,
        termination=termination,
        detail="reward_info is null: the run hit its step limit" if reward_info is None else "",
        metadata={"source": source, "format": FORMAT, "source_index": index},
    )
    reported = ReportedVerdict(
        reward=float(reward) if reward is not None else None,
        success=reward == 1 if reward is not None else None,
        db_match=bool(r_actions) if isinstance(r_actions, bool | int | float) else None,
        detail=reward_info,
    )
    return ImportedSession(index=index, session=session, scenario=scenario, reported=reported)
