"""tau2-bench task suites: `tau2-retail`, `tau2-airline`, each with `:SPLIT` from the domain's
`split_tasks.json` (train, test, base).

Scenarios come from the domain's `tasks.json`: the simulated user gets the task's user
scenario, the criteria its gold actions and communicate facts, and `metadata["tau2_task"]`
the whole task, so sessions are judged by `evaluate_tau2` under the task's reward basis.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import ValidationError

from ...domains import Domain
from ...errors import InputFileError, UnknownSuiteError, describe_validation
from ...records import Outcome, Scenario, Session
from .._nl_judge import NLJudge
from .._suite import Suite, without_derived_fields
from ._evaluate import evaluate_tau2
from ._tau import read_package_json
from ._tau2task import Tau2Task, scenario_from_task

DOMAINS = {"tau2-retail": "retail", "tau2-airline": "airline"}
"""Suite name → domain."""


@functools.cache
def _tasks(domain: str) -> tuple[tuple[Scenario, ...], dict[str, list[str]]]:
    package = f"sessionproof.suites.tau2.{domain}"
    raw = read_package_json(package, "tasks.json")
    splits = read_package_json(package, "split_tasks.json")
    if not isinstance(raw, list):
        raise InputFileError(f"{domain} data/tasks.json: expected a list of tasks")
    scenarios = []
    for i, item in enumerate(raw):
        try:
            task = Tau2Task.model_validate(item)
        except ValidationError as exc:
            raise InputFileError(
                f"{domain} data/tasks.json: task #{i}: {describe_validation(exc)}"
            ) from None
        scenarios.append(scenario_from_task(task, item, domain))
    if not isinstance(splits, dict):
        raise InputFileError(f"{domain} data/split_tasks.json: expected an object of id lists")
    return tuple(scenarios), {str(k): [str(i) for i in v] for k, v in splits.items()}


def load_tau2_suite(name: str) -> list[Scenario]:
    """The scenarios of `tau2-retail[:SPLIT]` or `tau2-airline[:SPLIT]`."""
    base, _, split = name.partition(":")
    domain = DOMAINS.get(base)
    if domain is None:
        raise UnknownSuiteError(f"unknown tau2 suite {name!r}; use {' or '.join(DOMAINS)}[:SPLIT]")
    scenarios, splits = _tasks(domain)
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
        raise InputFileError(
            f"{domain} split {split!r} names tasks not in tasks.json: {', '.join(sorted(missing))}"
        )
    return chosen


class Tau2Suite(Suite):
    """A tau2 suite: sessions are judged by the task's reward basis (`evaluate_tau2`)."""

    def __init__(self, name: str, scenarios: list[Scenario], judge: NLJudge | None = None) -> None:
        super().__init__(name, scenarios)
        self.judge = judge
        """Judge for NL assertions; None reports them as not evaluated."""

    def hashed_form(self, scenario: Scenario) -> dict[str, Any]:
        """The scenario less what this package derives from its task (hashed as metadata)."""
        return without_derived_fields(super().hashed_form(scenario))

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """The tau2 verdict, read from the session's final state.

        The engine adds its own termination criterion, so ours is left out here.
        """
        judge = self.judge if self.judge is not None else self.nl_judge
        outcome = evaluate_tau2(scenario, session, final_domain, judge)
        kept = [c for c in outcome.criteria if c.name != "termination"]
        return outcome.model_copy(update={"criteria": kept})


def tau2_suite(name: str) -> Tau2Suite:
    """The suite registry's factory for `tau2-retail[:SPLIT]` and `tau2-airline[:SPLIT]`."""
    return Tau2Suite(name, load_tau2_suite(name))
