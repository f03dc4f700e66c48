"""`--suite tau2-telecom[:SPLIT]`: tau2's telecom tasks, the user holding their phone.

Without a tau2-bench checkout the suite is tau2's small task set (20 tasks, the `small`
split) with our own policy text; with one (`--tau2-data DIR` or `SESSIONPROOF_TAU2_DATA`)
it is the checkout's full task file, its splits and its policy texts.
"""

from __future__ import annotations

import functools

from ....domains import DomainSpec
from ....errors import InputFileError, UnknownSuiteError
from ....records import Scenario
from .._suite import Tau2Suite
from ._files import TelecomFiles, telecom_files
from ._judge import spec_for
from ._tasks import load_scenarios, load_splits

SUITE = "tau2-telecom"


@functools.cache
def _tasks(files: TelecomFiles) -> tuple[tuple[Scenario, ...], dict[str, list[str]]]:
    return tuple(load_scenarios(files)), load_splits(files)


def load_telecom_suite(name: str, folder: str | None = None) -> list[Scenario]:
    """The scenarios of `tau2-telecom[:SPLIT]`, from `folder` (a tau2-bench data
    directory), else `SESSIONPROOF_TAU2_DATA`, else the package's small task set."""
    base, _, split = name.partition(":")
    if base != SUITE:
        raise UnknownSuiteError(f"unknown tau2 suite {name!r}; use {SUITE}[:SPLIT]")
    files = telecom_files(folder)
    scenarios, splits = _tasks(files)
    if not split:
        return [s.model_copy(deep=True) for s in scenarios]
    if split not in splits:
        raise UnknownSuiteError(
            f"{base} has no split {split!r}; splits: {', '.join(sorted(splits))}"
        )
    wanted = set(splits[split])
    chosen = [s.model_copy(deep=True) for s in scenarios if s.id in wanted]
    missing = wanted - {s.id for s in chosen}
    if missing:
        hint = (
            "; the package ships tau2's small task set only: point --tau2-data (or "
            "SESSIONPROOF_TAU2_DATA) at a tau2-bench checkout's data directory for the others"
            if files.folder is None
            else ""
        )
        raise InputFileError(
            f"{base} split {split!r} names {len(missing)} task(s) not in "
            f"{files.where}{files.task_file}{hint}"
        )
    return chosen


class TelecomSuite(Tau2Suite):
    """A telecom suite: each scenario starts from its own task's world."""

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The task's world: the databases, then its set-up steps."""
        return spec_for(scenario)


def telecom_suite(name: str) -> TelecomSuite:
    """The suite registry's factory for `tau2-telecom[:SPLIT]`."""
    return TelecomSuite(name, load_telecom_suite(name))
