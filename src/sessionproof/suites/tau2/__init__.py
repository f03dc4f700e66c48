"""tau2-bench and tau-bench: their domains, tasks, transcript formats and verdicts.

- Domains `retail`, `airline` (tau2) and `taubench-retail`, `taubench-airline` (tau-bench's
  variants), registered in `sessionproof.domains` by name and imported on first use.
- Suites `tau2-retail[:SPLIT]`, `tau2-airline[:SPLIT]` (`tau2_suite`).
- Transcript formats `tau2` and `tau-bench` (`import_tau2`, `import_taubench`), registered in
  `sessionproof.importers` by name.
- Verdicts (`evaluate_tau2`, `judge_tau2`...) and offline scoring (`score_transcripts`).

Every name below is imported on first use (PEP 562), so building a domain (`get_domain("retail")`
imports `retail` and `_tau` only) loads neither scoring, the importers nor the store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

if TYPE_CHECKING:
    from .._judges import Judgement
    from .._nl_judge import (
        AgentJudge,
        NLJudge,
        make_judge,
        parse_judgement,
        transcript_text,
    )
    from .._score import score_transcripts
    from .._score_report import Agreement, Disagreement, ScoreReport, SessionScore
    from ._evaluate import (
        evaluate_tau2,
        evaluate_taubench,
        judge_tau2,
        judge_taubench,
    )
    from ._replay import (
        DEFAULT_GOLD_CACHE,
        GoldCache,
        GoldState,
        replay,
        replayed_calls,
    )
    from ._suite import (
        DOMAINS,
        Tau2Suite,
        load_tau2_suite,
        tau2_suite,
    )
    from ._tau2 import (
        import_tau2,
    )
    from ._tau2task import (
        Tau2Task,
        render_instructions,
        scenario_from_task,
    )
    from ._taubench import (
        guess_domain,
        import_taubench,
        taubench_domain,
    )
    from ._taubench_task import (
        TauBenchTask,
        scenario_from_any_task,
        scenario_from_taubench,
    )

_MODULE_OF: dict[str, str] = {
    "Judgement": ".._judges",
    "evaluate_tau2": "._evaluate",
    "evaluate_taubench": "._evaluate",
    "judge_tau2": "._evaluate",
    "judge_taubench": "._evaluate",
    "AgentJudge": ".._nl_judge",
    "NLJudge": ".._nl_judge",
    "make_judge": ".._nl_judge",
    "parse_judgement": ".._nl_judge",
    "transcript_text": ".._nl_judge",
    "DEFAULT_GOLD_CACHE": "._replay",
    "GoldCache": "._replay",
    "GoldState": "._replay",
    "replay": "._replay",
    "replayed_calls": "._replay",
    "Agreement": ".._score_report",
    "Disagreement": ".._score_report",
    "ScoreReport": ".._score_report",
    "SessionScore": ".._score_report",
    "score_transcripts": ".._score",
    "DOMAINS": "._suite",
    "Tau2Suite": "._suite",
    "load_tau2_suite": "._suite",
    "tau2_suite": "._suite",
    "import_tau2": "._tau2",
    "Tau2Task": "._tau2task",
    "render_instructions": "._tau2task",
    "scenario_from_task": "._tau2task",
    "guess_domain": "._taubench",
    "import_taubench": "._taubench",
    "taubench_domain": "._taubench",
    "TauBenchTask": "._taubench_task",
    "scenario_from_any_task": "._taubench_task",
    "scenario_from_taubench": "._taubench_task",
}
"""Each public name -> the submodule that defines it."""

__all__ = [
    "DEFAULT_GOLD_CACHE",
    "DOMAINS",
    "AgentJudge",
    "Agreement",
    "Disagreement",
    "GoldCache",
    "GoldState",
    "Judgement",
    "NLJudge",
    "ScoreReport",
    "SessionScore",
    "Tau2Suite",
    "Tau2Task",
    "TauBenchTask",
    "evaluate_tau2",
    "evaluate_taubench",
    "guess_domain",
    "import_tau2",
    "import_taubench",
    "judge_tau2",
    "judge_taubench",
    "load_tau2_suite",
    "make_judge",
    "parse_judgement",
    "render_instructions",
    "replay",
    "replayed_calls",
    "scenario_from_any_task",
    "scenario_from_task",
    "scenario_from_taubench",
    "score_transcripts",
    "tau2_suite",
    "taubench_domain",
    "transcript_text",
]


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
