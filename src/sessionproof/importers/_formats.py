"""The formats `import_file` reads, by name, and the task shapes a JSONL log may embed.

Benchmark formats (tau2, tau-bench) live with their benchmark under `sessionproof.suites` and
are registered here as `"module:attribute"` strings, imported only when a file of that format
is read: the importers stay generic and never import a suite.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from ..records import Scenario
from ._common import ImportResult
from ._labels import LabelRule


class FormatReader(Protocol):
    """Reads one file's bytes of one format into sessions."""

    def __call__(self, raw: bytes, *, source: str, run_id: str, domain: str | None) -> ImportResult:
        """Sessions read from `raw`, every problem met listed in the result."""
        ...


class LabelledFormatReader(Protocol):
    """A format reader that also finds each session's outcome label (`--label-from`)."""

    def __call__(
        self,
        raw: bytes,
        *,
        source: str,
        run_id: str,
        domain: str | None,
        label_from: LabelRule | None = None,
    ) -> ImportResult:
        """Sessions read from `raw`, outcomes from `label_from` when given."""
        ...


class TaskReader(Protocol):
    """Turns a task object embedded in a log line into the scenario it describes."""

    def __call__(self, raw: object, domain: str) -> Scenario:
        """The scenario; raises pydantic's ValidationError or ValueError when it is none."""
        ...


# name -> "module:attribute" of a FormatReader. openai and anthropic are read here, by
# `import_jsonl`; the benchmark formats come from their suites.
_READERS: dict[str, str] = {
    "tau2": "sessionproof.suites.tau2:import_tau2",
    "tau-bench": "sessionproof.suites.tau2:import_taubench",
    "otlp-json": "sessionproof.telemetry:read_otlp_json",
    "otlp-proto": "sessionproof.telemetry:read_otlp_proto",
    "atif": "sessionproof.importers:read_atif",
    "inspect": "sessionproof.importers:read_inspect",
}
_LABELLED = {"otlp-json", "otlp-proto", "atif", "inspect"}
"""Formats whose reader takes `label_from` (a LabelledFormatReader)."""
_JSONL = ("openai", "anthropic")

_TASK_READER = "sessionproof.suites.tau2:scenario_from_any_task"
"""Reads a JSONL line's `task`: a tau2 task, a tau-bench task or a sessionproof scenario."""


def _resolve(path: str) -> Any:
    module_name, attr = path.split(":")
    return getattr(importlib.import_module(module_name), attr)


def register_format(name: str, reader_path: str, *, labels: bool = False) -> None:
    """Declare a lazily imported format: `reader_path` is `module:function` (a FormatReader;
    with `labels`, a LabelledFormatReader)."""
    _READERS[name] = reader_path
    if labels:
        _LABELLED.add(name)


def reads_labels(name: str) -> bool:
    """True when format `name` can take its outcomes from `--label-from`."""
    return name in _LABELLED


def format_names() -> tuple[str, ...]:
    """Every format `import_file` reads (besides "auto")."""
    return (*_READERS, *_JSONL)


def format_reader(name: str) -> FormatReader | None:
    """The reader of a registered format; None for the JSONL chat formats and unknown names."""
    path = _READERS.get(name)
    if path is None:
        return None
    reader: FormatReader = _resolve(path)
    return reader


def labelled_reader(name: str) -> LabelledFormatReader | None:
    """The reader of a format that takes `label_from`; None for any other."""
    path = _READERS.get(name)
    if path is None or name not in _LABELLED:
        return None
    reader: LabelledFormatReader = _resolve(path)
    return reader


def scenario_from_any_task(raw: object, domain: str) -> Scenario:
    """The scenario a JSONL line's `task` object describes (see `_TASK_READER`)."""
    reader: TaskReader = _resolve(_TASK_READER)
    return reader(raw, domain)
