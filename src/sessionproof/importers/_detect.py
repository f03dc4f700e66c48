"""Telling a transcript file's format from its content, and reading any supported file."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError, ForeignJSONError, InputFileError
from . import _builtin_formats  # noqa: F401  registers the generic formats
from ._common import ImportResult
from ._formats import detection_order, format_names, format_reader, format_sniff, labelled_reader
from ._json import without_bom
from ._labels import LabelRule
from ._sample import Sample


def detect_format(raw: bytes) -> str:
    """The format of a transcript file's content; raises InputFileError when it is none.

    Every registered format's sniff is asked, in detection order: the first that is sure
    (True) wins, else the most confident; a format with no sniff is never guessed.
    """
    sample = Sample(without_bom(raw))
    best, best_score = "", 0.0
    shapes: list[str] = []
    for name, fmt in detection_order():
        if fmt.shape and fmt.shape not in shapes:
            shapes.append(fmt.shape)
        sniff = format_sniff(name, fmt)
        if sniff is None:
            continue
        try:
            said = sniff(sample)
        except Exception as exc:  # a plug-in's bug: said, never taken for "not this format"
            raise ConfigError(
                f"format {name!r}: its sniff failed: {type(exc).__name__}: {exc}"
            ) from exc
        score = float(said)
        if score >= 1.0:
            return name
        if score > best_score:
            best, best_score = name, score
    if best:
        return best
    expected = ", ".join(shapes[:-1]) + f" or {shapes[-1]}" if len(shapes) > 1 else "".join(shapes)
    raise InputFileError(f"cannot tell the format: expected {expected}; pass --format")


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
    traces, ATIF, inspect logs, JSONL chat logs)."""
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
            takes = ", ".join(n for n, f in detection_order() if f.labels)
            raise ConfigError(
                f"--label-from reads {takes} files; a {fmt} file carries its own verdicts"
            )
        return labelled(raw, source=source, run_id=run_id, domain=domain, label_from=label_from)
    reader = format_reader(fmt)
    if reader is None:  # unregistered since the check above
        raise ConfigError(f"unknown format {fmt!r}; use auto, {', '.join(format_names())}")
    return reader(raw, source=source, run_id=run_id, domain=domain)
