"""Live export during a run: each session's spans leave as the session ends.

A `Progress` wrapper: the run hands it every finished session and only puts it on a queue. A
thread writes each queued session's JSON to a worker process (`_live_worker`), which builds its
spans (OTLP protobuf, with the metrics that need no gold-path replay) and sends them in batches
by the SDK exporter's HTTP client, as the SDK's batch span processor would. At most
`OTEL_BSP_MAX_QUEUE_SIZE` (2048) sessions wait for a slow collector or a worker still starting
(the SDK counts spans there; a session's spans are built only in the worker); later ones are
dropped, with one warning. A worker that dies costs the export its sessions, never the run.

Why a process: building a demo session's spans takes ~0.6-1 ms of CPU (its metrics, ~150
attributes, a JSON Schema check per call). In a thread that was the run's GIL: +11% of the
run's CPU with 50 ms per agent decision, +20-23% of its CPU and wall time with the instant
oracle (benchmarks/otel_overhead.py), however the work was batched. Here the run's side pays
each session's JSON (~0.05 ms, pydantic-core) and a pipe write: +0.2% CPU at 50 ms, within
the noise (+-5%) with the instant oracle. The worker costs its start-up (~0.6 s of imports,
on the other core while the first sessions wait in the pipe) and ~1 ms of its own CPU per
session; on a one-core machine that CPU is shared with the run again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import subprocess
import sys
import threading
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

from opentelemetry.sdk.environment_variables import OTEL_BSP_MAX_QUEUE_SIZE

from ..engine import Progress
from ..errors import InfraError
from ..records import Session
from ._compat import check_compat
from ._live_worker import env_int, frame
from ._otlp import exporter

if TYPE_CHECKING:
    from ..scoring._internal import PriceTable

_log = logging.getLogger(__name__)
_SERIALIZER = Session.__pydantic_serializer__  # model_dump_json's bytes, before it decodes them

# The worker's command: our import path first, so it imports this very sessionproof.
_BOOT = (
    "import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
    "from sessionproof.telemetry._live_worker import main; main()"
)


class LiveExport:
    """Sends each finished session's spans by OTLP/HTTP while the run goes on; passes every
    progress call on to `inner`. Use as a context manager: leaving it flushes what is queued.
    Raises InfraError when its worker process cannot start."""

    def __init__(
        self,
        inner: Progress | None,
        endpoint: str | None,
        headers: Mapping[str, str] | None = None,
        *,
        content: bool = False,
        suite: str = "",
        compat: str | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self.inner = inner
        # Settings are checked here, so a bad one stops the run before it starts.
        exporter(endpoint, headers).shutdown()  # type: ignore[no-untyped-call]
        settings: dict[str, Any] = {
            "endpoint": endpoint,
            "headers": dict(headers or {}),
            "content": content,
            "suite": suite,
            "compat": check_compat(compat),
            # What prices the spans' cost (the run's --prices/--price); absent: shipped table.
            **({"prices": prices.model_dump(mode="json")} if prices is not None else {}),
        }
        self.max_waiting = env_int(OTEL_BSP_MAX_QUEUE_SIZE, 2048)
        self.sessions: queue.Queue[Session | None] = queue.Queue()
        self.spans = 0
        """Spans the worker handed to the exporter so far."""
        self.dropped = 0
        """Sessions left out because too many waited, or the worker was gone."""
        self.ready = threading.Event()
        """Set once the worker is ready to build spans (or has ended)."""
        self.lost = False
        try:
            # Headers (credentials, often) go down the pipe, never on the command line.
            self.worker = subprocess.Popen(
                [sys.executable, "-c", _BOOT, json.dumps(sys.path)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        except OSError as exc:
            raise InfraError(f"cannot start the OTLP export worker: {exc}") from None
        assert self.worker.stdin is not None and self.worker.stdout is not None
        self.writer = threading.Thread(
            target=self._write,
            args=(self.worker.stdin, json.dumps(settings).encode()),
            name="otlp-live-writer",
            daemon=True,
        )
        self.reader = threading.Thread(
            target=self._read, args=(self.worker.stdout,), name="otlp-live-reader", daemon=True
        )
        self.writer.start()
        self.reader.start()

    def _write(self, pipe: IO[bytes], settings: bytes) -> None:
        """Send the settings, then the queued sessions, until None comes; then close."""
        self._put(pipe, [frame(settings)], 0)
        ended = False
        while not ended:
            waiting = [self.sessions.get()]
            while not self.sessions.empty():
                waiting.append(self.sessions.get())
            ended = waiting[-1] is None  # close() puts it last
            frames: list[bytes] = []
            for session in waiting:
                if session is None:
                    continue
                if self.lost:
                    self.dropped += 1
                elif (data := self._json(session)) is not None:
                    frames.append(frame(data))
            self._put(pipe, frames, len(frames))
        with contextlib.suppress(OSError):
            pipe.close()

    def _put(self, pipe: IO[bytes], frames: list[bytes], sessions: int) -> None:
        """Write what waited in one write; a pipe that is gone drops its `sessions`."""
        if not frames or self.lost:
            return
        try:
            pipe.write(b"".join(frames))
            pipe.flush()
        except OSError:
            self.dropped += sessions
            self._lose()

    @staticmethod
    def _json(session: Session) -> bytes | None:
        # No serialisation warnings: pydantic 2.12.0 warns on every session's event union
        # (its discriminator lookup), and a session that is really broken does not read
        # back in the worker, which names it there.
        try:
            data: bytes = _SERIALIZER.to_json(session, warnings=False)
        except Exception:  # a session that does not serialise must not stop the others
            _log.exception("cannot export session %s", session.session_id)
            return None
        return data

    def _lose(self) -> None:
        if not self.lost:
            self.lost = True
            _log.warning("the OTLP export worker is gone: later sessions are not exported")

    def _read(self, pipe: IO[bytes]) -> None:
        """Take the worker's lines: readiness, spans sent, and its log records."""
        for line in pipe:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "log" in message:
                level, name, text = message["log"]
                logging.getLogger(str(name)).log(int(level), "%s", text)
            elif "spans" in message:
                self.spans += int(message["spans"])
            elif "ready" in message:
                self.ready.set()
        self.ready.set()

    def start(self, total: int, done: int) -> None:
        """Passed on."""
        if self.inner is not None:
            self.inner.start(total, done)

    def advance(self, session: Session) -> None:
        """Queue the session's export (or drop it, when too many wait); pass the call on."""
        if self.lost:
            self.dropped += 1
        elif self.sessions.qsize() < self.max_waiting:
            self.sessions.put(session)
        else:
            if not self.dropped:
                _log.warning("the OTLP collector is behind: dropping sessions from the export")
            self.dropped += 1
        if self.inner is not None:
            self.inner.advance(session)

    def close(self) -> None:
        """Export what is queued and stop (the worker sends its last batch first)."""
        self.sessions.put(None)
        try:
            self.writer.join()
            code = self.worker.wait()
            self.reader.join()
            self.worker.stdout.close()  # type: ignore[union-attr]
        except BaseException:  # Ctrl-C while the last batches leave: stop the worker too
            self.worker.kill()
            raise
        if code != 0:
            _log.warning("the OTLP export worker ended with exit code %d", code)

    def __enter__(self) -> LiveExport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
