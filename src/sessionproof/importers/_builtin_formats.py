"""The generic transcript formats read here: JSONL chat logs, ATIF trajectories and inspect_ai
eval logs, registered in code with the sniffs that recognise their files.

Every other format (OTLP traces, the benchmarks' results files) is registered by its own
package through the `sessionproof.formats` entry points.
"""

from __future__ import annotations

from ._common import ImportResult
from ._formats import FORMAT_REGISTRY, TranscriptFormat
from ._inspect import looks_like_inspect
from ._jsonl import import_jsonl
from ._labels import LabelRule
from ._sample import Sample

_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})
CHAT_SHAPE = 'a JSONL chat log (one {"messages": [...]} per line)'


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


def chat_flavour(sample: Sample) -> str | None:
    """ "openai" or "anthropic" for a JSONL chat log (its first record that is one says)."""
    for record in sample.records:
        flavour = _chat_flavour(record)
        if flavour:
            return flavour
    return None


def read_openai_jsonl(
    raw: bytes,
    *,
    source: str,
    run_id: str,
    domain: str | None = None,
    label_from: LabelRule | None = None,
) -> ImportResult:
    """The sessions of an OpenAI-style JSONL chat log (verdicts from `label_from` if given)."""
    return import_jsonl(
        raw, fmt="openai", source=source, run_id=run_id, domain=domain, label_from=label_from
    )


def read_anthropic_jsonl(
    raw: bytes,
    *,
    source: str,
    run_id: str,
    domain: str | None = None,
    label_from: LabelRule | None = None,
) -> ImportResult:
    """The sessions of an Anthropic-style JSONL chat log (verdicts from `label_from` if
    given)."""
    return import_jsonl(
        raw, fmt="anthropic", source=source, run_id=run_id, domain=domain, label_from=label_from
    )


def _is_openai(sample: Sample) -> bool:
    return chat_flavour(sample) == "openai"


def _is_anthropic(sample: Sample) -> bool:
    return chat_flavour(sample) == "anthropic"


def looks_like_atif(doc: object) -> bool:
    """True for an ATIF trajectory object (or a list whose first item is one). Here, not beside
    the reader, so that sniffing a file does not import the ATIF models (~11 ms)."""
    if isinstance(doc, list):
        doc = doc[0] if doc else None
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("schema_version"), str)
        and doc["schema_version"].startswith("ATIF")
        and isinstance(doc.get("steps"), list)
    )


def _is_atif(sample: Sample) -> bool:
    return looks_like_atif(sample.document)


def _is_inspect(sample: Sample) -> bool:
    # A `.eval` log is a zip archive: told by its first bytes, before any JSON is parsed.
    return looks_like_inspect(sample.raw, None) or looks_like_inspect(sample.raw, sample.document)


BUILTIN_FORMATS = {
    "openai": TranscriptFormat(
        read_openai_jsonl, sniff=_is_openai, labels=True, shape=CHAT_SHAPE, order=20
    ),
    "anthropic": TranscriptFormat(
        read_anthropic_jsonl, sniff=_is_anthropic, labels=True, shape=CHAT_SHAPE, order=20
    ),
    "atif": TranscriptFormat(
        "sessionproof.importers._atif:read_atif",
        sniff=_is_atif,
        labels=True,
        shape='an ATIF trajectory ({"schema_version": "ATIF-v1.x", "steps": [...]})',
        order=40,
    ),
    "inspect": TranscriptFormat(
        "sessionproof.importers._inspect:read_inspect",
        sniff=_is_inspect,
        labels=True,
        shape="an inspect_ai eval log",
        order=40,
    ),
}
"""The formats sessionproof reads with no plug-in."""

for _name, _fmt in BUILTIN_FORMATS.items():
    FORMAT_REGISTRY.add(_name, _fmt)
