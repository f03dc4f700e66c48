"""`RunSettings`: `RunConfig`'s fields as typed keyword arguments (`**options:
Unpack[RunSettings]`), so a function that takes a run's settings by keyword (`run_suite`)
accepts exactly what `RunConfig` does and cannot drift from it.

A TypedDict cannot be generated from a pydantic model for the type checker, so the keys are
written here once and `tests/runs/test_options_drift.py` fails when they and `RunConfig`'s
fields differ; the values are checked by `RunConfig` itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from ..agents import Agent
from ..scoring._internal import PriceTable
from ._config import Reading, ToolMode
from ._live import OtlpExport


class RunSettings(TypedDict, total=False):
    """Every `RunConfig` field but the suite and the model, by keyword (see `RunConfig` for
    what each one means and its default)."""

    trials: int
    limit: int | None
    concurrency: int | None
    max_sessions: int | None
    seed: int
    max_steps: int
    user_model: str | Agent | None
    tool_mode: ToolMode
    arms: Sequence[str]
    faults: str | None
    drift: str | None
    guard: bool | None
    perturb: str | None
    model_faults: str | None
    agent_timeout: float
    store: str | Path | None
    reading: Reading
    executor: str
    rpm: float | None
    tpm: float | None
    export: OtlpExport | Mapping[str, Any] | None
    vary: str | None
    judge: str | None
    prices: PriceTable | None
