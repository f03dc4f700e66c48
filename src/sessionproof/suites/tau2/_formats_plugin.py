"""tau2's and tau-bench's transcript formats as `sessionproof.formats` plug-ins.

Declared as entry points in sessionproof's `pyproject.toml`, exactly as another package would
declare its own: the importers find them there and never name this suite. Each brings the
sniff that recognises its results files and the reader of the task objects a JSON Lines log
may embed; the readers themselves are imported only when a file of the format is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...importers import Sample, TranscriptFormat
from ...records import Scenario
from ._taubench_task import scenario_from_any_task

_TAU2_TASK_KEYS = ("user_scenario", "evaluation_criteria")


def _is_tau2(sample: Sample) -> bool:
    doc = sample.document
    return isinstance(doc, dict) and "simulations" in doc


def _is_taubench(sample: Sample) -> bool:
    doc = sample.document
    return isinstance(doc, list) and bool(doc) and isinstance(doc[0], dict) and "traj" in doc[0]


def _is_tau2_task(raw: dict[str, Any]) -> bool:
    return any(key in raw for key in _TAU2_TASK_KEYS)


def tau2_task(raw: dict[str, Any], domain: str) -> Scenario | None:
    """The scenario of a tau2 task object; None for any other shape."""
    if not _is_tau2_task(raw):
        return None
    return scenario_from_any_task(raw, domain)


def taubench_task(raw: dict[str, Any], domain: str) -> Scenario | None:
    """The scenario of a tau-bench task object (`instruction`, `actions`); None for another."""
    if _is_tau2_task(raw) or "instruction" not in raw:
        return None
    return scenario_from_any_task(raw, domain)


@dataclass(frozen=True)
class WrittenFormat(TranscriptFormat):
    """A transcript format a stored run can also be exported to (`export --format NAME`)."""

    writer: str = ""
    """The `module:function` writing a run's sessions in the format (`runs` resolves it)."""


TAU2 = WrittenFormat(
    "sessionproof.suites.tau2._tau2:import_tau2",
    sniff=_is_tau2,
    task_reader=tau2_task,
    shape='a tau2 results file ({..., "simulations": [...]})',
    order=30,
    writer="sessionproof.suites.tau2._export:write_tau2",
)
"""A tau2 results file (`{..., "simulations": [...]}`), read and written."""

TAU_BENCH = TranscriptFormat(
    "sessionproof.suites.tau2._taubench:import_taubench",
    sniff=_is_taubench,
    task_reader=taubench_task,
    shape='a tau-bench trajectory list ([{..., "traj": [...]}])',
    order=31,
)
"""A tau-bench trajectory list (`[{..., "traj": [...]}]`)."""
