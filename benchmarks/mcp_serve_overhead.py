"""Cost of one tool call made over MCP by an outside agent (`serve`, `http-agent:`,
`mcp-agent:`) against the same call made in process.

An MCP client (the `mcp` SDK's, streamable HTTP on loopback) makes N `get_order` calls on the
demo suite's first scenario through `serve`; the baseline, in the same process, makes the same
calls straight on the session's tool source. The difference is what the MCP hop costs per call.

    .venv/bin/python benchmarks/mcp_serve_overhead.py [--calls 200]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from sessionproof import runs
from sessionproof.engine._internal import ServedSession
from sessionproof.suites import load_suite

SCENARIO = "order-status-shipped"
ARGS = {"order_id": "1043"}


async def over_mcp(calls: int) -> tuple[float, bool]:
    """Seconds for `calls` calls through `serve`, and whether every one succeeded."""
    ready: asyncio.Queue[str] = asyncio.Queue()
    task = asyncio.create_task(
        runs.aserve(runs.ServeConfig(suite="demo", scenario=SCENARIO), on_ready=ready.put_nowait)
    )
    url = await ready.get()
    ok = True
    async with (
        streamablehttp_client(url) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        start = time.perf_counter()
        for _ in range(calls):
            result = await session.call_tool("get_order", ARGS)
            ok = ok and not result.isError
        took = time.perf_counter() - start
    await task
    return took, ok


async def in_process(calls: int) -> float:
    """Seconds for the same calls on the session's tool source, no MCP."""
    suite = load_suite("demo")
    scenario = next(s for s in suite.scenarios if s.id == SCENARIO)
    served = ServedSession(run_id="bench", session_id="b", scenario=scenario, judge=suite)
    start = time.perf_counter()
    for _ in range(calls):
        await served.call_tool("get_order", ARGS)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    mcp_s, ok = asyncio.run(over_mcp(args.calls))
    base_s = asyncio.run(in_process(args.calls))
    per_mcp = mcp_s / args.calls * 1000
    per_base = base_s / args.calls * 1000
    print(f"{args.calls} calls, all succeeded: {ok}")
    print(f"over MCP (serve, loopback): {per_mcp:.2f} ms per call")
    print(f"in process (same source):   {per_base:.3f} ms per call")
    print(f"MCP hop:                    {per_mcp - per_base:.2f} ms per call")


if __name__ == "__main__":
    main()
