"""A `python:` agent that re-reads after each write: the oracle's calls, each write checked.

It makes a scenario's gold calls as the oracle does (a reference agent: it reads the scenario),
but around every write it reads the entity the write names — once before, once after — with a
read tool that takes the same id argument. When a write reported success and the read after
it equals the read before, the write did not take effect: it sends the write once more and
reads again; if it still did not take effect (or a write answered with an error), it tells
the user so instead of claiming success. It is the reference for "an agent with a
verification step" in `benchmarks/implicit_faults.py`, against the oracle, which never
checks. From this folder:

    sessionproof run --suite tau2-retail --model python:verifying_agent:respond --limit 5

Each user turn goes through stages, told apart by the ids of the calls made since the last
user message: `pre-*` reads, then the oracle's calls, then `post-*` reads, then, for writes
that did not take effect, `again-*` writes and `post2-*` reads, then the reply.
"""

from __future__ import annotations

import json
from typing import Any

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.records import Message, ToolCall, ToolSpec

ORACLE = OracleAgent()


def _split(messages: list[Message]) -> tuple[list[Message], list[Message]]:
    """The conversation up to the last user message (included), and what came after it."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            return messages[: i + 1], messages[i + 1 :]
    return [], list(messages)


def _id_args(args: dict[str, Any]) -> dict[str, Any]:
    named = (k for k in args if k == "id" or k.endswith("_id"))
    return {k: args[k] for k in named if isinstance(args[k], str)}


def _reader(write: ToolCall, tools: list[ToolSpec]) -> ToolCall | None:
    """A read of the entity `write` names: a read tool whose required arguments are all id
    arguments of the write (the first such tool, in listing order)."""
    ids = _id_args(write.arguments or {})
    for spec in tools:
        if spec.write or spec.name.startswith("transfer"):
            continue
        required = list((spec.parameters or {}).get("required") or [])
        if required and all(r in ids for r in required):
            args = {r: ids[r] for r in required}
            return ToolCall(id="", name=spec.name, arguments=args)
    return None


def _reads(prefix: str, writes: list[ToolCall], tools: list[ToolSpec]) -> list[ToolCall]:
    found = []
    for w in writes:
        read = _reader(w, tools)
        if read is not None:
            found.append(read.model_copy(update={"id": f"{prefix}-{w.id}"}))
    return found


def _data(text: str | None) -> Any:
    try:
        return json.loads(text or "")
    except ValueError:
        return text


async def _gold(request: AgentRequest) -> list[ToolCall]:
    """The oracle's calls for this turn, asked as if nothing had been called yet."""
    upto, _ = _split(request.messages)
    planned = await ORACLE.respond(request.model_copy(update={"messages": upto}))
    return planned.message.tool_calls


def _ask(calls: list[ToolCall]) -> AgentResponse:
    return AgentResponse(message=Message.assistant(None, calls))


async def respond(request: AgentRequest) -> AgentResponse:
    """The next step of the turn (see the module docstring)."""
    _, since = _split(request.messages)
    calls = {c.id: c for m in since if m.role == "assistant" for c in m.tool_calls}
    results = {m.tool_call_id: m.content or "" for m in since if m.role == "tool"}
    writes_of = {s.name for s in request.tools if s.write}
    stage = {cid.split("-", 1)[0] for cid in calls}
    if not calls:
        gold = await _gold(request)
        if not gold:
            return await ORACLE.respond(request)  # nothing to do this turn: its reply
        pre = _reads("pre", [c for c in gold if c.name in writes_of], request.tools)
        return _ask(pre or gold)
    if "oracle" not in stage:  # the reads before the writes are in: now the oracle's calls
        return _ask(await _gold(request))
    writes = [
        c
        for cid, c in calls.items()
        if cid.startswith("oracle")
        and c.name in writes_of
        and not results.get(cid, "").startswith("Error")
    ]
    if "post" not in stage and (post := _reads("post", writes, request.tools)):
        return _ask(post)

    def same(w: ToolCall, after: str) -> bool:
        before = results.get(f"pre-{w.id}")
        return before is not None and _data(before) == _data(results.get(f"{after}-{w.id}"))

    unchanged = [w for w in writes if same(w, "post")]
    if unchanged and "again" not in stage:
        return _ask([w.model_copy(update={"id": f"again-{w.id}"}) for w in unchanged])
    if unchanged and "post2" not in stage:
        return _ask(_reads("post2", unchanged, request.tools))
    still = [w.name for w in unchanged if same(w, "post2")]
    failed = [
        c.name
        for cid, c in calls.items()
        if cid.startswith("oracle")
        and c.name in writes_of
        and results.get(cid, "").startswith("Error")
    ]
    if still or failed:
        parts = [f"{', '.join(still)} did not take effect, even after a second try"]
        parts = (parts if still else []) + ([f"{', '.join(failed)} failed"] if failed else [])
        text = (
            f"I'm sorry: {'; '.join(parts)}, so nothing was changed there. Please contact us "
            "again later."
        )
        return AgentResponse(message=Message.assistant(text))
    return await ORACLE.respond(request)
