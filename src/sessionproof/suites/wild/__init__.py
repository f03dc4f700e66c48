"""The `wild` suite: WildToolBench-style multi-task sessions over the demo domain.

Thirty-six sessions of four tasks, generated from a compact data file (`sessions.yaml`) by
playing each task's gold calls on the demo world. Every task is one user turn, typed
single-tool / parallel / sequential / mixed / clarify / chat; later tasks carry an
implicit-intent kind; sessions carry 0–3 instruction transitions. Reports break task accuracy
down by position, type and intent, session accuracy by transitions, and give the
optimal-path rate of parallel and mixed tasks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

if TYPE_CHECKING:
    from ._breakdown import WILD_DEFINITIONS, wild_breakdowns
    from ._generate import (
        Blueprint,
        TaskLabel,
        WildMeta,
        build_scenario,
        parse_blueprints,
        wild_meta,
        wild_scenarios,
    )
    from ._judge import TASK_CRITERION, judge_tasks
    from ._suite import SUITE_NAME, WildSuite, make_wild_suite
    from ._tasks import TEMPLATES, Intent, TaskType

_MODULE_OF: dict[str, str] = {
    "WILD_DEFINITIONS": "._breakdown",
    "wild_breakdowns": "._breakdown",
    "Blueprint": "._generate",
    "TaskLabel": "._generate",
    "WildMeta": "._generate",
    "build_scenario": "._generate",
    "parse_blueprints": "._generate",
    "wild_meta": "._generate",
    "wild_scenarios": "._generate",
    "TASK_CRITERION": "._judge",
    "judge_tasks": "._judge",
    "SUITE_NAME": "._suite",
    "WildSuite": "._suite",
    "make_wild_suite": "._suite",
    "TEMPLATES": "._tasks",
    "Intent": "._tasks",
    "TaskType": "._tasks",
}
"""Each public name -> the submodule that defines it (imported on first use, so the
suite plug-in object in `_plugins` loads nothing else of the package)."""

__all__ = [
    "SUITE_NAME",
    "TASK_CRITERION",
    "TEMPLATES",
    "WILD_DEFINITIONS",
    "Blueprint",
    "Intent",
    "TaskLabel",
    "TaskType",
    "WildMeta",
    "WildSuite",
    "build_scenario",
    "judge_tasks",
    "make_wild_suite",
    "parse_blueprints",
    "wild_breakdowns",
    "wild_meta",
    "wild_scenarios",
]

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
