"""NL assertions (a task's natural-language checks): judged by a model, or reported as not
evaluated (never passed silently)."""

from __future__ import annotations

import json
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from ..errors import ConfigError
from ..records import (
    AssistantMessageEvent,
    Message,
    Session,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)

if TYPE_CHECKING:
    # The agents and asyncio load when a judge model is made or asked: judging by the
    # DB and the actions alone (every `score` without --judge) needs neither.
    from ..agents import Agent

T = TypeVar("T")

_TOOL_OUTPUT_CHARS = 2000
"""Tool replies are cut to this many characters in the judge's transcript."""

_SYSTEM = (
    "You grade a customer-service conversation between an agent and a customer. You get "
    "numbered assertions about how the agent behaved. For each, decide from the transcript "
    "alone whether it holds. Answer with JSON only, no prose around it: "
    '{"results": [{"met": true or false, "justification": "one sentence"}, ...]} '
    "with one entry per assertion, in order."
)


@runtime_checkable
class NLJudge(Protocol):
    """Anything that judges natural-language assertions against a transcript."""

    name: str
    """What judged (a model spec), shown in the evidence."""

    def judge(self, assertions: Sequence[str], transcript: str) -> list[tuple[bool | None, str]]:
        """(met, justification) per assertion; met None when the judge could not tell."""
        ...


def transcript_text(session: Session) -> str:
    """The conversation as plain text lines, tool traffic included, for a judge to read."""
    lines: list[str] = []
    for event in session.events:
        if isinstance(event, UserMessageEvent):
            lines.append(f"customer: {event.payload.content or ''}")
        elif isinstance(event, AssistantMessageEvent) and event.payload.content:
            lines.append(f"agent: {event.payload.content}")
        elif isinstance(event, ToolCallEvent):
            args = json.dumps(event.payload.arguments, ensure_ascii=False)
            lines.append(f"agent calls {event.payload.name}({args})")
        elif isinstance(event, ToolResultEvent):
            out = event.payload.output[:_TOOL_OUTPUT_CHARS]
            lines.append(f"tool {event.payload.name} replies: {out}")
    return "\n".join(lines)


def _run_sync(coro: Coroutine[Any, Any, T]) -> T:
    # A judge may be called from inside a running event loop (the engine's verdict step):
    # then the coroutine runs on a worker thread's own loop.
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def parse_judgement(text: str, n: int) -> list[tuple[bool | None, str]] | None:
    """The per-assertion results in a judge's reply, or None when the reply is unusable."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or len(results) != n:
        return None
    out: list[tuple[bool | None, str]] = []
    for item in results:
        met = item.get("met") if isinstance(item, dict) else None
        why = item.get("justification", "") if isinstance(item, dict) else ""
        out.append((met if isinstance(met, bool) else None, str(why)))
    return out


class AgentJudge:
    """An NL judge backed by any agent (a model spec made into an agent)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name

    def judge(self, assertions: Sequence[str], transcript: str) -> list[tuple[bool | None, str]]:
        """Ask the model once for every assertion, seeded as the session's judge when a run
        varies seeds (`run --vary`); unusable replies judge nothing."""
        from ..agents import AgentRequest
        from ..agents._internal import current_judge_seed, note_model_calls

        numbered = "\n".join(f"{i + 1}. {a}" for i, a in enumerate(assertions))
        request = AgentRequest(
            messages=[
                Message.system(_SYSTEM),
                Message.user(f"Assertions:\n{numbered}\n\nTranscript:\n{transcript}"),
            ],
            tools=[],
            # The session's judge seed (`run --vary`); an OpenAI-compatible adapter sends it
            # as the request's `seed`, one that cannot (anthropic:) is refused by `--vary`.
            seed=current_judge_seed(),
        )
        response = _run_sync(self.agent.respond(request))
        # The session being judged (the engine's collector) records the judge's own calls.
        note_model_calls(c.model_copy(update={"role": "judge"}) for c in response.model_calls)
        parsed = parse_judgement(response.message.content or "", len(assertions))
        if parsed is None:
            return [(None, f"the judge {self.name} gave no usable verdict")] * len(assertions)
        return parsed


def make_judge(spec: str) -> NLJudge:
    """An NL judge from a model spec string (the same specs as --model)."""
    from ..agents import Agent, make_agent  # at call time: offline scoring needs neither

    agent = make_agent(spec)
    if not isinstance(agent, Agent):
        raise ConfigError(f"--judge {spec!r} did not make an agent")
    return AgentJudge(agent)
