"""A real MCP server for the tests (official SDK): a counter, plus tools that misbehave.

Usage: python mcp_server.py [stdio | http PORT]
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.fastmcp import FastMCP

server = FastMCP("test-world", host="127.0.0.1")
COUNTER = {"n": 0}


@server.tool()
def add(amount: int) -> str:
    """Add to the counter; returns the new value."""
    COUNTER["n"] += amount
    return f'{{"n": {COUNTER["n"]}}}'


@server.tool()
def crash() -> str:
    """Exit the server process mid-session."""
    os._exit(3)


@server.tool()
def hang() -> str:
    """Never answer (well: not within any test's timeout)."""
    time.sleep(60)
    return "late"


@server.tool()
def garbage() -> str:
    """Write a line that is not JSON-RPC onto the protocol stream, then never answer."""
    sys.stdout.write("this is not json\n")
    sys.stdout.flush()
    time.sleep(60)
    return "late"


if __name__ == "__main__":
    # A server that is slow to start (heavy imports, a busy machine) but quick to answer.
    time.sleep(float(os.environ.get("SLOW_START", "0")))
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.settings.port = int(sys.argv[2])
        server.run(transport="streamable-http")
    else:
        server.run()
