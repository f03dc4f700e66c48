"""`--suite bfcl:<category>`: the BFCL scenarios as a `Suite` the engine can run.

Imported only when such a suite is asked for, so the BFCL data loads on demand.
"""

from __future__ import annotations

from typing import Any

from ...domains import Domain, DomainSpec
from ...errors import UnknownSuiteError
from ...records import Outcome, Scenario, Session
from .._suite import Suite, without_derived_fields
from ._data import SUITE_CATEGORIES
from ._domain import bfcl_domain
from ._mt_package import MULTI_TURN_CATEGORIES
from ._suite import evaluate_bfcl, load_bfcl_suite


class BfclSuite(Suite):
    """BFCL questions: a no-op domain per question, sessions judged by the AST matcher."""

    def __init__(self, name: str, scenarios: list[Scenario]) -> None:
        super().__init__(name, scenarios)
        self._domains: dict[str, DomainSpec] = {}

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The question's own tools (built once per scenario)."""
        spec = self._domains.get(scenario.id)
        if spec is None:
            spec = self._domains[scenario.id] = bfcl_domain(scenario)
        return spec

    def hashed_form(self, scenario: Scenario) -> dict[str, Any]:
        """The scenario less what this package derives from its question (hashed as
        metadata)."""
        return without_derived_fields(super().hashed_form(scenario))

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """Every tool call of the session, matched against the possible answer."""
        return evaluate_bfcl(scenario, session.tool_calls())


def make_bfcl_suite(name: str) -> Suite:
    """The suite named `bfcl:<category>`; raises `UnknownSuiteError` for another category.

    A multi-turn category (`multi_turn_base`, ...) runs BFCL's own classes from the installed
    bfcl-eval (`BfclEvalMissing` when it is not installed).
    """
    category = name.split(":", 1)[1] if name.startswith("bfcl:") else ""
    if category in MULTI_TURN_CATEGORIES:
        from ._mt_suite import make_multi_turn_suite

        return make_multi_turn_suite(name, category)
    if category not in SUITE_CATEGORIES:
        raise UnknownSuiteError(
            f"unknown suite {name!r}; BFCL suites: "
            + ", ".join(f"bfcl:{c}" for c in (*SUITE_CATEGORIES, *MULTI_TURN_CATEGORIES))
        )
    return BfclSuite(name, load_bfcl_suite(category))
