"""A rerun with nothing to judge it by is not judged: its outcome says so (`not_judged`), so
no count, progress line or summary can take it for a failure (issue 34 item 8)."""

from __future__ import annotations

import pytest

from sessionproof.domains import get_domain
from sessionproof.records import Criteria, Scenario, Session, TerminationReason, UserSpec
from sessionproof.rerun._plan import verdict_of
from sessionproof.rerun._suite import RerunSuite


def _session() -> Session:
    return Session(
        run_id="r",
        session_id="t.t0",
        scenario_id="t",
        trial=0,
        termination=TerminationReason.user_stop,
    )


@pytest.mark.parametrize("kind", ["none", "recorded"])
def test_no_criterion_means_not_judged(kind: str) -> None:
    scenario = Scenario(
        id="t", domain="demo", user=UserSpec(turns=["hi"]), criteria=Criteria(compare_state=False)
    )
    suite = RerunSuite("rerun:t", [scenario], {"t": kind})
    outcome = suite.evaluate(scenario, _session(), get_domain("demo").create())
    assert not outcome.judged
    assert outcome.not_judged == "no criterion to judge by"
    assert verdict_of(outcome) is None


def test_an_evaluator_that_raises_is_not_judged() -> None:
    # A tau2 evaluator on a scenario with no tau2 task: it raises, and the rerun is not judged.
    scenario = Scenario(id="t", domain="demo", user=UserSpec(turns=["hi"]))
    suite = RerunSuite("rerun:t", [scenario], {"t": "tau2"})
    outcome = suite.evaluate(scenario, _session(), get_domain("demo").create())
    assert not outcome.judged
    assert outcome.not_judged is not None and outcome.not_judged.startswith("could not judge")
    assert verdict_of(outcome) is None
