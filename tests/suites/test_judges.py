"""A scenario's `criteria.evaluator` is looked up once, in the judges registry: every place that
judges (a live run, offline scoring, a rerun) uses the judge a package registered, and an
evaluator nobody registered is said when the suite loads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessionproof.domains import Domain, get_domain
from sessionproof.errors import ConfigError
from sessionproof.records import (
    Criteria,
    Outcome,
    Scenario,
    Session,
    TerminationReason,
    UserSpec,
)
from sessionproof.rerun._suite import RerunSuite
from sessionproof.suites import Judge, Judgement, Suite, load_suite, register_judge
from sessionproof.suites._internal import judge_named, judge_of
from sessionproof.suites._judges import JUDGES


class CountingJudge:
    """Passes every session and counts how it was asked."""

    def __init__(self) -> None:
        self.live = 0
        self.recorded = 0

    def judge_recorded(
        self, scenario: Scenario, session: Session, *, nl_judge: Any = None, cache: Any = None
    ) -> Judgement:
        self.recorded += 1
        return Judgement(outcome=Outcome(success=True, reward=1.0))

    def evaluate(
        self, scenario: Scenario, session: Session, final_domain: Domain[Any], nl_judge: Any = None
    ) -> Outcome:
        self.live += 1
        return Outcome(success=True, reward=0.5)

    def new_cache(self) -> Any:
        return None

    def domain_name(self, name: str) -> str:
        return "demo" if name == "demo-alias" else name


@pytest.fixture
def counting() -> Iterator[CountingJudge]:
    judge = CountingJudge()
    register_judge("counting", judge)
    yield judge
    JUDGES.remove("counting")


def _scenario(evaluator: str | None) -> Scenario:
    return Scenario(
        id="s1", domain="demo", user=UserSpec(turns=["hi"]), criteria=Criteria(evaluator=evaluator)
    )


def test_the_benchmarks_judges_come_from_entry_points() -> None:
    origins = {e.name: e.origin for e in JUDGES.entries()}
    assert origins["tau2"] == origins["tau-bench"] == origins["bfcl"] == "sessionproof"
    for name in ("tau2", "tau-bench", "bfcl"):
        assert isinstance(judge_named(name), Judge)
    assert judge_named("tau-bench").domain_name("retail") == "taubench-retail"
    assert judge_named("tau2").domain_name("retail") == "retail"


def test_a_suite_and_a_rerun_judge_by_the_registered_judge(counting: CountingJudge) -> None:
    scenario = _scenario("counting")
    assert judge_of(scenario) is counting
    assert judge_of(_scenario(None)) is None
    session = Session(
        run_id="r",
        session_id="s1.t0",
        scenario_id="s1",
        trial=0,
        termination=TerminationReason.user_stop,
    )
    final = get_domain("demo").create()
    assert Suite("probe", [scenario]).evaluate(scenario, session, final).reward == 0.5
    rerun = RerunSuite("rerun:probe", [scenario], {"s1": "counting"})
    assert rerun.evaluate(scenario, session, final).reward == 0.5
    assert counting.live == 2


def test_an_unknown_evaluator_is_said_when_the_suite_loads(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "scenarios:\n"
        "  - id: s1\n"
        "    domain: demo\n"
        "    user: {turns: [hi]}\n"
        "    criteria: {evaluator: nobody-registered-this}\n"
    )
    with pytest.raises(ConfigError, match="'nobody-registered-this' is no installed judge") as err:
        load_suite(str(path))
    assert "tau2" in str(err.value)  # the known judges are listed
    with pytest.raises(ConfigError, match="no installed judge"):
        judge_of(_scenario("nobody-registered-this"))


def test_a_rerun_skips_a_transcript_whose_evaluator_no_package_provides(
    counting: CountingJudge,
) -> None:
    from sessionproof.importers import ImportedSession, ImportResult
    from sessionproof.rerun._internal import plan_reruns

    def imported(index: int, evaluator: str) -> ImportedSession:
        session = Session(
            run_id="r",
            session_id=f"s{index}.t0",
            scenario_id=f"s{index}",
            trial=0,
            termination=TerminationReason.user_stop,
        )
        scenario = _scenario(evaluator).model_copy(update={"id": f"s{index}"})
        return ImportedSession(index=index, session=session, scenario=scenario)

    result = ImportResult(
        format="probe",
        source="probe.jsonl",
        sessions=[imported(0, "counting"), imported(1, "nobody-registered-this")],
    )
    items, skipped = plan_reruns(result, domain="demo-alias")
    # The registered judge judges its transcript's original and maps the domain it is given.
    assert [(i.transcript_id, i.judged_by, i.scenario.domain) for i in items] == [
        ("s0.t0", "counting", "demo")
    ]
    assert counting.recorded == 1 and items[0].original is True
    assert len(skipped) == 1 and "'nobody-registered-this' is no installed judge" in skipped[0].why
