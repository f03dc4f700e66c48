"""A run against an `http-agent` answering with every hostile reply kind, one kind per
session: each bad session is classified, the others go on, the console says one line per
session and no traceback, and memory stays bounded (issue 41.8, 41.19)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil
import pytest

from sessionproof.records import ErrorClass, Session, TerminationReason
from sessionproof.records._internal import AgentErrorEvent
from sessionproof.store import Store

ROOT = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024


def _bomb(size: int) -> bytes:
    """`size` bytes of JSON padding, gzip-compressed (a few hundred KB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(b'{"message": "')]
    block = b"x" * MiB
    parts += [packer.compress(block) for _ in range(size // MiB)]
    parts += [packer.compress(b'"}'), packer.flush()]
    return b"".join(parts)


BOMB = _bomb(256 * MiB)
OK = json.dumps({"message": "Thanks, noted."}).encode()

KINDS: dict[str, tuple[ErrorClass | str, ...]] = {
    "ok": ("judged",),
    "not_json": (ErrorClass.malformed_output,),
    "no_message": (ErrorClass.malformed_output,),
    "message_not_string": (ErrorClass.malformed_output,),
    "truncated": (ErrorClass.malformed_output,),
    "empty": (ErrorClass.malformed_output,),
    "deep": (ErrorClass.malformed_output,),
    "huge": (ErrorClass.malformed_output,),
    "gzip_bomb": (ErrorClass.malformed_output,),
    "bad_gzip": (ErrorClass.malformed_output,),
    "http_500": (ErrorClass.server_error,),
    "invalid_utf8": ("judged",),
    "close_early": ("infra_error",),
    "drip": (ErrorClass.timeout,),
}
"""Each reply kind and how its session must end: judged, an agent error of that class, or
infra_error (not judged)."""


class _Agent(BaseHTTPRequestHandler):
    assigned: dict[str, str]
    lock: threading.Lock
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, body: bytes, status: int = 200, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        turn = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            kind = self.assigned.setdefault(
                turn["session_id"], list(KINDS)[len(self.assigned) % len(KINDS)]
            )
        if kind == "ok":
            self._send(OK)
        elif kind == "not_json":
            self._send(b"<html>oops</html>")
        elif kind == "no_message":
            self._send(b'{"reply": "x"}')
        elif kind == "message_not_string":
            self._send(b'{"message": 12}')
        elif kind == "truncated":
            self._send(b'{"message": "Thanks')
        elif kind == "empty":
            self._send(b"")
        elif kind == "deep":
            self._send(b"[" * 200_000 + b"]" * 200_000)
        elif kind == "huge":
            self._send(json.dumps({"message": "y" * (17 * MiB)}).encode())
        elif kind == "gzip_bomb":
            self._send(BOMB, Content_Encoding="gzip")
        elif kind == "bad_gzip":
            self._send(b"this is not gzip at all", Content_Encoding="gzip")
        elif kind == "http_500":
            self._send(b'{"error": "agent crashed"}', status=500)
        elif kind == "invalid_utf8":
            self._send(b'{"message": "caf\xff\xfe ok"}')
        elif kind == "close_early":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"message": ')
            self.wfile.flush()
            self.close_connection = True
        else:  # drip: headers, then a byte every 0.2 s until the client hangs up
            self.send_response(200)
            self.send_header("Content-Length", str(10 * MiB))
            self.end_headers()
            end = time.monotonic() + 30
            while time.monotonic() < end:
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.2)


@pytest.fixture
def agent() -> Iterator[tuple[str, dict[str, str]]]:
    assigned: dict[str, str] = {}
    handler = type("Handler", (_Agent,), {"assigned": assigned, "lock": threading.Lock()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/turn", assigned
    finally:
        server.shutdown()
        server.server_close()


def _watch(proc: subprocess.Popen[str], peak: list[int]) -> None:
    watched = psutil.Process(proc.pid)
    while proc.poll() is None:
        try:
            peak.append(watched.memory_info().rss)
        except psutil.Error:
            return
        time.sleep(0.02)


@pytest.mark.slow
def test_every_hostile_reply_kind_is_classified_and_the_run_goes_on(
    agent: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    url, assigned = agent
    store = tmp_path / "s.duckdb"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessionproof.cli", "run", "--suite", "demo",
         "--model", f"http-agent:{url}", "--limit", "7", "--trials", "2", "--concurrency", "1",
         "--agent-timeout", "3", "--no-report", "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"},
    )  # fmt: skip
    peak: list[int] = []
    watcher = threading.Thread(target=_watch, args=(proc, peak), daemon=True)
    watcher.start()
    _, err = proc.communicate(timeout=300)
    watcher.join()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert len(progress) == len(KINDS)  # one line per session, nothing else per problem
    with Store.open(store, read_only=True) as db:
        (listed,) = db.list_runs()
        sessions = {s.session_id: s for s in db.load_sessions(listed.run_id)}
    assert set(assigned.values()) == set(KINDS) and len(sessions) == len(KINDS)
    for session_id, kind in assigned.items():
        session: Session = sessions[session_id]
        (expected,) = KINDS[kind]
        errors = [e for e in session.events if isinstance(e, AgentErrorEvent)]
        if expected == "judged":
            assert session.verdict is not None and not errors, (kind, session.termination)
        elif expected == "infra_error":
            assert session.termination is TerminationReason.infra_error, kind
            assert session.verdict is None
        else:
            assert session.termination is TerminationReason.too_many_errors, kind
            assert [e.payload.error_class for e in errors] == [expected], (kind, errors)
    # The 256 MiB the gzip bomb inflates to, and the 17 MiB reply, are never held whole.
    assert max(peak) < 400 * MiB, max(peak) // MiB
