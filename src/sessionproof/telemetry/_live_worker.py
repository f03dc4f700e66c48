"""The live export's worker process: reads finished sessions, builds their spans, sends them.

`LiveExport` (`_live`) starts it with `python -c` and talks to it over pipes. Its stdin carries
frames (a 4-byte big-endian length, then the bytes): first the settings as JSON (endpoint,
headers, content, suite, compat), then one session's JSON per frame; end of input ends the
export. Its stdout carries JSON lines back: `{"ready": true}` once set up, `{"spans": N}` after
each batch handed to the exporter (its sessions' verdicts follow it: `_verdict_send`), and
`{"log": [level, logger, text]}` for every warning or error logged here, which the parent logs
again under the same logger. Anything else printed to stdout goes to stderr, so nothing a
library prints can break those lines.

Batching is the SDK's batch span processor's: a batch leaves once `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`
spans (512) wait, ending on a whole session (so it may hold a few more), and within
`OTEL_BSP_SCHEDULE_DELAY` ms (5000) of its first session. Its reader holds at most 64 decoded
sessions; past that the pipe fills, and the parent's queue, which drops what does not fit.
SIGINT is ignored: on Ctrl-C the parent decides, and closing the pipe flushes what was sent.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.environment_variables import (
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
    OTEL_BSP_SCHEDULE_DELAY,
)
from opentelemetry.sdk.resources import Resource
from pydantic import ValidationError

from ..errors import InfraError
from ..records import Session
from ..scoring._internal import PriceTable
from . import _names as n
from ._evals import Scenarios
from ._otlp import exporter, new_request, post, request_spans
from ._spans import SpanSink, add_spans, default_resource
from ._verdict_send import VerdictTarget, post_verdicts, verdict_target

# The parent logs our records again under their logger's name: this one's reads as the export's.
_log = logging.getLogger("sessionproof.telemetry._live")
_DECODED = 64
"""Decoded sessions the reader may hold before it stops reading the pipe."""

Report = Callable[[dict[str, Any]], None]


def env_int(name: str, default: int) -> int:
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


def read_frame(stream: IO[bytes]) -> bytes | None:
    """One frame's bytes, or None at the end of the input (a cut-off frame is an end too)."""
    head = stream.read(4)
    if len(head) < 4:
        return None
    size = int.from_bytes(head, "big")
    data = stream.read(size)
    return data if len(data) == size else None


def frame(data: bytes) -> bytes:
    """`data` as a frame."""
    return len(data).to_bytes(4, "big") + data


class _Forward(logging.Handler):
    """Sends each log record to the parent as a `log` line."""

    def __init__(self, report: Report) -> None:
        super().__init__(logging.WARNING)
        self.report = report

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.report({"log": [record.levelno, record.name, text]})


