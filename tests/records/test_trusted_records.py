"""Records built without re-validation (`records.trusted`) are the records validation builds.

Compared field by field, recursively: the same types (a float stays a float, an enum its
member), the same `model_fields_set`, the same field order, the same values; on every
format's import of the shared fixtures, and for each builder on its own. Bad values still
go through validation and get its error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from sessionproof.importers import SessionBuilder, _common, import_file
from sessionproof.importers._internal import tool_call
from sessionproof.records import (
    ErrorClass,
    EventKind,
    Message,
    Session,
    Termination,
    TerminationReason,
    ToolCall,
    ToolResult,
    UserMessageEvent,
    _fastpath,
    _trusted,
)
from sessionproof.records._internal import ModelCall, make_event

from ..suites.tau2._data import (
    AIRLINE_GPT,
    RETAIL_GPT,
    TRAJECTORIES,
    anthropic_messages,
    load,
    openai_messages,
)

ATIF = Path(__file__).resolve().parents[1] / "fixtures" / "atif"


def same(a: Any, b: Any, where: str = "", fields_set: bool = True) -> None:
    """Assert `a` and `b` are alike down to types, fields set (unless not asked) and field
    order."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, BaseModel):
        assert list(a.__dict__) == list(b.__dict__), where
        assert not fields_set or a.model_fields_set == b.model_fields_set, where
        assert a.__pydantic_extra__ == b.__pydantic_extra__, where
        assert a.__pydantic_private__ == b.__pydantic_private__, where
        for name in a.__dict__:
            same(a.__dict__[name], b.__dict__[name], f"{where}.{name}", fields_set)
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            same(a[key], b[key], f"{where}[{key!r}]", fields_set)
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]", fields_set)
    else:
        assert a == b or (a != a and b != b), f"{where}: {a!r} vs {b!r}"


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # A log without times starts its sessions at time.time(): the same for both builds.
    monkeypatch.setattr(_common.time, "time", lambda: 1_750_000_000.0)
    yield


def _run(build: Any) -> Any:
    try:
        return build()
    except ValidationError as exc:
        return ("raised", str(exc))


def _both(build: Any) -> tuple[Any, Any]:
    """What `build` gives with trusted construction and with validation only (an error's
    text when it raises)."""
    fast = _run(build)
    _trusted.ENABLED = False
    try:
        checked = _run(build)
    finally:
        _trusted.ENABLED = True
    return fast, checked


