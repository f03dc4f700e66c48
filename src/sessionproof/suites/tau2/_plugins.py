"""What this package registers through sessionproof's entry points (see `pyproject.toml`):
the suites `tau2-retail[:SPLIT]`, `tau2-airline[:SPLIT]` and `tau2-telecom[:SPLIT]`, and
the judges of tau2 and tau-bench tasks. Importing this module loads nothing else of the package."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._plugin import SuitePlugin

if TYPE_CHECKING:
    from ...domains import Domain
    from ...records import Outcome, Scenario, Session
    from .._judges import Judgement
    from .._nl_judge import NLJudge
    from .._suite import Suite


def _load(name: str) -> Suite:
    from ._suite import tau2_suite

    return tau2_suite(name)


RETAIL_SUITE = SuitePlugin(
    "tau2-bench retail tasks (simulated user; split from split_tasks.json)",
    _load,
    usage="tau2-retail[:SPLIT]",
)
"""`--suite tau2-retail[:SPLIT]`."""


def _load_telecom(name: str) -> Suite:
    from .telecom._internal import telecom_suite

    return telecom_suite(name)


TELECOM_SUITE = SuitePlugin(
    "tau2-bench telecom tasks (the user holds their phone: dual control; tau2's small set, "
    "or a checkout's full set with --tau2-data)",
    _load_telecom,
    usage="tau2-telecom[:SPLIT]",
)
"""`--suite tau2-telecom[:SPLIT]`."""

AIRLINE_SUITE = SuitePlugin(
    "tau2-bench airline tasks (simulated user)", _load, usage="tau2-airline[:SPLIT]"
)
"""`--suite tau2-airline[:SPLIT]`."""


class Tau2Judge:
    """tau2's reward for scenarios of tau2 tasks (`criteria.evaluator` `tau2`)."""

    def judge_recorded(
        self,
        scenario: Scenario,
        session: Session,
        *,
        nl_judge: NLJudge | None = None,
        cache: Any = None,
    ) -> Judgement:
        """The task's reward, its DB replayed from the session's recorded calls."""
        from ._evaluate import judge_tau2
        from ._replay import DEFAULT_GOLD_CACHE

        return judge_tau2(
            scenario, session, judge=nl_judge, cache=DEFAULT_GOLD_CACHE if cache is None else cache
        )

    def evaluate(
        self,
        scenario: Scenario,
        session: Session,
        final_domain: Domain[Any],
        nl_judge: NLJudge | None = None,
    ) -> Outcome:
        """The task's reward for a live session."""
        from ._evaluate import evaluate_tau2

        return evaluate_tau2(scenario, session, final_domain, nl_judge)

    def new_cache(self) -> Any:
        """Gold states and parsed tasks, shared by the sessions of one file."""
        from ._replay import GoldCache

        return GoldCache()

    def domain_name(self, name: str) -> str:
        """tau2's domains are named as the user names them."""
        return name


class TauBenchJudge(Tau2Judge):
    """tau-bench's reward for scenarios of tau-bench tasks (`criteria.evaluator` `tau-bench`);
    NL assertions are no part of it."""

    def judge_recorded(
        self,
        scenario: Scenario,
        session: Session,
        *,
        nl_judge: NLJudge | None = None,
        cache: Any = None,
    ) -> Judgement:
        """The task's reward, its DB replayed from the session's recorded calls."""
        from ._evaluate import judge_taubench
        from ._replay import DEFAULT_GOLD_CACHE

        return judge_taubench(
            scenario, session, cache=DEFAULT_GOLD_CACHE if cache is None else cache
        )

    def evaluate(
        self,
        scenario: Scenario,
        session: Session,
        final_domain: Domain[Any],
        nl_judge: NLJudge | None = None,
    ) -> Outcome:
        """The task's reward for a live session."""
        from ._evaluate import judge_taubench

        return judge_taubench(scenario, session, final_domain).outcome

    def domain_name(self, name: str) -> str:
        """tau-bench's own variant of a domain (retail → taubench-retail)."""
        from ._taubench import taubench_domain

        return taubench_domain(name) or name


TAU2_JUDGE = Tau2Judge()
"""Registered as judge `tau2`."""
TAUBENCH_JUDGE = TauBenchJudge()
"""Registered as judge `tau-bench`."""
