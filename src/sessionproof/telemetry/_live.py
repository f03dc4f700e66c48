"""Live export during a run: each session's spans leave as the session ends.

A `Progress` wrapper: the run hands it every finished session and only puts it on a queue; a
background thread turns the sessions into OTLP protobuf spans (`_spans`, with the metrics that
need no gold-path replay), a burst of sessions at a time (32 of them, or those of the last
second), and sends them in batches by the SDK exporter's HTTP client, as its batch span
processor would: once `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` spans (512) wait (a batch ends with a
whole session, so it may hold a few more), and within `OTEL_BSP_SCHEDULE_DELAY` ms (5000) of
the end of its first session. At most `OTEL_BSP_MAX_QUEUE_SIZE` (2048) sessions wait for a
slow collector (the SDK counts spans there, but a session's spans are built only when it
leaves the queue); later ones are dropped, with one warning.

What it costs a run is the thread's share of the GIL: about 0.85 ms of CPU per demo session
done back to back (0.2 the metrics, 0.5 the spans, the rest sending), 1.6 ms before the spans
were built as protobuf messages and the SDK's span objects, batch processor and pure-Python
encoder left out. On benchmarks/otel_overhead.py that is +9% to +17% of the run's CPU and wall
time with the instant oracle (it was +23% to +40%; valgrind counts +13% of the run's
instructions, +24% before) and +10% of its CPU with 50 ms per agent decision, whose wall time
it leaves unchanged: over the 5% target. What is left is mostly the data (about 150 attributes
per session, each a KeyValue upb builds in ~0.7 µs; every call's JSON Schema validation).
A worker process was tried twice (once with the session JSON on a pipe): it frees the GIL,
but its start-up (~1.6 s CPU) and per-session work (~3.7 ms, JSON decoding included) on a
2-core machine shared with other load made the run slower, not faster. Tried again here: a
fork costs the run more in copy-on-write faults than it saves (+19% run CPU); a worker
spawned and ready before the run costs it +3% CPU, but 1-3 s to start and 1.7 s of CPU.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Mapping

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.environment_variables import (
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
    OTEL_BSP_MAX_QUEUE_SIZE,
    OTEL_BSP_SCHEDULE_DELAY,
)
from opentelemetry.sdk.resources import Resource

from ..engine import Progress
from ..records import Session
from . import _names as n
from ._compat import check_compat
from ._evals import Scenarios
from ._otlp import exporter, new_request, post, request_spans
from ._spans import SpanSink, add_spans, default_resource

_log = logging.getLogger(__name__)


class _Tick:
    """What the queue gives when a deadline came first."""


_TICK = _Tick()


def _env_int(name: str, default: int) -> int:
    """A positive integer from the environment, else `default` (a bad value is logged)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        _log.warning("%s=%r is not a positive integer; using %d", name, raw, default)
        return default
    return value


