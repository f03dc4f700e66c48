"""The live export's worker process: sessions in on stdin, spans out by OTLP/HTTP.

Run as `python -m sessionproof.telemetry._worker` by `LiveExport`. Its first stdin line is the
configuration (JSON: endpoint, headers, content, suite, compat), then one session JSON per line;
at end of input it flushes every span and prints `{"spans": N}` on stdout. A process of its own,
so building, encoding and sending spans never takes the run's GIL: the run only pays for one
`model_dump_json` and a pipe write per session.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from ..records import Session
from . import _names as n
from ._evals import Scenarios
from ._spans import default_resource, session_spans


def serve(config: dict[str, Any], lines: Any) -> int:
    """Export every session JSON line of `lines` as `config` says; return the span count."""
    # Imported here: a module import of the exporter would pull requests into every caller.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    exporter = OTLPSpanExporter(endpoint=config.get("endpoint"), headers=config.get("headers"))
    processor = BatchSpanProcessor(exporter)
    resource = default_resource().merge(Resource({n.RUN_SUITE: config.get("suite", "")}))
    content = bool(config.get("content"))
    compat = config.get("compat")
    # No gold-path replay while the run goes on: it costs about as much CPU as the run itself.
    # Survival by depth and the failure source come with `sessionproof export`.
    scenarios = Scenarios(config.get("suite") or None, replay=False)
    spans = 0
    try:
        for line in lines:
            session = Session.model_validate_json(line)
            evaluations = scenarios.evaluations(session)
            built = session_spans(
                session,
                content=content,
                resource=resource,
                evaluations=evaluations,
                compat=compat,
            )
            for span in built:
                processor.on_end(span)
                spans += 1
    finally:
        processor.shutdown()  # type: ignore[no-untyped-call]
    return spans


def main() -> None:
    """The worker's entry point (see the module docstring)."""
    config = json.loads(sys.stdin.readline() or "{}")
    spans = serve(config, sys.stdin)
    sys.stdout.write(json.dumps({"spans": spans}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
