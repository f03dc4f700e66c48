"""Live export during a run: each session's spans leave as the session ends.

A `Progress` wrapper: the run hands it every finished session; a background thread turns the
sessions into spans (with the metrics that need no gold-path replay) and the SDK's batch
processor sends them by OTLP/HTTP, so the run's own thread only puts a session on a queue.

What it costs a CPU-bound run (benchmarks/otel_overhead.py, the instant oracle): the thread's
share of the GIL, about 1.9 ms of CPU per demo session, 60% of it the exporter's pure-Python
protobuf encoding. A worker process was tried twice (once with the session JSON on a pipe):
it frees the GIL, but its start-up (~1.6 s CPU) and per-session work (~3.7 ms, JSON decoding
included) on a 2-core machine shared with other load made the run slower, not faster.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from ..engine import Progress
from ..records import Session
from . import _names as n
from ._compat import check_compat
from ._evals import Scenarios
from ._otlp import traces_url
from ._readable import session_spans
from ._spans import default_resource


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
        # Imported here: only a live export needs the HTTP exporter (and requests).
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        self.inner = inner
        self.content = content
        self.compat = check_compat(compat)
        exporter = OTLPSpanExporter(
            endpoint=None if endpoint is None else traces_url(endpoint),
            headers=dict(headers) if headers else None,
        )
        self.processor = BatchSpanProcessor(exporter)
        self.resource = default_resource().merge(Resource({n.RUN_SUITE: suite}))
        # No gold-path replay while the run goes on: it costs about as much CPU as the run
        # itself. Survival by depth and the failure source come with `sessionproof export`.
        self.scenarios = Scenarios(suite or None, replay=False)
        self.sessions: queue.Queue[Session | None] = queue.Queue()
        self.spans = 0
        """Spans handed to the exporter so far."""
        self.thread = threading.Thread(target=self._work, name="otlp-live", daemon=True)
        self.thread.start()

    def _work(self) -> None:
        while (session := self.sessions.get()) is not None:
            spans = session_spans(
                session,
                content=self.content,
                resource=self.resource,
                evaluations=self.scenarios.evaluations(session),
                compat=self.compat,
            )
            for span in spans:
                self.processor.on_end(span)
                self.spans += 1

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
        """Export what is queued and stop."""
        self.sessions.put(None)
        self.thread.join()
        self.processor.shutdown()  # type: ignore[no-untyped-call]

    def __enter__(self) -> LiveExport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
