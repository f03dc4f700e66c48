"""Accuracy broken down by a label: tables of pass rates over units smaller than a session.

A suite whose sessions hold several tasks (the `wild` suite: four user turns, each a task)
reports how its tasks fared by position, type or any other label. The tables are generic:
a unit is a (label, passed) pair, and a table keeps the labels in the order given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from .stats import wilson_interval


class RateCell(BaseModel):
    """The pass rate of the units that carry one label."""

    model_config = ConfigDict(extra="forbid")

    label: str
    units: int
    passed: int
    rate: float | None
    """passed ÷ units; None when no unit carries the label."""
    ci95: tuple[float, float] | None = None
    """Wilson 95% interval of `rate`."""


class Breakdown(BaseModel):
    """One table: a metric by one label."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """e.g. `by_position`, `optimal_path`."""
    title: str
    cells: list[RateCell] = Field(default_factory=list)


class Breakdowns(BaseModel):
    """A suite's breakdown tables for one arm, with their definitions."""

    model_config = ConfigDict(extra="forbid")

    unit: str
    """What is counted (e.g. `task`)."""
    units: int
    passed: int
    rate: float | None
    tables: list[Breakdown] = Field(default_factory=list)
    definitions: dict[str, str] = Field(default_factory=dict)

    def table(self, name: str) -> Breakdown | None:
        """The table called `name`, if there is one."""
        return next((t for t in self.tables if t.name == name), None)


def rate_cell(label: str, outcomes: Sequence[bool]) -> RateCell:
    """The pass rate of `outcomes` under `label`, with its Wilson interval."""
    n = len(outcomes)
    k = sum(outcomes)
    if n == 0:
        return RateCell(label=label, units=0, passed=0, rate=None)
    return RateCell(label=label, units=n, passed=k, rate=k / n, ci95=wilson_interval(k, n))


def rate_table(
    name: str, title: str, units: Iterable[tuple[str, bool]], labels: Sequence[str] = ()
) -> Breakdown:
    """A table of pass rates by label: `labels` first, in that order (listed even when no
    unit carries them), then any other label in the order it first appears."""
    grouped: dict[str, list[bool]] = {label: [] for label in labels}
    for label, passed in units:
        grouped.setdefault(label, []).append(passed)
    return Breakdown(name=name, title=title, cells=[rate_cell(k, v) for k, v in grouped.items()])
