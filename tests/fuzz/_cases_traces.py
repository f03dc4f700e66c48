"""Fuzz cases of the trace formats `import` reads: OTLP-JSON, OTLP protobuf, Harbor ATIF and
inspect_ai eval logs (`.json`, and `.eval` archives changed member by member). Each case is
drawn from its own seeded `random.Random`, like every other kind (see `_cases`)."""

from __future__ import annotations

import io
import json
import random
import zipfile
from typing import TYPE_CHECKING, Any

from . import _seeds_traces as seeds
from ._jsonout import dumps
from ._mutate import copy_tree, mutate, unmark
from ._text import mutate_text

if TYPE_CHECKING:
    from ._cases import Case

TRACE_KINDS = ("otlp-json", "otlp-proto", "atif", "inspect")
"""The trace-format fuzz kinds."""

_OTLP_FOCUS = (
    "resourceSpans",
    "scopeSpans",
    "spans",
    "traceId",
    "spanId",
    "parentSpanId",
    "attributes",
    "key",
    "value",
    "stringValue",
    "intValue",
    "arrayValue",
    "startTimeUnixNano",
    "endTimeUnixNano",
    "events",
    "status",
    "code",
    "name",
)
FOCUS: dict[str, tuple[str, ...]] = {
    "otlp-json": _OTLP_FOCUS,
    "otlp-proto": _OTLP_FOCUS,
    "atif": (
        "steps",
        "source",
        "message",
        "tool_calls",
        "tool_call_id",
        "function_name",
        "arguments",
        "observation",
        "results",
        "source_call_id",
        "content",
        "metrics",
        "prompt_tokens",
        "extra",
        "reward",
        "schema_version",
        "session_id",
        "step_id",
    ),
    "inspect": (
        "samples",
        "messages",
        "role",
        "content",
        "tool_calls",
        "function",
        "arguments",
        "scores",
        "value",
        "events",
        "id",
        "epoch",
        "eval",
        "status",
        "error",
        "usage",
        "version",
    ),
}

_BIG = str(2**70)


def _structural(doc: Any, rng: random.Random, kind: str) -> list[str]:
    count = rng.choices(range(4), weights=[2, 6, 3, 1])[0]
    return [mutate(doc, rng, FOCUS[kind]) for _ in range(count)]


def _spans(doc: Any) -> list[dict[str, Any]]:
    return [
        s
        for rs in doc.get("resourceSpans", [])
        for ss in rs.get("scopeSpans", [])
        for s in ss.get("spans", [])
    ]


