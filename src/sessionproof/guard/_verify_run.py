"""One verified call: duplicates, preconditions, the call, its invariants, its read-back.

The `Verifier` drives the policies of `_verify` over any way of calling tools (a `Caller`):
a tool source in the harness (`VerifiedSource`), or a `Guard`'s registered tools in a
team's own service (`VerifiedGuard`). It keeps, per session, the writes it applied (for
duplicate protection).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..records import ErrorClass
from ._records import Decision, GuardDecision
from ._verify import (
    Precondition,
    ReadBack,
    VerifyConfig,
    as_data,
    broken_invariant,
    duplicate_key,
    read_arguments,
)

_SNIPPET = 200


@dataclass
class Answer:
    """What one call answered, as the verifier reads it."""

    ok: bool
    text: str
    error_class: ErrorClass | None = None
    raw: Any = None
    """The caller's own result object (handed back untouched when nothing changed it)."""


Caller = Callable[[str, dict[str, Any], str], Awaitable[Answer]]
"""Calls a tool: (name, arguments, call id) → its answer."""
Params = Callable[[str], Awaitable[list[str] | None]]
"""A tool's argument names (None: unknown)."""
Emit = Callable[[GuardDecision], None]


def _cut(text: str) -> str:
    return text if len(text) <= _SNIPPET else text[:_SNIPPET] + "…"


@dataclass
class _Call:
    """One call being verified: how to reach tools, and the call itself."""

    caller: Caller
    params: Params
    tool: str
    args: dict[str, Any]
    call_id: str

    async def read(self, tool: str, mapping: Mapping[str, str], suffix: str) -> Answer:
        """A read the policies make, its arguments derived from the call's."""
        read_args = read_arguments(mapping, self.args, await self.params(tool))
        return await self.caller(tool, read_args, f"{self.call_id}:{suffix}")

    async def send(self) -> Answer:
        """The call itself (a re-send keeps its id, as the guard's retries do)."""
        return await self.caller(self.tool, self.args, self.call_id)


def _alike(a: Answer, b: Answer) -> bool:
    """Two reads of one entity: both objects with the same fields, or both of one type."""
    x, y = as_data(a.text), as_data(b.text)
    if isinstance(x, dict) and isinstance(y, dict):
        return set(x) == set(y)
    return type(x) is type(y)


class Verifier:
    """Applies a `VerifyConfig` to calls; one per session (it remembers applied writes)."""

    def __init__(self, config: VerifyConfig, emit: Emit | None = None) -> None:
        self.config = config
        self.compiled = config.compiled()
        self.emit = emit
        self._applied: dict[tuple[str, str], str] = {}

    def _decide(self, c: _Call, decision: Decision, detail: str, attempt: int = 1) -> None:
        if self.emit is not None:
            made = GuardDecision(
                tool=c.tool, decision=decision, call_id=c.call_id, detail=detail, attempt=attempt
            )
            self.emit(made)

    async def call(
        self, caller: Caller, params: Params, tool: str, args: dict[str, Any], call_id: str
    ) -> Answer:
        """The call of `tool` under every policy that names it."""
        c = _Call(caller, params, tool, args, call_id)
        key = duplicate_key(self.config, tool, args)
        if key is not None and (tool, key) in self._applied:
            earlier = self._applied[(tool, key)]
            self._decide(c, Decision.duplicate_blocked, "same idempotency key", attempt=0)
            text = (
                f"Already applied: this {tool} call repeats one applied earlier in this session "
                f"(same idempotency key), so it was not applied again. The earlier result: "
                f"{earlier}"
            )
            return Answer(True, text)
        pre = self.config.preconditions.get(tool)
        if pre is not None:
            refused = await self._precondition(c, pre)
            if refused is not None:
                return refused
        back = self.config.read_back.get(tool)
        before = None
        if back is not None and back.expect is None:
            before = await c.read(back.read, back.arguments, "before")
        answer = await c.send()
        if not answer.ok:
            return answer
        broken = broken_invariant(self.compiled, tool, as_data(answer.text), args)
        if broken is not None:
            self._decide(c, Decision.output_invalid, f"invariant {broken}")
            text = (
                f"Error: the answer of {tool} breaks the check `{broken}`, so it was not "
                "handed on; read the data again, or tell the user it looks inconsistent."
            )
            return Answer(False, text, ErrorClass.malformed_output)
        if back is not None:
            answer = await self._read_back(c, back, before, answer)
        if answer.ok and key is not None:
            self._applied[(tool, key)] = _cut(answer.text)
        return answer

    async def _precondition(self, c: _Call, pre: Precondition) -> Answer | None:
        seen = await c.read(pre.read, pre.arguments, "pre")
        if not seen.ok:
            why = f"its precondition could not be checked ({pre.read} failed: {_cut(seen.text)})"
        elif not self.compiled.require[c.tool](as_data(seen.text), c.args):
            why = f"its precondition `{pre.require}` does not hold ({pre.read}: {_cut(seen.text)})"
        else:
            return None
        self._decide(c, Decision.precondition_failed, why[:300], attempt=0)
        text = f"Error: {c.tool} was not sent: {why}. Check the state, or tell the user."
        return Answer(False, text, seen.error_class or ErrorClass.validation_error)

    def _committed(self, c: _Call, back: ReadBack, before: Answer | None, after: Answer) -> bool:
        if back.expect is not None:
            return self.compiled.expect[c.tool](as_data(after.text), c.args)
        # Without an expectation: committed when the entity changed (or nothing to compare).
        return before is None or not before.ok or as_data(before.text) != as_data(after.text)

    async def _read_like(
        self, c: _Call, back: ReadBack, before: Answer | None, suffix: str
    ) -> Answer | None:
        """The read-back, made again once when it failed or, compared with the read before the
        write, is not a read of the same entity (other fields: an error-shaped body); None
        when the second is no better."""
        for attempt in (suffix, f"{suffix}-again"):
            after = await c.read(back.read, back.arguments, attempt)
            if after.ok and (before is None or not before.ok or _alike(before, after)):
                return after
        return None

    async def _read_back(
        self, c: _Call, back: ReadBack, before: Answer | None, answer: Answer
    ) -> Answer:
        after = await self._read_like(c, back, before, "after")
        if after is None:
            self._decide(c, Decision.pass_, f"read-back {back.read} failed: unverified")
            return answer
        if self._committed(c, back, before, after):
            return answer
        if back.idempotent:
            self._decide(c, Decision.retry, "read-back: not committed; re-sent (idempotent)")
            again = await c.send()
            check = await self._read_like(c, back, before, "after2")
            if again.ok and check is not None and self._committed(c, back, before, check):
                return again
        self._decide(c, Decision.verify_failed, f"read-back {back.read}: no effect")
        how = "shows no change" if back.expect is None else f"does not satisfy `{back.expect}`"
        resent = "re-sent once, it still did not" if back.idempotent else "it was not re-sent"
        text = (
            f"Error: {c.tool} reported success but did not take effect: a read-back with "
            f"{back.read} {how}; {resent}. Check the state before trying again, or tell the "
            "user."
        )
        return Answer(False, text, ErrorClass.server_error)