def _jsonl(tmp_path: Path, convert: Any) -> Path:
    data = load(AIRLINE_GPT)
    lines = [
        json.dumps({"id": s["id"], "messages": convert(s["messages"])}) for s in data["simulations"]
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _inputs(tmp_path: Path) -> list[tuple[Path, str]]:
    out = [(path, "tau2") for path in TRAJECTORIES]
    out += [(_jsonl(tmp_path, openai_messages), "openai")]
    anthropic = tmp_path / "anthropic"
    anthropic.mkdir()
    out += [(_jsonl(anthropic, anthropic_messages), "anthropic")]
    out += [(path, "auto") for path in sorted(ATIF.glob("*.json*"))]
    return out


@pytest.mark.slow
def test_every_format_imports_the_same_sessions_either_way(tmp_path: Path) -> None:
    for path, fmt in _inputs(tmp_path):
        fast, checked = _both(lambda p=path, f=fmt: import_file(p, f, run_id="r"))
        assert fast.sessions, path
        same(fast.errors, checked.errors, f"{path.name} errors")
        for a, b in zip(fast.sessions, checked.sessions, strict=True):
            same(a.session, b.session, f"{path.name} {a.session.session_id}")
    # Not vacuous: these were built without validation the first time.
    built = (Message, ToolCall, ToolResult, Termination, Session, UserMessageEvent)
    assert all(_trusted._templates[cls].usable for cls in built)


def test_make_event_matches_validation_for_every_kind() -> None:
    call = ToolCall(id="c1", name="get_order", arguments={"order_id": "1"})
    payloads: dict[EventKind, Any] = {
        EventKind.user_message: Message.user("hi"),
        EventKind.assistant_message: Message.assistant("ok", [call]),
        EventKind.tool_call: call,
        EventKind.tool_result: ToolResult(call_id="c1", name="get_order", output="{}"),
        EventKind.model_call: ModelCall(provider="openai", model="m"),
        EventKind.end: Termination(termination=TerminationReason.user_stop),
    }
    for kind, payload in payloads.items():
        fields = dict(run_id="r", session_id="s", seq=3, turn=1, step=2, t_wall=1.5, t_mono=0.5)
        fast, checked = _both(lambda k=kind, p=payload, f=fields: make_event(k, p, **f))
        same(fast, checked, kind.value)
        assert fast.payload is payload  # an instance is kept, as validation keeps it


def test_values_not_of_the_exact_type_are_validated() -> None:
    class Text(str):
        pass

    fields = dict(run_id="r", session_id="s", seq=0, turn=0, step=0, t_wall=1.0, t_mono=0.0)
    # An int time becomes a float, a dict payload a model, a str subclass a str: all through
    # validation, as before.
    event = make_event(EventKind.user_message, Message.user("x"), **{**fields, "t_wall": 2})
    assert type(event.t_wall) is float
    event = make_event(EventKind.user_message, {"role": "user", "content": Text("x")}, **fields)
    assert type(event.payload) is Message
    with pytest.raises(ValidationError):
        make_event(EventKind.user_message, Message.user("x"), **{**fields, "seq": "one"})
    with pytest.raises(ValidationError):
        make_event(EventKind.tool_call, Message.user("x"), **fields)
    with pytest.raises(ValidationError):
        Message.user(3)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Message.assistant("x", [{"id": 1}])  # type: ignore[list-item]
    with pytest.raises(ValidationError):
        tool_call(7, "n", {"a": 1})  # type: ignore[arg-type]


def test_builders_match_validation() -> None:
    for args in ({"a": 1}, '{"a": [1, 2.5]}', "", None, "[1]", "{bad", 12, {1: "x"}):
        fast, checked = _both(lambda a=args: tool_call("c", "tool", a))
        same(fast, checked, repr(args))
    assert _both(lambda: tool_call("c", "tool", {1: "x"}))[0][0] == "raised"  # a non-str key
    calls = [tool_call("c1", "t", {"x": 1})]
    for build in (
        lambda: Message.user("hello"),
        lambda: Message.assistant(None, calls),
        lambda: Message.assistant("text"),
        lambda: Message.tool(ToolResult(call_id="c1", name="t", output="out")),
    ):
        same(*_both(build))

    def session() -> Any:
        builder = SessionBuilder("r", "s", 10.0)
        builder.user("where is my order?", 11.0)
        builder.assistant(None, [tool_call("c1", "get_order", '{"id": "1"}')], 12.0)
        builder.tool_result("c1", "Error: no such order", None, 13.0)
        builder.tool_result("c9", "stray", False, 14.0)
        builder.tool_result("c1", "late", True, 15.0, error="boom", error_class=ErrorClass.timeout)
        builder.assistant("sorry", [], None)
        return builder.session("sc", 2, TerminationReason.agent_stop, "done", "m", {"k": [1]})

    same(*_both(session))


def test_a_session_whose_fields_are_off_type_is_validated() -> None:
    builder = SessionBuilder("r", "s", 10)  # an int start: validation makes it a float
    builder.user("hi")
    session = builder.session("sc", 0, TerminationReason.user_stop)
    assert type(session.started_at) is float
    with pytest.raises(ValidationError):
        SessionBuilder("r", "s", 1.0).session("sc", "zero", TerminationReason.user_stop)  # type: ignore[arg-type]


def test_retail_fixture_round_trips_through_json_unchanged() -> None:
    # A last net: what the store writes and reads back is what trusted construction built.
    result = import_file(RETAIL_GPT, "tau2", run_id="r")
    for item in result.sessions:
        again = type(item.session).model_validate_json(item.session.model_dump_json())
        same(again, item.session, item.session.session_id, fields_set=False)


def test_instance_falls_back_to_model_construct_where_the_layout_is_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fields = {"role": "user", "content": "x", "tool_calls": [], "tool_call_id": None, "name": None}
    direct = _fastpath.instance(Message, dict(fields), {"role", "content"})
    monkeypatch.setattr(_fastpath, "ACTIVE", False)
    constructed = _fastpath.instance(Message, dict(fields), {"role", "content"})
    same(direct, constructed)
    same(direct, Message(role="user", content="x"))
