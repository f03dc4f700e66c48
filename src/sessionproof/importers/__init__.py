"""Importers: transcript files in foreign formats → sessions (and the scenarios they were
graded against), with a clear error per broken record and the rest imported.

Generic formats only (OpenAI and Anthropic chat logs as JSONL, Harbor ATIF trajectories,
inspect_ai eval logs through inspect's own reader) and format detection; outcome labels
(`--label-from`); every other format (traces, the benchmarks' results files) is a
`TranscriptFormat` plug-in from the `sessionproof.formats` entry points or `register_format`.
The helpers below are the kit for writing another format's reader.
"""

from typing import TYPE_CHECKING

from ._atif import read_atif
from ._common import (
    ForeignRecord,
    ImportedSession,
    ImportResult,
    RecordError,
    ReportedVerdict,
    SessionBuilder,
    distinct_trials,
    domain_problem,
    first_problem,
    parse_time,
    repeated_call_ids,
    tool_call,
    trial_problem,
    unanswered_result,
)
from ._detect import detect_format, import_file
from ._formats import (
    FormatReader,
    LabelledFormatReader,
    TaskReader,
    TranscriptFormat,
    format_names,
    format_reader,
    labelled_reader,
    reads_labels,
    register_format,
    scenario_from_any_task,
)
from ._inspect import read_inspect
from ._json import MAX_DEPTH, TOO_DEEP, load_json, load_salvaging, too_deep, without_bom
from ._jsonl import import_jsonl
from ._labels import LABEL_CRITERION, LabelRule, label_rule, label_session, set_outcome
from ._openai import read_openai_messages
from ._sample import Sample
from ._storing import nothing_imported, write_imported
from ._tools import known_tools

__all__ = [
    "FORMATS",
    "LABEL_CRITERION",
    "MAX_DEPTH",
    "TOO_DEEP",
    "ForeignRecord",
    "FormatReader",
    "ImportResult",
    "ImportedSession",
    "LabelRule",
    "LabelledFormatReader",
    "RecordError",
    "ReportedVerdict",
    "Sample",
    "SessionBuilder",
    "TaskReader",
    "TranscriptFormat",
    "detect_format",
    "distinct_trials",
    "domain_problem",
    "first_problem",
    "format_names",
    "format_reader",
    "import_file",
    "import_jsonl",
    "known_tools",
    "label_rule",
    "label_session",
    "labelled_reader",
    "load_json",
    "load_salvaging",
    "nothing_imported",
    "parse_time",
    "read_atif",
    "read_inspect",
    "read_openai_messages",
    "reads_labels",
    "register_format",
    "repeated_call_ids",
    "scenario_from_any_task",
    "set_outcome",
    "too_deep",
    "tool_call",
    "trial_problem",
    "unanswered_result",
    "without_bom",
    "write_imported",
]

if TYPE_CHECKING:
    FORMATS: tuple[str, ...]
    """Every format `import_file` reads (besides "auto"), those of plug-ins included."""


def __getattr__(name: str) -> object:
    # FORMATS is computed when asked: the entry points are read then, not at import.
    if name == "FORMATS":
        return format_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