class LiveExport:
    """Sends each finished session's spans by OTLP/HTTP while the run goes on; passes every
    progress call on to `inner`. Use as a context manager: leaving it flushes what is queued."""

    # Sessions are built in bursts, not one by one as they end: a thread woken for each
    # session ran on cold caches and took the GIL from the run each time, which cost half as
    # much again as the same work done back to back, or more (benchmarks/otel_overhead.py).
    gather_s = 1.0
    """How long a finished session may wait for others before their spans are built (at
    most the schedule delay)."""
    gather_n = 32
    """How many finished sessions may wait: the last of them starts the burst."""

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
        self.content = content
        self.compat = check_compat(compat)
        self.exporter = exporter(endpoint, headers)
        resource = default_resource().merge(Resource({n.RUN_SUITE: suite}))
        # An empty request, copied for each batch: the resource is encoded once.
        self.template = new_request(resource)
        self.batch_size = _env_int(OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512)
        self.max_waiting = _env_int(OTEL_BSP_MAX_QUEUE_SIZE, 2048)
        self.delay_s = _env_int(OTEL_BSP_SCHEDULE_DELAY, 5000) / 1000
        # No gold-path replay while the run goes on: it costs about as much CPU as the run
        # itself. Survival by depth and the failure source come with `sessionproof export`.
        self.scenarios = Scenarios(suite or None, replay=False)
        self.sessions: queue.Queue[Session | None] = queue.Queue()
        self.spans = 0
        """Spans handed to the exporter so far."""
        self.dropped = 0
        """Sessions left out because too many waited (a slow or unreachable collector)."""
        self.thread = threading.Thread(target=self._work, name="otlp-live", daemon=True)
        self.thread.start()

    def _work(self) -> None:
        waiting: list[Session] = []  # finished sessions whose spans are not built yet
        batch, spans = self._new_batch()  # spans built, not sent yet
        first = due = 0.0  # when the oldest waiting session came; when the batch must leave
        gather = min(self.gather_s, self.delay_s)
        while True:
            deadlines = ([first + gather] if waiting else []) + ([due] if len(spans) else [])
            timeout = max(min(deadlines) - time.monotonic(), 0.0) if deadlines else None
            session: Session | _Tick | None
            try:
                session = self.sessions.get(timeout=timeout)
            except queue.Empty:
                session = _TICK
            now = time.monotonic()
            if isinstance(session, Session):
                if not waiting:
                    first = now
                waiting.append(session)
            gathered = len(waiting) >= self.gather_n or now >= first + gather
            if waiting and (session is None or gathered):
                if not len(spans):
                    due = first + self.delay_s
                batch, spans = self._build(waiting, batch, spans)
                waiting = []
            if len(spans) and (session is None or now >= due):
                batch, spans = self._send(batch, spans)
            if session is None:
                return

    def _build(
        self, sessions: list[Session], batch: ExportTraceServiceRequest, spans: SpanSink
    ) -> tuple[ExportTraceServiceRequest, SpanSink]:
        """Add the spans of `sessions` to the batch, sending each batch that fills up."""
        for session in sessions:
            before = len(spans)
            try:
                add_spans(
                    spans,
                    session,
                    content=self.content,
                    evaluations=self.scenarios.evaluations(session),
                    compat=self.compat,
                )
            except Exception:  # a bug here must not stop the export of other sessions
                _log.exception("cannot export session %s", session.session_id)
                del spans[before:]
            if len(spans) >= self.batch_size:
                batch, spans = self._send(batch, spans)
        return batch, spans

    def _new_batch(self) -> tuple[ExportTraceServiceRequest, SpanSink]:
        batch = ExportTraceServiceRequest()
        batch.CopyFrom(self.template)
        return batch, request_spans(batch)

    def _send(
        self, batch: ExportTraceServiceRequest, spans: SpanSink
    ) -> tuple[ExportTraceServiceRequest, SpanSink]:
        """Post `batch` unless it is empty (the exporter logs a refusal); a new batch."""
        if not len(spans):
            return batch, spans
        self.spans += len(spans)
        post(self.exporter, batch.SerializeToString())
        return self._new_batch()

    def start(self, total: int, done: int) -> None:
        """Passed on."""
        if self.inner is not None:
            self.inner.start(total, done)

    def advance(self, session: Session) -> None:
        """Queue the session's export (or drop it, when too many wait); pass the call on."""
        if self.sessions.qsize() < self.max_waiting:
            self.sessions.put(session)
        else:
            if not self.dropped:
                _log.warning("the OTLP collector is behind: dropping sessions from the export")
            self.dropped += 1
        if self.inner is not None:
            self.inner.advance(session)

    def close(self) -> None:
        """Export what is queued and stop."""
        self.sessions.put(None)
        self.thread.join()
        self.exporter.shutdown()  # type: ignore[no-untyped-call]

    def __enter__(self) -> LiveExport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
