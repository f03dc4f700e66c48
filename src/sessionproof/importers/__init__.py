"""Importers: transcript files in foreign formats → sessions (and the scenarios they were
graded against), with a clear error per broken record and the rest imported.

Generic formats only (OpenAI and Anthropic chat logs as JSONL, Harbor ATIF trajectories,
inspect_ai eval logs through inspect's own reader) and format detection; outcome labels
(`--label-from`); every other format (traces, the benchmarks' results files) is a
`TranscriptFormat` plug-in from the `sessionproof.formats` entry points or `register_format`.
The helpers below are the kit for writing another format's reader.
"""

from typing import TYPE_CHECKING

from ._common import ImportedSession, ImportResult, RecordError, ReportedVerdict, SessionBuilder
from ._detect import detect_format, import_file
from ._formats import FormatReader, TranscriptFormat, format_names, register_format
from ._sample import Sample

__all__ = [
    "FormatReader",
    "ImportResult",
    "ImportedSession",
    "RecordError",
    "ReportedVerdict",
    "Sample",
    "SessionBuilder",
    "TranscriptFormat",
    "detect_format",
    "format_names",
    "import_file",
    "register_format",
]

if TYPE_CHECKING:
    FORMATS: tuple[str, ...]
    """Every format `import_file` reads (besides "auto"), those of plug-ins included."""


def __getattr__(name: str) -> object:
    # FORMATS is computed when asked: the entry points are read then, not at import.
    if name == "FORMATS":
        return format_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
