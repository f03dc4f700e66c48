"""Live export during a run: each session's spans leave as the session ends.

A `Progress` wrapper: the run hands it every finished session; a background thread turns the
sessions into spans and the SDK's batch processor sends them by OTLP/HTTP, so the run's own
thread only puts a session on a queue. (A worker process was tried: its start-up and the
session JSON cost more than the thread's share of the GIL.)
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
from ._otlp import traces_url
from ._spans import default_resource, session_spans


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
    ) -> None:
        # Imported here: only a live export needs the HTTP exporter (and requests).
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        self.inner = inner
        self.content = content
        exporter = OTLPSpanExporter(
            endpoint=None if endpoint is None else traces_url(endpoint),
            headers=dict(headers) if headers else None,
        )
        self.processor = BatchSpanProcessor(exporter)
        self.resource = default_resource().merge(Resource({n.RUN_SUITE: suite}))
        self.sessions: queue.Queue[Session | None] = queue.Queue()
        self.spans = 0
        """Spans handed to the exporter so far."""
        self.thread = threading.Thread(target=self._work, name="otlp-live", daemon=True)
        self.thread.start()

    def _work(self) -> None:
        while (session := self.sessions.get()) is not None:
            for span in session_spans(session, content=self.content, resource=self.resource):
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
