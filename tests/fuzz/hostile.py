"""Hostile agents for the fuzzer, as `python:tests.fuzz.hostile:agent` (async) or
`python:tests.fuzz.hostile:sync_agent`.

Which junk they send is decided by a seed set with `configure(seed)` (a module-level registry:
the fuzz worker sets it before each case, in the process that runs the case). Each step draws
one behaviour: unserialisable or cyclic arguments, unknown tools, huge outputs, random
exceptions (CancelledError included), wrong return types, models built without validation,
or editing the conversation it was handed. Some steps behave like the oracle so a session
gets far enough to meet later code paths.

Not covered: a very slow agent. `run` and `rerun` have no per-step agent timeout (no
`--agent-timeout` flag) to trigger, so a slow agent would only time out the fuzzer itself.
"""

from __future__ import annotations

import asyncio
import datetime
import decimal
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.agents._internal import OutputIssue
from sessionproof.records import ErrorClass, Message, ToolCall

_oracle = OracleAgent()
_state: dict[str, Any] = {"seed": 0, "calls": 0, "log": []}


def configure(seed: int) -> None:
    """Pick the junk the next session(s) get (deterministic for a seed)."""
    _state["seed"] = seed
    _state["calls"] = 0
    _state["log"] = []


def behaviours() -> list[str]:
    """What the agent did at each step since `configure`, in order (for crash reports)."""
    log: list[str] = _state["log"]
    return log


def _log(what: str) -> None:
    _state["log"].append(what)


def _show(value: Any) -> str:
    if isinstance(value, AgentResponse | Message):
        return f"{type(value).__name__}({str(value)[:60]})"
    return f"{type(value).__name__} {str(value)[:30]!r}"


class _BadStr(Exception):
    """An exception whose message itself cannot be rendered."""

    def __str__(self) -> str:
        raise RuntimeError("__str__ of this exception raises")


class _Opaque:
    """An object no serialiser knows."""

    def __repr__(self) -> str:
        return "<opaque>"


def _cyclic() -> dict[str, Any]:
    loop: dict[str, Any] = {"a": 1}
    loop["self"] = loop
    return loop


