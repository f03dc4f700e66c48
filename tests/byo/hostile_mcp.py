"""Misbehaving MCP servers for the tests, real processes and real loopback HTTP servers.

Usage: python hostile_mcp.py KIND [ARG]
  silent     print a greeting line on stdout, then never answer the handshake
  garbage    write non-JSON lines forever, never answer
  noisy      a real MCP server (the test world) that first writes ARG non-JSON lines
  helper     a real MCP server that starts a helper process (its pid written to file ARG)

`http_server(kind)` serves on 127.0.0.1 from a thread: `500` (every request HTTP 500),
`html` (an HTML page with status 200), `sse-endless` (one SSE event that never ends),
`drip` (a JSON body one byte every 2 s), `gzip-bomb` (a small gzip body inflating to 256 MiB),
`endless` (a chunked body without end), `mcp-endless-call` (a streamable HTTP MCP
server whose tool call is answered by one SSE event without end).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

WORLD = Path(__file__).parent / "mcp_server.py"


def _gzip_bomb() -> bytes:
    out = io.BytesIO()
    zero = b"\0" * (1 << 20)
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as z:
        for _ in range(256):  # 256 MiB of zeros, sixteen times the cap
            z.write(zero)
    return out.getvalue()


_BOMB: list[bytes] = []


class _Handler(BaseHTTPRequestHandler):
    kind = "500"

    def log_message(self, format: str, *args: object) -> None:
        return

    def _any(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            if self.kind == "mcp-endless-call":
                self._mcp(body)
            else:
                self._answer()
        except (BrokenPipeError, ConnectionResetError):
            return

    def _json(self, obj: object, status: int = 200) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("mcp-session-id", "s1")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _mcp(self, body: bytes) -> None:
        # A streamable HTTP MCP server that is fine until a tool is called; the call's
        # answer is one SSE event that never ends.
        msg = json.loads(body) if body else {}
        method, rid = msg.get("method"), msg.get("id")
        if self.command != "POST" or rid is None:
            self.send_response(202 if self.command == "POST" else 405)
            self.send_header("content-length", "0")
            self.end_headers()
        elif method == "initialize":
            info = {"name": "endless", "version": "1"}
            version = msg["params"]["protocolVersion"]
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
            self._json({"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "tools/list":
            tool = {"name": "add", "inputSchema": {"type": "object", "properties": {}}}
            self._json({"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool]}})
        else:
            self.kind = "sse-endless"
            self._answer()

    def _answer(self) -> None:
        kind = self.kind
        if kind == "500":
            self.send_response(500)
            self.send_header("content-length", "5")
            self.end_headers()
            self.wfile.write(b"oops\n")
        elif kind == "html":
            body = b"<html><body>hello</body></html>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif kind == "sse-endless":
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b"event: message\ndata: ")
            chunk = b"x" * 65536
            while True:
                self.wfile.write(chunk)
        elif kind == "drip":
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", "1000")
            self.end_headers()
            for _ in range(1000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(2)
        elif kind == "gzip-bomb":
            if not _BOMB:
                _BOMB.append(_gzip_bomb())
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-encoding", "gzip")
            self.send_header("content-length", str(len(_BOMB[0])))
            self.end_headers()
            self.wfile.write(_BOMB[0])
        elif kind == "endless":
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            chunk = b"x" * 65536
            frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
            while True:
                self.wfile.write(frame)

    do_GET = do_POST = do_DELETE = _any


@contextmanager
def http_server(kind: str) -> Iterator[str]:
    """A loopback HTTP server misbehaving as `kind`; yields its base URL."""
    if kind == "gzip-bomb" and not _BOMB:
        _BOMB.append(_gzip_bomb())  # made before serving: a call's time is not spent on it
    handler = type(f"H_{kind}", (_Handler,), {"kind": kind})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    kind = sys.argv[1]
    if kind == "silent":
        sys.stdout.write("Welcome to the example server v1.0\n")
        sys.stdout.flush()
        time.sleep(600)
    elif kind == "garbage":
        while True:
            sys.stdout.write("not json at all\n")
            sys.stdout.flush()
            time.sleep(0.01)
    elif kind == "noisy":
        for i in range(int(sys.argv[2])):
            sys.stdout.write(f"log line {i}\n")
        sys.stdout.flush()
        os.execv(sys.executable, [sys.executable, str(WORLD)])
    elif kind == "helper":
        helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        Path(sys.argv[2]).write_text(str(helper.pid))
        os.execv(sys.executable, [sys.executable, str(WORLD)])


if __name__ == "__main__":
    main()