class _Sender:
    """Builds each session's spans into the open batch and sends batches when due."""

    def __init__(self, settings: dict[str, Any], report: Report) -> None:
        self.report = report
        self.content = bool(settings.get("content"))
        self.compat: str | None = settings.get("compat")
        raw = settings.get("prices")
        self.prices = None if raw is None else PriceTable.model_validate(raw)
        self.exporter = exporter(settings.get("endpoint"), settings.get("headers") or None)
        resource = default_resource().merge(Resource({n.RUN_SUITE: settings.get("suite", "")}))
        # An empty request, copied for each batch: the resource is encoded once.
        self.template = new_request(resource)
        self.batch_size = env_int(OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512)
        self.delay_s = env_int(OTEL_BSP_SCHEDULE_DELAY, 5000) / 1000
        # No gold-path replay while the run goes on: it costs about as much CPU as the run
        # itself. Survival by depth and the failure source come with `sessionproof export`.
        self.scenarios = Scenarios(settings.get("suite") or None, replay=False)
        # Each batch's verdicts follow its spans (Phoenix annotations, Langfuse scores).
        target = verdict_target(
            self.compat, settings.get("endpoint"), settings.get("headers") or None
        )
        if isinstance(target, str):
            _log.warning("verdicts not sent: %s", target)
            target = None
        self.verdicts: VerdictTarget | None = target
        self.judged: list[Session] = []
        """The sessions of the open batch, whose verdicts go once it has left."""

    def run(self, sessions: queue.Queue[Session | None]) -> None:
        """Export the sessions given until None comes."""
        batch, spans = self._new_batch()
        due = 0.0  # when the open batch must leave
        while True:
            timeout = max(due - time.monotonic(), 0.0) if len(spans) else None
            session: Session | bool | None
            try:
                session = sessions.get(timeout=timeout)
            except queue.Empty:
                session = False  # the deadline came first
            if isinstance(session, Session):
                if not len(spans):
                    due = time.monotonic() + self.delay_s
                batch, spans = self._build(session, batch, spans)
            if len(spans) and (session is None or time.monotonic() >= due):
                batch, spans = self._send(batch, spans)
            if session is None:
                self.exporter.shutdown()  # type: ignore[no-untyped-call]
                return

    def _build(
        self, session: Session, batch: ExportTraceServiceRequest, spans: SpanSink
    ) -> tuple[ExportTraceServiceRequest, SpanSink]:
        before = len(spans)
        try:
            add_spans(
                spans,
                session,
                content=self.content,
                evaluations=self.scenarios.evaluations(session),
                compat=self.compat,
                prices=self.prices,
            )
        except Exception:  # a bug here must not stop the export of other sessions
            _log.exception("cannot export session %s", session.session_id)
            del spans[before:]
        else:
            self.judged.append(session)
        if len(spans) >= self.batch_size:
            return self._send(batch, spans)
        return batch, spans

    def _new_batch(self) -> tuple[ExportTraceServiceRequest, SpanSink]:
        batch = ExportTraceServiceRequest()
        batch.CopyFrom(self.template)
        return batch, request_spans(batch)

    def _send(
        self, batch: ExportTraceServiceRequest, spans: SpanSink
    ) -> tuple[ExportTraceServiceRequest, SpanSink]:
        """Post `batch` (the exporter logs a refusal); a new batch."""
        self.report({"spans": len(spans)})
        post(self.exporter, batch)
        sessions, self.judged = self.judged, []
        if self.verdicts is not None and sessions:
            try:
                post_verdicts(self.verdicts, sessions)
            except InfraError as exc:  # the traces left; the run goes on without the rest
                _log.warning("%s; later sessions' verdicts are not sent", exc)
                self.verdicts = None
        return self._new_batch()


def _decode(data: bytes) -> Session | None:
    try:
        return Session.model_validate_json(data)
    except ValidationError:
        try:
            name = json.loads(data).get("session_id", "?")
        except (ValueError, AttributeError):
            name = "?"
        _log.exception("cannot export session %s: it does not read back", name)
        return None


def _read(stream: IO[bytes], sessions: queue.Queue[Session | None]) -> None:
    while (data := read_frame(stream)) is not None:
        session = _decode(data)
        if session is not None:
            sessions.put(session)
    sessions.put(None)


def main() -> None:
    """The worker's entry point (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Our lines get their own copy of stdout; whatever else writes to it lands on stderr.
    lines = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    lock = threading.Lock()

    def report(message: dict[str, Any]) -> None:
        with lock:
            try:
                lines.write(json.dumps(message) + "\n")
                lines.flush()
            except OSError:  # the parent is gone: nobody to tell
                pass

    root = logging.getLogger()
    root.addHandler(_Forward(report))
    root.setLevel(logging.WARNING)
    stdin = sys.stdin.buffer
    head = read_frame(stdin)
    if head is None:
        return
    sender = _Sender(json.loads(head), report)
    report({"ready": True})
    sessions: queue.Queue[Session | None] = queue.Queue(_DECODED)
    reader = threading.Thread(target=_read, args=(stdin, sessions), daemon=True)
    reader.start()
    sender.run(sessions)
