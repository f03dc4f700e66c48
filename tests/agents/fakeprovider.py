"""A real HTTP server on 127.0.0.1 playing a model provider, for adapter tests.

Replies are scripted in order; every request is recorded with its arrival time, so tests can
count attempts and measure the waits between them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Sleep this long before answering (to exceed a client timeout)."""
    raw: bytes | None = None
    """Exact body bytes, sent instead of `body` as JSON."""


@dataclass
class Seen:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    t: float


class FakeProvider:
    """Serve scripted replies on a free port; an unscripted POST gets a 500, a GET a 404."""

    def __init__(self, responder: Callable[[Seen], Reply] | None = None) -> None:
        self.replies: list[Reply] = []
        self.responder = responder
        """Answers a POST when no scripted reply is left (a whole run's worth of calls)."""
        self.routes: dict[str, Reply] = {}
        """Fixed replies by path (e.g. `/props`), not consumed."""
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with owner._lock:
                    owner.seen.append(
                        Seen(
                            self.command,
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                            time.monotonic(),
                        )
                    )
                    reply = owner.routes.get(self.path)
                    if reply is None and self.command == "GET":
                        reply = Reply({"error": {"message": "not found"}}, status=404)
                    if reply is None and owner.replies:
                        reply = owner.replies.pop(0)
                    if reply is None and owner.responder is not None:
                        reply = owner.responder(owner.seen[-1])
                    if reply is None:
                        reply = Reply({"error": {"message": "no scripted reply"}}, status=500)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    headers = {"content-type": "application/json", **reply.headers}
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left

            def do_POST(self) -> None:
                self._serve()

            def do_GET(self) -> None:
                self._serve()

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def root(self) -> str:
        """The server's root URL."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (`/v1`)."""
        return f"{self.root}/v1"

    def push(self, *replies: Reply) -> None:
        """Queue replies, answered in order."""
        with self._lock:
            self.replies.extend(replies)

    def posts(self) -> list[Seen]:
        """The POST requests received, in order."""
        return [s for s in self.seen if s.method == "POST"]

    def start(self) -> FakeProvider:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        self._httpd.shutdown()
        self._httpd.server_close()


def completion(
    content: str | None = None,
    tool_calls: Sequence[tuple[str | None, str, Any]] | None = None,
    *,
    finish_reason: str = "stop",
    usage: dict[str, Any] | None = None,
    response_id: str = "chatcmpl-fake",
) -> dict[str, Any]:
    """A chat-completions response body; tool calls are (id, name, arguments)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for call_id, name, args in tool_calls
        ]
    return {
        "id": response_id,
        "object": "chat.completion",
        "created": 1,
        "model": "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": usage or {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def error(message: str, status: int, **headers: str) -> Reply:
    """An OpenAI-style error reply."""
    return Reply({"error": {"message": message, "type": "error"}}, status=status, headers=headers)
