"""A hand-written MCP stdio server that misbehaves at the protocol level, seeded per call.

It answers the handshake and `tools/list` properly (one tool, `act(seed)`); each `tools/call`
draws from `random.Random(seed)` one to three behaviours: junk stdout lines (text or invalid
UTF-8), a 2 MB line, a response to the wrong id, half a JSON object, a JSON-RPC error, a
tool error, a result with no text, a result of the wrong type, an exit mid-call, or silence;
then (unless it exited or went silent) the right answer.

Usage: python mcp_wild.py
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

BEHAVIOURS = (
    "noise",
    "bytes",
    "huge",
    "wrong_id",
    "partial",
    "rpc_error",
    "tool_error",
    "no_text",
    "bad_result",
    "exit",
    "silent",
    "ok",
)
out = sys.stdout.buffer


def send(obj: object) -> None:
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


def result(rid: object, value: object) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def text(value: str, error: bool = False) -> dict[str, object]:
    return {"content": [{"type": "text", "text": value}], "isError": error}


def call(rid: object, seed: int) -> None:
    rng = random.Random(seed)
    for kind in rng.sample(BEHAVIOURS, rng.randint(1, 3)):
        if kind == "noise":
            for _ in range(rng.randint(1, 50)):
                out.write(("".join(rng.choice('{}[]":, abc') for _ in range(40)) + "\n").encode())
        elif kind == "bytes":
            out.write(bytes(rng.randrange(256) for _ in range(200)) + b"\n")
        elif kind == "huge":
            out.write(b"x" * (2 * 1024 * 1024) + b"\n")
        elif kind == "wrong_id":
            result(1000 + seed, text("not yours"))
        elif kind == "partial":
            out.write(b'{"jsonrpc": "2.0", "id": ' + str(rid).encode() + b', "result": {\n')
        elif kind == "rpc_error":
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": "boom"}})
            return
        elif kind == "tool_error":
            result(rid, text("the tool failed", error=True))
            return
        elif kind == "no_text":
            result(rid, {"content": [{"type": "image", "data": "", "mimeType": "image/png"}]})
            return
        elif kind == "bad_result":
            result(rid, "a string, not a result")
            return
        elif kind == "exit":
            out.flush()
            os._exit(rng.choice([0, 1, 3, 137]))
        elif kind == "silent":
            time.sleep(600)
        out.flush()
    result(rid, text(json.dumps({"seed": seed})))


def main() -> None:
    for raw in sys.stdin.buffer:
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            result(
                rid,
                {
                    "protocolVersion": msg["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "wild", "version": "1"},
                },
            )
        elif method == "tools/list":
            schema = {"type": "object", "properties": {"seed": {"type": "integer"}}}
            result(rid, {"tools": [{"name": "act", "description": "Act.", "inputSchema": schema}]})
        elif method == "tools/call":
            call(rid, int(msg["params"]["arguments"].get("seed", 0)))
        elif rid is not None:
            result(rid, {})


if __name__ == "__main__":
    main()
