"""The `wild` suite: WildToolBench-style multi-task sessions over the demo domain.

Thirty-six sessions of four tasks, generated from a compact data file (`sessions.yaml`) by
playing each task's gold calls on the demo world. Every task is one user turn, typed
single-tool / parallel / sequential / mixed / clarify / chat; later tasks carry an
implicit-intent kind; sessions carry 0–3 instruction transitions. Reports break task accuracy
down by position, type and intent, session accuracy by transitions, and give the
optimal-path rate of parallel and mixed tasks.
"""

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
