"""Live export during a run: each session's spans leave as the session ends.

A `Progress` wrapper: the run hands it every finished session. The spans are built, encoded
and sent in a worker process (`_worker`), fed one session JSON per line through a pipe by a
feeder thread, so the run's own thread only puts a session on a queue and the feeder only
serializes it. A thread in this process that built and encoded the spans cost a CPU-bound run
about a third of its wall time: the span model and its protobuf encoding are pure Python and
share the run's GIL (benchmarks/otel_overhead.py measures both).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

from ..engine import Progress
from ..records import Session
from ._compat import check_compat
from ._otlp import traces_url

_log = logging.getLogger(__name__)

WORKER = ("-m", "sessionproof.telemetry._worker")
"""The worker's command line after the interpreter."""


def _child_env() -> dict[str, str]:
    """The worker's environment: ours (OTEL_* variables included), with this package's own
    source root first on the path, so the worker runs the same code as the run."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


class LiveExport:
    """Sends each finished session's spans by OTLP/HTTP while the run goes on; passes every
    progress call on to `inner`. Use as a context manager: leaving it flushes what is queued."""

    def __init__(
        self,
        inner: Progress | None,
        endpoint: str | None,
        headers: Mapping[str, str] | None = None,
        *,
        content: bool = False,
        suite: str = "",
        compat: str | None = None,
    ) -> None:
        self.inner = inner
        config = {
            "compat": check_compat(compat),
            "endpoint": None if endpoint is None else traces_url(endpoint),
            "headers": dict(headers) if headers else None,
            "content": content,
            "suite": suite,
        }
        self.spans = 0
        """Spans the worker handed to its exporter (known once closed)."""
        self.error: str | None = None
        """Why the worker failed, if it did (the run itself is not affected)."""
        # The configuration goes on stdin, not argv: headers may carry credentials.
        self.worker = subprocess.Popen(
            [sys.executable, *WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=_child_env(),
        )
        self.sessions: queue.Queue[Session | None] = queue.Queue()
        self.feeder = threading.Thread(
            target=self._feed, args=(json.dumps(config),), name="otlp-live", daemon=True
        )
        self.feeder.start()

    def _feed(self, config: str) -> None:
        stdin = self.worker.stdin
        assert stdin is not None
        try:
            stdin.write(config.encode() + b"\n")
            while (session := self.sessions.get()) is not None:
                stdin.write(session.model_dump_json().encode() + b"\n")
                stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the worker died; close() says so
        finally:
            with contextlib.suppress(OSError):
                stdin.close()

    def start(self, total: int, done: int) -> None:
        """Passed on."""
        if self.inner is not None:
            self.inner.start(total, done)

    def advance(self, session: Session) -> None:
        """Queue the session's export; pass the call on."""
        self.sessions.put(session)
        if self.inner is not None:
            self.inner.advance(session)

    def close(self) -> None:
        """Export what is queued and stop. A failed worker is logged, not raised: the run's
        sessions are stored either way and can be exported again."""
        self.sessions.put(None)
        self.feeder.join()
        # Not communicate(): it would flush the stdin the feeder already closed.
        assert self.worker.stdout is not None
        out = self.worker.stdout.read()
        self.worker.stdout.close()
        self.worker.wait()
        try:
            self.spans = int(json.loads(out.decode().strip().splitlines()[-1])["spans"])
        except (ValueError, KeyError, IndexError, TypeError):
            self.error = f"the OTLP export worker failed (exit {self.worker.returncode})"
            _log.warning("%s; export the stored run with `sessionproof export`", self.error)

    def __enter__(self) -> LiveExport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
