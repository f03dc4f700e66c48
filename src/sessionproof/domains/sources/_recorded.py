"""Recorded responses: a transcript's own tool results, served back without its domain.

For rerunning a transcript whose domain is not available here. Each call is answered by
the recorded call of the same tool whose arguments are equal after normalisation (key order
ignored, 1 and 1.0 equal): the first such call not answered yet, in transcript order, or,
once all are used, the last of them again (a repeated read). Its recorded output and error
class come back unchanged. Any other call gets an explicit "no recorded response" result,
classified `not_found`, and a `recorded_divergence` event marks it in the trace: the rerun
has left what the recording can say.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ...records import ErrorClass, EventKind, Session, ToolCall, ToolResult, ToolSpec
from ...records._internal import RecordedDivergence
from .. import Domain, DomainSpec, SchemaTools
from .._results import error_result
from .._source import ToolContext
from ._fixtures import NoState, normalised

NO_RECORDED_RESPONSE = "no recorded response"
"""How every answer outside the recording begins."""


@dataclass(frozen=True)
class RecordedCall:
    """One call of the transcript and the result it got."""

    tool: str
    arguments: dict[str, Any]
    result: ToolResult


def recorded_calls(session: Session) -> list[RecordedCall]:
    """The session's answered calls with parsed arguments, in order, with their results."""
    results = {r.call_id: r for r in session.tool_results()}
    return [
        RecordedCall(c.name, dict(c.arguments), results[c.id])
        for c in session.tool_calls()
        if c.id in results and c.arguments is not None
    ]


def _specs(calls: Sequence[RecordedCall], policy_tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The transcript's own tool specs when it carries them, else one per called tool with
    the parameters it was called with (any value accepted: the recording has no schema)."""
    if policy_tools:
        return list(policy_tools)
    params: dict[str, dict[str, Any]] = {}
    for c in calls:
        params.setdefault(c.tool, {}).update({k: {} for k in c.arguments})
    return [
        ToolSpec(
            name=name,
            description=f"{name} (recorded: answered from the transcript's own results)",
            parameters={"type": "object", "properties": props},
        )
        for name, props in params.items()
    ]


class RecordedTools(SchemaTools):
    """A tool source answering from one transcript's recorded calls (see the module)."""

    def __init__(self, calls: Sequence[RecordedCall], specs: Sequence[ToolSpec]) -> None:
        super().__init__([], validate=False, fast=True)
        self._calls = list(calls)
        self._keys = [(c.tool, normalised(c.arguments)) for c in self._calls]
        self._used = [False] * len(self._calls)
        self._specs = list(specs)

    def specs(self) -> list[ToolSpec]:
        """The recorded tools."""
        return list(self._specs)

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """The recorded tools."""
        return self.specs()

    def _match(self, call: ToolCall) -> int | None:
        key = (call.name, normalised(call.arguments))
        last: int | None = None
        for i, k in enumerate(self._keys):
            if k == key:
                if not self._used[i]:
                    self._used[i] = True
                    return i
                last = i
        return last

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """The recorded result of the matching call, or a divergence (see the module)."""
        start = time.perf_counter()
        index = self._match(call) if call.arguments is not None else None
        if index is not None:
            recorded = self._calls[index].result
            return recorded.model_copy(
                update={"call_id": call.id, "name": call.name, "injected": False, "latency_s": 0.0}
            )
        if call.arguments is None:
            reason, detail = "unparsed", call.parse_error or "arguments are not a JSON object"
        elif call.name not in {c.tool for c in self._calls}:
            reason, detail = "unknown_tool", f"the transcript never called {call.name}"
        else:
            reason, detail = (
                "arguments",
                f"the transcript never called {call.name} with these arguments",
            )
        ctx.emit(
            EventKind.recorded_divergence,
            RecordedDivergence(
                call_id=call.id,
                tool=call.name,
                arguments=call.arguments,
                reason=reason,
                detail=detail,
            ),
        )
        shown = orjson.dumps(call.arguments, option=orjson.OPT_SORT_KEYS).decode()[:200]
        text = f"{NO_RECORDED_RESPONSE} for {call.name} with arguments {shown} ({detail})"
        return error_result(call, ErrorClass.not_found, text, start)


class RecordedDomainSpec(DomainSpec):
    """Fresh recorded-response domains for one transcript (each session starts unused)."""

    stateful = False
    """No DB: the domain's state is unknown, so state assertions and gold replay do not apply."""

    def __init__(
        self, name: str, session: Session, policy: str = "", tools: Sequence[ToolSpec] = ()
    ) -> None:
        self.name = name
        self.calls = recorded_calls(session)
        self.specs = _specs(self.calls, tools)
        system = [m.content for m in session.messages() if m.role == "system" and m.content]
        self.policy = policy or (system[0] if system else "")
        # A transfer the original made ends the rerun the same way.
        self.transfer_tools = frozenset({"transfer_to_human_agents"}) & {c.tool for c in self.calls}

    def create(self) -> Domain[Any]:
        """A new domain over the recording."""
        return Domain(
            self.name,
            NoState(),
            RecordedTools(self.calls, self.specs),
            self.policy,
            self.transfer_tools,
        )

    def tools(self) -> list[ToolSpec]:
        """The recorded tools."""
        return list(self.specs)
