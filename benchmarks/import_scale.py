"""Peak memory and time of importing a large OTLP protobuf file (issue 41.25: target under
10x the file's size in peak RSS).

The file is our own export of the demo suite run by the oracle (its sixteen sessions, with
content), replicated until it holds `--spans` spans: each copy gets new trace ids, and its own
scenario id and conversation id, so every copy is a distinct session. `sessionproof import` then
runs in a subprocess (this interpreter, PYTHONPATH as set), its peak RSS read from the
children's resource usage, its time from the wall clock.

    PYTHONPATH=src .venv/bin/python benchmarks/import_scale.py [--spans 100000] [--keep DIR]
        [--no-content] [--file FILE.pb]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from sessionproof.runs import export_traces

_CLI = Path(sys.executable).with_name("sessionproof")
_RENAMED = ("sessionproof.scenario.id", "gen_ai.conversation.id", "session.id")


def _seed(folder: Path, content: bool) -> ExportTraceServiceRequest:
    """Our export (protobuf, with content or not) of one oracle run of the demo suite."""
    store = folder / "seed.duckdb"
    argv = [str(_CLI), "run", "--suite", "demo", "--model", "oracle", "--store", str(store)]
    done = subprocess.run([*argv, "--json"], check=True, capture_output=True, text=True)
    run_id = json.loads(done.stdout)["run_id"]
    out = folder / "seed.pb"
    export_traces(run_id, store=store, fmt="otlp-proto", output=out, content=content)
    return ExportTraceServiceRequest.FromString(out.read_bytes())


def _copy(span: Span, number: int) -> Span:
    """`span` of copy `number`: its own trace id, scenario and conversation."""
    out = Span()
    out.CopyFrom(span)
    out.trace_id = number.to_bytes(8, "big") + span.trace_id[8:]
    for item in out.attributes:
        if item.key in _RENAMED and item.value.HasField("string_value"):
            item.value.string_value = f"{item.value.string_value}-{number}"
    return out


def write_file(path: Path, spans: int, folder: Path, content: bool) -> tuple[int, int]:
    """Write an OTLP protobuf file of about `spans` spans; its span and session counts."""
    seed = _seed(folder, content)
    scope = seed.resource_spans[0].scope_spans[0]
    template = list(scope.spans)
    sessions = len({s.trace_id for s in template})
    request = ExportTraceServiceRequest()
    request.resource_spans.add().CopyFrom(seed.resource_spans[0])
    target = request.resource_spans[0].scope_spans[0].spans
    del target[:]
    copies = max(1, spans // len(template))
    for number in range(copies):
        target.extend(_copy(s, number) for s in template)
    path.write_bytes(request.SerializeToString())
    return copies * len(template), copies * sessions


def measure(path: Path, store: Path) -> tuple[float, float]:
    """Peak RSS (MB) and seconds of `sessionproof import path --store store`, in a child."""
    code = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
        "took = time.perf_counter() - start\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(peak, took)\n"
    )
    argv = [sys.executable, "-c", code, str(_CLI), "import", str(path), "--store", str(store)]
    done = subprocess.run(argv, check=True, capture_output=True, text=True)
    peak, took = done.stdout.split()
    return float(peak), float(took)


def main() -> None:
    """Write the file, import it, print peak RSS and time against the file's size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="a folder to keep the file and store in")
    parser.add_argument(
        "--no-content", action="store_true", help="spans without message text (smaller spans)"
    )
    parser.add_argument("--file", type=Path, help="import this file instead of writing one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = args.file or folder / f"scale-{args.spans}.pb"
        if args.file is None:
            start = time.perf_counter()
            count, sessions = write_file(path, args.spans, folder, not args.no_content)
            took = time.perf_counter() - start
            print(f"wrote {path}: {count:,} spans, {sessions:,} sessions in {took:.1f} s")
        size = path.stat().st_size / 2**20
        store = folder / f"import-{time.time_ns()}.duckdb"
        peak, took = measure(path, store)
        print(f"file {size:,.1f} MB; import: peak RSS {peak:,.0f} MB ({peak / size:.1f}x the file)")
        print(f"import time {took:.1f} s; store {store.stat().st_size / 2**20:,.1f} MB")
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"(this script's own peak, writing the file: {own:,.0f} MB)")


if __name__ == "__main__":
    main()
