"""Telling a transcript file's format from its content, and reading any supported file."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import ConfigError, ForeignJSONError, InputFileError
from ._atif import looks_like_atif
from ._common import ImportResult
from ._formats import format_names, format_reader, labelled_reader
from ._inspect import looks_like_inspect
from ._inspect_read import ZIP_MAGIC
from ._json import load_json, load_salvaging, without_bom
from ._jsonl import import_jsonl
from ._labels import LabelRule
from ._proto_sniff import looks_like_otlp_proto

FORMATS = format_names()
"""Every built-in format `import_file` reads (plus "auto"); see `format_names()` for the
formats registered since."""

_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})
_OTLP_START = re.compile(rb'\s*\{\s*"resourceSpans"\s*:')
"""How an OTLP-JSON request begins (as our export and the collector's file exporter write it)."""
_SNIFFED_LINES = 5
"""JSON Lines records looked at to tell a chat log's flavour: a broken first line (cut short,
nested too deep) must not hide a log whose other lines are fine."""


def _chat_flavour(record: object) -> str | None:
    if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
        return None
    for msg in record["messages"]:
        if not isinstance(msg, dict):
            continue
        if msg.get("role") in ("tool", "system", "function", "developer") or msg.get("tool_calls"):
            return "openai"
        content = msg.get("content")
        if isinstance(content, list) and any(
            # `type` may be any JSON value: a dict or list in it is not hashable.
            isinstance(b, dict)
            and isinstance(b.get("type"), str)
            and b["type"] in _ANTHROPIC_BLOCKS
            for b in content
        ):
            return "anthropic"
    return "anthropic" if isinstance(record.get("system"), str | list) else "openai"


def detect_format(raw: bytes) -> str:
    """The format of a transcript file's content; raises InputFileError when it is none."""
    if raw.startswith(ZIP_MAGIC):
        return "inspect"  # an inspect_ai `.eval` log is a zip archive
    raw = without_bom(raw)
    head = raw.lstrip()[:1]
    if head == b"{":
        if _OTLP_START.match(raw, 0, 4096):
            return "otlp-json"  # said at once: the first line may be the whole (huge) file
        lines = [line for line in raw.split(b"\n", 4 * _SNIFFED_LINES) if line.strip()]
        for line in lines[:_SNIFFED_LINES]:
            try:
                flavour = _chat_flavour(load_json(line))
            except ForeignJSONError:
                continue
            if flavour:
                return flavour
        if b'"resourceSpans"' in raw[:4096]:
            return "otlp-json"
        doc = load_salvaging(raw)
        if isinstance(doc.value, dict) and "simulations" in doc.value:
            return "tau2"
        if looks_like_atif(doc.value):
            return "atif"
        if looks_like_inspect(raw, doc.value):
            return "inspect"
    elif head == b"[":
        doc = load_salvaging(raw)
        items = doc.value if isinstance(doc.value, list) else []
        if items and isinstance(items[0], dict) and "traj" in items[0]:
            return "tau-bench"
        if looks_like_atif(items):
            return "atif"
    # Last: a protobuf request starts with a newline byte, and may then look like JSON text.
    if raw[:1] == b"\n" and looks_like_otlp_proto(raw):
        return "otlp-proto"
    raise InputFileError(
        'cannot tell the format: expected a tau2 results file ({..., "simulations": [...]}), '
        'a tau-bench trajectory list ([{..., "traj": [...]}]), a JSONL chat log '
        '(one {"messages": [...]} per line), OTLP-JSON traces ({"resourceSpans": [...]}), an '
        'ATIF trajectory ({"schema_version": "ATIF-v1.x", "steps": [...]}), an inspect_ai '
        "eval log or OTLP protobuf traces; pass --format"
    )


def import_file(
    path: Path,
    fmt: str,
    *,
    run_id: str,
    domain: str | None = None,
    label_from: LabelRule | None = None,
) -> ImportResult:
    """Read one transcript file of format `fmt` ("auto" to detect it) into sessions; with
    `label_from`, each session's outcome is the label it names (formats that carry labels:
    traces, ATIF, inspect logs)."""
    if fmt != "auto" and fmt not in format_names():
        raise ConfigError(f"unknown format {fmt!r}; use auto, {', '.join(format_names())}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        raw = without_bom(raw)
    except ForeignJSONError as exc:
        raise InputFileError(f"{path}: {exc}") from None
    if not raw.strip():
        raise InputFileError(f"{path}: the file is empty")
    if fmt == "auto":
        try:
            fmt = detect_format(raw)
        except InputFileError as exc:
            raise InputFileError(f"{path}: {exc}") from None
    source = str(path)
    if label_from is not None:
        labelled = labelled_reader(fmt)
        if labelled is None:
            raise ConfigError(
                f"--label-from reads trace, ATIF and inspect files; a {fmt} file carries its "
                "own verdicts"
            )
        return labelled(raw, source=source, run_id=run_id, domain=domain, label_from=label_from)
    reader = format_reader(fmt)
    if reader is not None:
        return reader(raw, source=source, run_id=run_id, domain=domain)
    return import_jsonl(raw, fmt=fmt, source=source, run_id=run_id, domain=domain)