def _deep(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {}
    root = node
    for _ in range(depth):
        child: dict[str, Any] = {}
        node["n"] = child
        node = child
    return root


_JUNK_ARGS: tuple[tuple[str, Callable[[], Any]], ...] = (
    ("numpy int64", lambda: np.int64(7)),
    ("numpy float32", lambda: np.float32(1.5)),
    ("numpy array", lambda: np.arange(3)),
    ("numpy bool", lambda: np.bool_(True)),
    ("object()", _Opaque),
    ("bytes", lambda: b"\xff\x00raw"),
    ("set", lambda: {1, 2}),
    ("complex", lambda: 1 + 2j),
    ("datetime", lambda: datetime.datetime(2024, 1, 1)),
    ("Decimal", lambda: decimal.Decimal("1.10")),
    ("cyclic dict", _cyclic),
    ("deep dict", lambda: _deep(3_000)),
    ("NaN", lambda: float("nan")),
    ("inf", lambda: float("inf")),
    ("2**70", lambda: 2**70),
    ("lone surrogate", lambda: "\ud800"),
    ("5 MB string", lambda: "x" * 5_000_000),
    ("tuple key", lambda: {(1, 2): "t"}),
    ("int key", lambda: {1: "one"}),
)

_EXCEPTIONS: tuple[Callable[[], BaseException], ...] = (
    lambda: ValueError("bad value"),
    lambda: KeyError("missing"),
    lambda: TypeError("wrong type"),
    lambda: ZeroDivisionError("division by zero"),
    lambda: RecursionError("too deep"),
    lambda: NotImplementedError(),
    lambda: StopAsyncIteration(),
    lambda: asyncio.CancelledError(),
    lambda: TimeoutError(),
    lambda: OSError(5, "I/O error"),
    lambda: UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    lambda: _BadStr(),
    lambda: Exception("x" * 100_000),
    lambda: GeneratorExit(),
)


def _tool_names(request: AgentRequest) -> list[str]:
    return [t.name for t in request.tools] or ["nothing"]


def _call(name: str, arguments: Any, call_id: str = "h1") -> ToolCall:
    # Built without validation: that is how junk a user's agent made gets through.
    return ToolCall.model_construct(
        id=call_id, name=name, arguments=arguments, raw_arguments=None, parse_error=None
    )


def _behave(request: AgentRequest, rng: random.Random) -> Any:
    """One step's junk; the oracle's coroutine (not awaited) on a well-behaved step."""
    pick = rng.randrange(12)
    tools = _tool_names(request)
    if pick == 0:
        label, make = rng.choice(_JUNK_ARGS)
        args = {"order_id": make(), "email": "x@example.com"}
        call = _call(rng.choice(tools), args, call_id=f"junk {label}")
        _log(f"{label} argument")
        return AgentResponse(message=Message.assistant(None, [call]))
    if pick == 1:
        name = rng.choice(["no_such_tool", "", "x" * 10_000, "\u202eloot", "../etc", "get order"])
        call = ToolCall(id="u1", name=name, arguments={"a": 1})
        _log(f"unknown tool {name[:20]!r}")
        return AgentResponse(message=Message.assistant(None, [call]))
    if pick == 2:
        size = rng.choice([1_000_000, 5_000_000])
        _log(f"{size // 1_000_000} MB reply")
        return AgentResponse(message=Message.assistant(rng.choice(["x", "é", "\x00"]) * size))
    if pick == 3:
        error = rng.choice(_EXCEPTIONS)()
        _log(f"raise {type(error).__name__}")
        raise error
    if pick == 4:
        wrong = rng.choice(
            [
                None,
                42,
                "plain text",
                {"message": "dict"},
                [Message.assistant("in a list")],
                Message.user("a user message from the agent"),
                Message(role="tool", content="tool?", tool_call_id="zz"),
                AgentResponse.model_construct(message=None, model_calls=[], issues=[]),
                AgentResponse.model_construct(message="text", model_calls=None, issues=None),
                AgentResponse(
                    message=Message.assistant("ok"),
                    issues=[OutputIssue(error_class=ErrorClass.unknown, message="\ud800")],
                ),
                Message.model_construct(role="assistant", content=123, tool_calls="calls"),
                Message.model_construct(role="robot", content="?", tool_calls=[]),
            ]
        )
        _log(f"return {_show(wrong)}")
        return wrong
    if pick == 5:
        # Edit the conversation the engine handed over (the list and the messages in it).
        if request.messages:
            request.messages[0].content = None
            request.messages[-1].tool_calls = [_call("x", None)]
        request.messages.clear()
        _log("edit the conversation")
        return AgentResponse(message=Message.assistant("I edited history."))
    if pick == 6:
        calls = [_call(rng.choice(tools), {}, call_id="same") for _ in range(rng.choice([2, 60]))]
        _log(f"{len(calls)} calls with one id")
        return AgentResponse(message=Message.assistant(None, calls))
    if pick == 7:
        odd: Any = rng.choice([None, "not a dict", [1, 2], 5, {"": {"": {}}}])
        _log(f"arguments {odd!r}")
        return AgentResponse(message=Message.assistant(None, [_call(rng.choice(tools), odd)]))
    if pick == 8:
        call = ToolCall.model_construct(id=None, name=None, arguments={}, raw_arguments=5)
        _log("unvalidated ToolCall(id=None, name=None)")
        return AgentResponse(message=Message.assistant(None, [call]))
    _log("oracle")
    return _oracle.respond(request)


async def agent(request: AgentRequest) -> Any:
    """The async hostile agent (one behaviour per step, from the configured seed)."""
    _state["calls"] += 1
    reply = _behave(request, random.Random(f"{_state['seed']}:{_state['calls']}"))
    return await reply if asyncio.iscoroutine(reply) else reply


def sync_agent(request: AgentRequest) -> Any:
    """The same junk from a sync function (a well-behaved step returns an awaitable)."""
    _state["calls"] += 1
    return _behave(request, random.Random(f"sync:{_state['seed']}:{_state['calls']}"))
