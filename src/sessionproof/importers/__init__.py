"""Importers: transcript files in foreign formats → sessions (and the scenarios they were
graded against), with a clear error per broken record and the rest imported.

Generic formats only (OpenAI and Anthropic chat logs as JSONL) and format detection; the
benchmark formats (tau2, tau-bench) live with their suites and are registered here lazily by
name (`register_format`). The helpers below are the kit for writing another format's reader.
"""

from ._common import (
    ForeignRecord,
    ImportedSession,
    ImportResult,
    RecordError,
    ReportedVerdict,
    SessionBuilder,
    first_problem,
    parse_time,
    tool_call,
)
from ._detect import FORMATS, detect_format, import_file
from ._formats import (
    FormatReader,
    TaskReader,
    format_names,
    format_reader,
    register_format,
    scenario_from_any_task,
)
from ._json import load_salvaging
from ._jsonl import import_jsonl
from ._openai import read_openai_messages
from ._tools import known_tools

__all__ = [
    "FORMATS",
    "ForeignRecord",
    "FormatReader",
    "ImportResult",
    "ImportedSession",
    "RecordError",
    "ReportedVerdict",
    "SessionBuilder",
    "TaskReader",
    "detect_format",
    "first_problem",
    "format_names",
    "format_reader",
    "import_file",
    "import_jsonl",
    "known_tools",
    "load_salvaging",
    "parse_time",
    "read_openai_messages",
    "register_format",
    "scenario_from_any_task",
    "tool_call",
]
