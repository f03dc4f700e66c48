"""An `http-agent` reply is capped as an `mcp-agent` reply line is: past 16 MiB (decoded) it
is the agent's malformed output for that session, and the run goes on (issue 41.8)."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.agents import AgentFailure
from sessionproof.agents._turns import MAX_REPLY_BYTES, HttpTurns
from sessionproof.cli._internal import app
from sessionproof.records import ErrorClass, Message, TerminationReason
from sessionproof.records._internal import AgentErrorEvent

from ..agents.fakeprovider import FakeProvider, Reply
from ..agents.test_http1_bounds import RawServer, Script, endless_chunks, serve

__all__ = ["serve"]  # the fixture, shared with the provider client's tests


def _big_reply(size: int) -> bytes:
    return json.dumps({"message": "x" * size}).encode()


def test_a_huge_reply_is_malformed_output_and_the_next_session_goes_on(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert CliRunner().invoke(app, ["init", str(project)]).exit_code == 0
    fake = FakeProvider().start()
    try:
        fake.push(
            Reply(raw=_big_reply(MAX_REPLY_BYTES + 1024)),
            Reply(raw=json.dumps({"message": "Order O1002 is on its way."}).encode()),
        )
        config = runs.RunConfig(
            suite=str(project), model=f"http-agent:{fake.url}/turn", concurrency=1, limit=2
        )
        sessions = {s.scenario_id: s for s in runs.run(config).sessions}
    finally:
        fake.stop()
    first, second = sessions["order-status"], sessions["cancel-teapot"]
    (event,) = [e for e in first.events if isinstance(e, AgentErrorEvent)]
    assert event.payload.error_class is ErrorClass.malformed_output
    assert f"more than {MAX_REPLY_BYTES} bytes" in event.payload.message
    assert first.termination is TerminationReason.too_many_errors
    said = [m.content for m in second.messages() if isinstance(m, Message)]
    assert "Order O1002 is on its way." in said


async def _send(url: str) -> str:
    async with httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0)) as client:
        turns = HttpTurns(client, url, url)
        return await turns.send({"session_id": "s", "turn": 0, "message": "hi"})


def gzip_bomb(server: RawServer) -> Script:
    body = gzip.compress(_big_reply(4 * MAX_REPLY_BYTES), compresslevel=9)

    def script(conn: object, stop: object) -> None:
        head = (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        server.send(conn, head + body)  # type: ignore[arg-type]

    return script  # type: ignore[return-value]


@pytest.mark.slow
@pytest.mark.parametrize("build", [endless_chunks, gzip_bomb])
async def test_an_endless_or_inflating_reply_stops_at_the_cap(
    serve: Callable[[Callable[[RawServer], Script]], RawServer],
    build: Callable[[RawServer], Script],
) -> None:
    server = serve(build)
    start = time.monotonic()
    with pytest.raises(AgentFailure, match="more than") as caught:
        await _send(server.url)
    assert caught.value.error_class is ErrorClass.malformed_output
    assert time.monotonic() - start < 15
    assert server.sent < MAX_REPLY_BYTES + 32 * 1024 * 1024
