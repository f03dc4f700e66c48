"""`serve`: an MCP client talks to the user through `reply_to_user` — its text is the
agent's message (so `communicate` criteria can pass), its result the user's next turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from sessionproof import runs
from sessionproof.engine._internal import REPLY_TOOL, USER_DONE
from sessionproof.records import EventKind

from .test_serve import project  # noqa: F401  the fixture


async def _converse(url: str, plan: list[tuple[str, dict[str, Any]]]) -> tuple[str, list[str]]:
    async with (
        streamablehttp_client(url) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        opening = tools[REPLY_TOOL].description or ""
        answers = []
        for name, args in plan:
            result = await session.call_tool(name, args)
            assert not result.isError, result
            answers.append("".join(getattr(c, "text", "") for c in result.content))
    return opening, answers


def _serve(config: runs.ServeConfig, plan: list[tuple[str, dict[str, Any]]]) -> Any:
    async def main() -> Any:
        ready: asyncio.Queue[str] = asyncio.Queue()
        task = asyncio.create_task(runs.aserve(config, on_ready=ready.put_nowait))
        talked = await _converse(await ready.get(), plan)
        return await task, talked

    return asyncio.run(main())


def test_a_client_that_tells_the_user_passes_communicate(project: Path) -> None:  # noqa: F811
    # Before: no way to reach the user, so `communicate: [shipped]` could never pass.
    config = runs.ServeConfig(suite=str(project), scenario="order-status")
    plan = [
        ("get_order", {"order_id": "O1001"}),
        (REPLY_TOOL, {"text": "Your order O1001 has shipped."}),
    ]
    report, (opening, answers) = _serve(config, plan)
    assert "where is my order O1001" in opening  # the user's first message
    assert answers[1] == USER_DONE  # a one-turn script: nothing more to say
    outcome = report.session.outcome
    assert outcome is not None and report.success, outcome
    assert [c.passed for c in outcome.criteria if c.name == "communicate"] == [True]
    kinds = [e.kind for e in report.session.events]
    assert kinds.count(EventKind.user_message) == 1
    assert report.session.agent_texts() == ["Your order O1001 has shipped."]
    assert REPLY_TOOL not in [c.name for c in report.session.tool_calls()]


def test_the_reply_is_answered_with_the_next_scripted_turn(project: Path) -> None:  # noqa: F811
    config = runs.ServeConfig(suite=str(project), scenario="moved-house")
    plan = [
        ("update_address", {"order_id": "O1003", "address": "22 Birch Road"}),
        (REPLY_TOOL, {"text": "Done, it will go to 22 Birch Road."}),
        ("cancel_order", {"order_id": "O1003", "reason": "changed_mind"}),
        (REPLY_TOOL, {"text": "Cancelled."}),
    ]
    report, (_, answers) = _serve(config, plan)
    assert "cancel it instead" in answers[1]
    assert answers[3] == USER_DONE
    assert report.success, report.session.outcome


def test_an_agent_that_never_tells_the_user_fails_communicate(project: Path) -> None:  # noqa: F811
    config = runs.ServeConfig(suite=str(project), scenario="order-status")
    report, _ = _serve(config, [("get_order", {"order_id": "O1001"})])
    outcome = report.session.outcome
    assert outcome is not None and not report.success
    assert [c.passed for c in outcome.criteria if c.name == "communicate"] == [False]
