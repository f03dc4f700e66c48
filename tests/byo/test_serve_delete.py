"""`serve`: a DELETE that names no MCP session is answered and ends nothing; the client's
own DELETE (its MCP session's end) still ends the served session."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from sessionproof import runs
from sessionproof.runs._internal import ServeReport

from .test_serve import CANCEL, _drive, project  # noqa: F401  the fixture


@pytest.mark.slow
def test_a_delete_without_a_session_id_does_not_end_the_served_session(
    project: Path,  # noqa: F811
) -> None:
    async def main() -> tuple[int, bool, ServeReport]:
        config = runs.ServeConfig(suite=str(project), scenario="cancel-teapot")
        ready: asyncio.Queue[str] = asyncio.Queue()
        task = asyncio.create_task(runs.aserve(config, on_ready=ready.put_nowait))
        url = await ready.get()
        async with httpx.AsyncClient() as client:
            bare = await client.delete(url)
        await asyncio.sleep(0.5)
        still_serving = not task.done()
        await _drive(url, CANCEL)  # a real client does the task, then ends its session
        return bare.status_code, still_serving, await task

    status, still_serving, report = asyncio.run(main())
    assert status >= 400
    assert still_serving  # before: the bare DELETE ended the session with no calls made
    assert report.success, report.session.outcome
    assert len(report.session.tool_calls()) == 2