def _hazard(doc: dict[str, Any], rng: random.Random, huge: bool) -> str | None:
    """Now and then one of the issue's hazards, on a span of the seed (before mutation)."""
    spans = _spans(doc)
    roll = rng.random()
    if not spans or roll > 0.35:
        return None
    span = rng.choice(spans)
    if roll < 0.06 and huge:
        size = rng.choice([1_500_000, 3_000_000])
        span["attributes"].append(
            {"key": "gen_ai.tool.call.result", "value": {"stringValue": "z" * size}}
        )
        return f"a {size}-character attribute on span {span['spanId']}"
    if roll < 0.12:
        key = rng.choice(["sessionproof.trial", "sessionproof.step", "gen_ai.usage.input_tokens"])
        span["attributes"].append({"key": key, "value": {"intValue": _BIG}})
        return f"{key} = 2**70 on span {span['spanId']}"
    if roll < 0.18:
        span["startTimeUnixNano"] = "9" * 400
        return f"a 400-digit start time on span {span['spanId']}"
    if roll < 0.26:
        other = rng.choice(spans)
        span["traceId"], span["spanId"] = other["traceId"], other["spanId"]
        return f"span {span['name']!r} reuses ids of span {other['name']!r}"
    arguments = json.dumps({"n": 2**70})
    span["attributes"].append(
        {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": arguments}}
    )
    return f"tool arguments with an integer past 64 bits on span {span['spanId']}"


def _command(rng: random.Random, name: str, fmt: str, label: str | None) -> list[str]:
    command = rng.choices(["import", "score", "patterns"], weights=[7, 2, 1])[0]
    argv = [command, name, "--store", "s.duckdb"]
    if rng.random() < 0.5:
        argv += ["--format", fmt]
    if label is not None and rng.random() < 0.3:
        argv += ["--label-from", label]
    if rng.random() < 0.5:
        argv.append("--json")
    return argv


def _otlp_json(rng: random.Random, case: Case) -> None:
    doc = rng.choice(seeds.otlp_seeds())
    hazard = _hazard(doc, rng, huge=True)
    case.mutations += [hazard] if hazard else []
    case.mutations += _structural(doc, rng, "otlp-json")
    data = dumps(unmark(doc), ascii_only=rng.random() < 0.3)
    if not case.mutations or rng.random() < 0.25:
        data, note = mutate_text(data, rng)
        case.mutations.append(note)
    case.files["t.json"] = data
    case.argv = _command(rng, "t.json", "otlp-json", "user.feedback")


def _proto(doc: Any) -> bytes:
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    ParseDict(doc, request, ignore_unknown_fields=True)
    data: bytes = request.SerializeToString()
    return data


def _otlp_proto(rng: random.Random, case: Case) -> None:
    doc = rng.choice(seeds.otlp_seeds())
    clean = _proto(copy_tree(doc))
    hazard = _hazard(doc, rng, huge=False)
    case.mutations += [hazard] if hazard else []
    structural = _structural(doc, rng, "otlp-proto")
    try:
        data = _proto(json.loads(dumps(unmark(doc))))
        case.mutations += structural
    except Exception:  # a mutation protobuf cannot express: mutate the bytes instead
        data = clean
    if not case.mutations or rng.random() < 0.4:
        data, note = mutate_text(data, rng)
        case.mutations.append(note)
    case.files["t.otlp"] = data
    case.argv = _command(rng, "t.otlp", "otlp-proto", "user.feedback")


def _atif(rng: random.Random, case: Case) -> None:
    doc = rng.choice(seeds.atif_seeds())
    case.mutations += _structural(doc, rng, "atif")
    as_lines = isinstance(doc, list) and rng.random() < 0.5
    ascii_only = rng.random() < 0.3
    if as_lines:
        data = b"\n".join(dumps(unmark(line), ascii_only=ascii_only) for line in doc) + b"\n"
    else:
        data = dumps(unmark(doc), ascii_only=ascii_only)
    if not case.mutations or rng.random() < 0.25:
        data, note = mutate_text(data, rng)
        case.mutations.append(note)
    name = "trajectories.jsonl" if as_lines else "trajectory.json"
    case.files[name] = data
    case.argv = _command(rng, name, "atif", "extra.verdict")


def _rezip(members: list[tuple[zipfile.ZipInfo, bytes]]) -> bytes:
    import inspect_ai.log  # noqa: F401  (adds the zstd compression its archives use)

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for info, data in members:
            archive.writestr(info, data)
    return out.getvalue()


def _eval_archive(rng: random.Random, case: Case) -> bytes:
    import inspect_ai.log  # noqa: F401

    raw = seeds.inspect_log().read_bytes()
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    op = rng.choice(["sample", "sample", "garble", "stray", "drop", "bytes"])
    samples = [i for i, (info, _) in enumerate(members) if info.filename.startswith("samples/")]
    at = rng.choice(samples) if samples else 0
    info, data = members[at]
    if op == "sample":
        doc = json.loads(data)
        notes = [mutate(doc, rng, FOCUS["inspect"]) for _ in range(rng.randint(1, 2))]
        members[at] = (info, dumps(unmark(doc)))
        case.mutations.append(f"{info.filename}: " + "; ".join(notes))
    elif op == "garble":
        garbled, note = mutate_text(data, rng)
        members[at] = (info, garbled)
        case.mutations.append(f"{info.filename}: {note}")
    elif op == "stray":
        name = rng.choice(["samples/notes.txt", "samples/x_epoch_1.json", "samples/README.json"])
        members.append((zipfile.ZipInfo(name), rng.choice([b"", b"{}", b"[1]", b"junk"])))
        case.mutations.append(f"stray member {name}")
    elif op == "drop":
        dropped = rng.randrange(len(members))
        case.mutations.append(f"member {members[dropped][0].filename} dropped")
        del members[dropped]
    archive_bytes = _rezip(members)
    if op == "bytes":
        archive_bytes, note = mutate_text(archive_bytes, rng)
        case.mutations.append(f"archive bytes: {note}")
    return archive_bytes


def _inspect(rng: random.Random, case: Case) -> None:
    if rng.random() < 0.5:
        doc = copy_tree(seeds.inspect_json())
        case.mutations += _structural(doc, rng, "inspect")
        data = dumps(unmark(doc), ascii_only=rng.random() < 0.3)
        if not case.mutations or rng.random() < 0.2:
            data, note = mutate_text(data, rng)
            case.mutations.append(note)
        name = "log.json"
    else:
        data, name = _eval_archive(rng, case), "log.eval"
    case.files[name] = data
    case.argv = _command(rng, name, "inspect", "includes")


def build_trace_case(kind: str, rng: random.Random, case: Case) -> None:
    """Fill `case` (files, argv, mutations) for trace kind `kind`."""
    {"otlp-json": _otlp_json, "otlp-proto": _otlp_proto, "atif": _atif, "inspect": _inspect}[kind](
        rng, case
    )
