"""What this package registers through sessionproof's entry points (see `pyproject.toml`):
the `bfcl:CATEGORY` suites and the scorer of BFCL model-output files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._plugin import SuitePlugin

if TYPE_CHECKING:
    from ...domains import Domain
    from ...records import Outcome, Scenario, Session
    from .._judges import Judgement
    from .._nl_judge import NLJudge
    from .._scorers import ScoreOptions
    from .._suite import Suite
    from ._report import BfclReport


def _load(name: str) -> Suite:
    from ._bfcl import make_bfcl_suite

    return make_bfcl_suite(name)


SUITE = SuitePlugin(
    "BFCL v4 single-call questions: simple_python, multiple, parallel, parallel_multiple, "
    "irrelevance; multi-turn entries (BFCL's classes, from bfcl-eval): multi_turn_base, "
    "multi_turn_miss_func, multi_turn_miss_param, multi_turn_long_context",
    _load,
    usage="bfcl:CATEGORY",
)
"""`--suite bfcl:CATEGORY`."""


class BfclJudge:
    """BFCL's verdict on its questions' sessions (`criteria.evaluator` `bfcl`): the calls the
    agent made, matched with BFCL's semantics (multi-turn entries by its multi-turn checker).
    It reads the calls alone, so a recorded session is judged as a live one."""

    def judge_recorded(
        self,
        scenario: Scenario,
        session: Session,
        *,
        nl_judge: NLJudge | None = None,
        cache: Any = None,
    ) -> Judgement:
        """The verdict of the session's calls."""
        from .._judges import Judgement

        return Judgement(outcome=self._verdict(scenario, session))

    def evaluate(
        self,
        scenario: Scenario,
        session: Session,
        final_domain: Domain[Any],
        nl_judge: NLJudge | None = None,
    ) -> Outcome:
        """The verdict of the session's calls (the domain plays no part)."""
        return self._verdict(scenario, session)

    def new_cache(self) -> Any:
        """Nothing to reuse between sessions."""
        return None

    def domain_name(self, name: str) -> str:
        """Each question has its own tools: names stay as given."""
        return name

    @staticmethod
    def _verdict(scenario: Scenario, session: Session) -> Outcome:
        if scenario.criteria.per_turn:
            from ._mt_suite import evaluate_multi_turn

            return evaluate_multi_turn(scenario, session)
        from ._suite import evaluate_bfcl

        return evaluate_bfcl(scenario, session.tool_calls())


JUDGE = BfclJudge()
"""Registered as judge `bfcl`."""


class BfclScorer:
    """`score --format bfcl`: decoded model outputs against BFCL's questions and possible
    answers, matched with BFCL's AST semantics (multi-turn result files with its multi-turn
    checker's); one verdict per line written to `-o` when given."""

    def score(self, path: Path, options: ScoreOptions) -> BfclReport:
        """BFCL's verdicts of `path`; `ConfigError` without questions and answers."""
        from ...errors import ConfigError
        from ._report import BfclReport
        from ._score import score_bfcl_file

        if options.questions is None or options.answers is None:
            raise ConfigError("--format bfcl needs --questions and --answers")
        result = score_bfcl_file(
            path,
            options.questions,
            options.answers,
            options.output,
            strict_empty_turns=options.strict_empty_turns,
        )
        out = None if options.output is None else str(options.output)
        return BfclReport(score=result, output=out)


SCORER = BfclScorer()
"""Registered as output scorer `bfcl`."""
