"""Hostile `python:` agents: the oracle, except on one scenario they send a reply that no
store or provider could take. Used by the engine tests and, as
`python:tests.engine.hostile:NAME` specs, by the CLI tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.records import Message, ToolCall

_oracle = OracleAgent()

TARGET = load_scenarios()[0].id
"""The demo scenario every hostile agent breaks (the first one, so `--limit` keeps it)."""


def _recursive() -> dict[str, Any]:
    loop: dict[str, Any] = {"name": "loop"}
    loop["self"] = loop
    return loop


def _deep(depth: int) -> list[Any]:
    top: list[Any] = []
    cur = top
    for _ in range(depth):
        nxt: list[Any] = []
        cur.append(nxt)
        cur = nxt
    return top


BAD_VALUES: dict[str, Callable[[], Any]] = {
    "numpy_int": lambda: np.int64(1042),
    "numpy_array": lambda: np.array([1, 0, 4, 2]),
    "bare_object": object,
    "a_lambda": lambda: lambda: 1042,
    "ellipsis": lambda: ...,
    "bad_bytes": lambda: b"\xff\xfe\x00",
    "recursive_dict": _recursive,
    "deep_list": lambda: _deep(5000),
    "huge_int": lambda: 10**5000,
    "int_over_64_bits": lambda: 2**70,
    "not_a_number": lambda: float("nan"),
}
"""Tool-call argument values that are not plain JSON, by the name of the agent sending them."""


def _bad_reply(name: str) -> AgentResponse:
    call = ToolCall(id="bad", name="get_order", arguments={"order_id": BAD_VALUES[name]()})
    return AgentResponse(message=Message.assistant(None, [call]))


def _hostile(name: str) -> Callable[[AgentRequest], Awaitable[AgentResponse]]:
    async def agent(request: AgentRequest) -> AgentResponse:
        if request.scenario is not None and request.scenario.id == TARGET:
            return _bad_reply(name)
        return await _oracle.respond(request)

    agent.__name__ = name
    return agent


numpy_int = _hostile("numpy_int")
numpy_array = _hostile("numpy_array")
bare_object = _hostile("bare_object")
a_lambda = _hostile("a_lambda")
ellipsis = _hostile("ellipsis")
bad_bytes = _hostile("bad_bytes")
recursive_dict = _hostile("recursive_dict")
deep_list = _hostile("deep_list")
huge_int = _hostile("huge_int")
int_over_64_bits = _hostile("int_over_64_bits")
not_a_number = _hostile("not_a_number")


async def constructed(request: AgentRequest) -> AgentResponse:
    """Skips validation: `model_construct` with plain dicts where ToolCalls belong."""
    if request.scenario is not None and request.scenario.id == TARGET:
        msg = Message.model_construct(
            role="assistant",
            content=None,
            tool_calls=[{"id": "c", "name": "get_order", "arguments": {"order_id": "1042"}}],
        )
        return AgentResponse.model_construct(message=msg, model_calls=[], issues=[])
    return await _oracle.respond(request)


HOSTILE = [*BAD_VALUES, "constructed"]
"""Every hostile agent's name in this module."""


async def hangs(request: AgentRequest) -> AgentResponse:
    """Awaits forever on the target scenario."""
    if request.scenario is not None and request.scenario.id == TARGET:
        await asyncio.Event().wait()
    return await _oracle.respond(request)


async def cancels(request: AgentRequest) -> AgentResponse:
    """Raises CancelledError (nobody cancelled it) on the target scenario."""
    if request.scenario is not None and request.scenario.id == TARGET:
        raise asyncio.CancelledError
    return await _oracle.respond(request)


async def vandal(request: AgentRequest) -> AgentResponse:
    """The oracle, but it first scribbles over every message it was given."""
    response = await _oracle.respond(request)
    for msg in request.messages:
        msg.content = "VANDALISED"
        for call in msg.tool_calls:
            if call.arguments:
                for key in call.arguments:
                    call.arguments[key] = "VANDALISED"  # in place, one level down
    if request.scenario is not None:
        request.scenario.criteria.communicate.clear()
        request.scenario.criteria.gold_actions.clear()
    return response


def _on_target(make: Callable[[AgentRequest], Any]) -> Callable[[AgentRequest], Awaitable[Any]]:
    async def agent(request: AgentRequest) -> Any:
        if request.scenario is not None and request.scenario.id == TARGET:
            return make(request)
        return await _oracle.respond(request)

    return agent


def _raise(exc: BaseException) -> Callable[[AgentRequest], Any]:
    def make(request: AgentRequest) -> Any:
        raise exc

    return make


def _one_call(call: ToolCall) -> AgentResponse:
    return AgentResponse(message=Message.assistant(None, [call]))


def _unchecked(**fields: Any) -> ToolCall:
    # Built without validation, as a user's agent may: any field can hold anything.
    return ToolCall.model_construct(**{"raw_arguments": None, "parse_error": None, **fields})


CONSTRUCTED: dict[str, Callable[[AgentRequest], Any]] = {
    "call_without_id_or_name": lambda r: _one_call(
        _unchecked(id=None, name=None, arguments={}, raw_arguments=5)
    ),
    "call_with_int_name": lambda r: _one_call(_unchecked(id="c", name=7, arguments={})),
    "list_arguments": lambda r: _one_call(_unchecked(id="c", name="get_order", arguments=[1, 2])),
    "text_arguments": lambda r: _one_call(_unchecked(id="c", name="get_order", arguments="x")),
    "tuple_key": lambda r: _one_call(_unchecked(id="c", name="get_order", arguments={(1, 2): "t"})),
    "unknown_tool_tuple_key": lambda r: _one_call(
        _unchecked(id="c", name="no_such_tool", arguments={(1, 2): "t"})
    ),
    "int_content": lambda r: AgentResponse(
        message=Message.model_construct(role="assistant", content=123, tool_calls="calls")
    ),
    "robot_role": lambda r: AgentResponse(
        message=Message.model_construct(role="robot", content="?", tool_calls=[])
    ),
    "text_message": lambda r: AgentResponse.model_construct(
        message="text", model_calls=None, issues=None
    ),
    "no_message": lambda r: AgentResponse.model_construct(message=None, model_calls=[], issues=[]),
    "raises_stop_async_iteration": _raise(StopAsyncIteration()),
}
"""Replies built with `model_construct` (and BaseExceptions), by agent name: each must end
its session as an agent error, whatever the guard or the recorder meet next."""

for _name, _make in CONSTRUCTED.items():
    globals()[_name] = _on_target(_make)


class Unusual(BaseException):
    """A user's own BaseException subclass (not an Exception)."""


RAISES: dict[str, Callable[[AgentRequest], Any]] = {
    "raises_generator_exit": _raise(GeneratorExit()),
    "raises_base_exception": _raise(Unusual("mine")),
}
"""Agents raising a BaseException that is not an Exception, by name: only KeyboardInterrupt,
SystemExit and a real cancellation of the run may stop it."""

for _name, _make in RAISES.items():
    globals()[_name] = _on_target(_make)
