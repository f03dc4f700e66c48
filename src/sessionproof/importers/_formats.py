"""The transcript formats `import_file` reads: one registry, fed by code and by entry points.

A format is a `TranscriptFormat`: its reader, the sniff that recognises its files for
auto-detection, whether it takes `--label-from`, and optionally a reader of the task objects a
JSON Lines log may embed. The generic formats are registered in code (`_builtin_formats`);
every other one, the benchmarks' included, comes from the `sessionproof.formats` entry-point
group or from `register_format`, so the importers never name a benchmark or a higher layer.
Readers, sniffs and task readers may be `"module:attribute"` references, imported on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .._plugins import Registry, resolve
from ..errors import ConfigError
from ..records import Scenario
from ._common import ImportResult
from ._labels import LabelRule

if TYPE_CHECKING:
    from ._sample import Sample


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

    def __call__(self, raw: dict[str, Any], domain: str) -> Scenario | None:
        """The scenario; None when `raw` is not this format's task shape; pydantic's
        ValidationError (or ValueError) when it is that shape but broken."""
        ...


Sniff = Callable[["Sample"], "bool | float"]
"""Says whether a file is of a format: True (sure), False, or a confidence in (0, 1)."""


@dataclass(frozen=True)
class TranscriptFormat:
    """One transcript format: what the `sessionproof.formats` entry points resolve to."""

    reader: FormatReader | LabelledFormatReader | str
    """Reads the file (a `LabelledFormatReader` when `labels`); or its `module:attribute`."""
    sniff: Sniff | str | None = None
    """Recognises the format's files for auto-detection; None: only read with `--format`."""
    labels: bool = False
    """True when the reader takes `label_from` (`--label-from`)."""
    task_reader: TaskReader | str | None = None
    """Reads the task objects of this format a JSON Lines log's `task` field may hold."""
    shape: str = ""
    """What the format's files look like, for the error on a file no format recognises."""
    order: int = 50
    """When auto-detection asks the sniff (lower first; the first sure answer wins)."""


def _check(name: str, obj: Any) -> TranscriptFormat:
    if not isinstance(obj, TranscriptFormat):
        raise ConfigError(f"format {name!r} is a {type(obj).__name__}, not a TranscriptFormat")
    return obj


FORMAT_REGISTRY: Registry[TranscriptFormat] = Registry("formats", check=_check)
"""Every transcript format: the generic ones, the `sessionproof.formats` entry points and
those registered at run time."""


def register_format(
    name: str,
    reader_path: FormatReader | LabelledFormatReader | str,
    *,
    labels: bool = False,
    sniff: Sniff | str | None = None,
    shape: str = "",
    order: int = 50,
) -> None:
    """Declare a format: `reader_path` is a reader or its `module:function` (a FormatReader;
    with `labels`, a LabelledFormatReader); with `sniff`, auto-detection recognises it."""
    FORMAT_REGISTRY.add(
        name,
        TranscriptFormat(reader_path, sniff=sniff, labels=labels, shape=shape, order=order),
    )


def format_names() -> tuple[str, ...]:
    """Every format `import_file` reads (besides "auto"); imports no plug-in."""
    return tuple(FORMAT_REGISTRY.names())


def get_format(name: str) -> TranscriptFormat | None:
    """The format registered as `name`; None when none is."""
    return FORMAT_REGISTRY.get(name)


def reads_labels(name: str) -> bool:
    """True when format `name` can take its outcomes from `--label-from`."""
    found = get_format(name)
    return found is not None and found.labels


def _part(ref: Any, name: str, what: str) -> Any:
    return resolve(ref, what=f"{what} of format {name!r}") if isinstance(ref, str) else ref


def format_reader(name: str) -> FormatReader | None:
    """The reader of a registered format; None for unknown names."""
    found = get_format(name)
    if found is None:
        return None
    reader: FormatReader = _part(found.reader, name, "reader")
    return reader


def labelled_reader(name: str) -> LabelledFormatReader | None:
    """The reader of a format that takes `label_from`; None for any other."""
    found = get_format(name)
    if found is None or not found.labels:
        return None
    reader: LabelledFormatReader = _part(found.reader, name, "reader")
    return reader


def format_sniff(name: str, fmt: TranscriptFormat) -> Sniff | None:
    """The sniff of format `fmt` (registered as `name`), imported; None when it has none."""
    sniff: Sniff | None = _part(fmt.sniff, name, "sniff")
    return sniff


def detection_order() -> list[tuple[str, TranscriptFormat]]:
    """Every format (each imported), in the order auto-detection asks them."""
    found = FORMAT_REGISTRY.loaded()
    return sorted(found.items(), key=lambda item: (item[1].order, item[0]))


def scenario_from_any_task(raw: object, domain: str) -> Scenario:
    """The scenario a JSONL line's `task` object describes: a task of a registered format
    (each format's task reader is asked in detection order), or a sessionproof scenario.

    Raises pydantic's ValidationError for a malformed task of a recognised shape, and
    ValueError for an object of no recognised shape.
    """
    if not isinstance(raw, dict):
        raise ValueError(f"a task must be an object, got {type(raw).__name__}")
    shapes = []
    for name, fmt in detection_order():
        if fmt.task_reader is None:
            continue
        shapes.append(f"a {name} task")
        reader: TaskReader = _part(fmt.task_reader, name, "task reader")
        scenario = reader(raw, domain)
        if scenario is not None:
            return scenario
    if "user" in raw and "id" in raw:
        return Scenario.model_validate({"domain": domain, **raw})
    known = ", ".join(shapes)
    raise ValueError(f"not {known + ' or ' if known else ''}a scenario (no id and user)")
