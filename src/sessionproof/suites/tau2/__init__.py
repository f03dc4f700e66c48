"""tau2-bench and tau-bench: their domains, tasks, transcript formats and verdicts.

- Domains `retail`, `airline` (tau2) and `taubench-retail`, `taubench-airline` (tau-bench's
  variants), registered in `sessionproof.domains` by name and imported on first use.
- Suites `tau2-retail[:SPLIT]`, `tau2-airline[:SPLIT]` (`tau2_suite`).
- Transcript formats `tau2` and `tau-bench` (`import_tau2`, `import_taubench`), registered in
  `sessionproof.importers` by name.
- Verdicts (`evaluate_tau2`, `judge_tau2`...) and offline scoring (`score_transcripts`).
"""

from ._evaluate import (
    Judgement,
    evaluate_tau2,
    evaluate_taubench,
    judge_tau2,
    judge_taubench,
    normalise,
)
from ._judge import AgentJudge, NLJudge, make_judge, parse_judgement, transcript_text
from ._replay import DEFAULT_GOLD_CACHE, GoldCache, GoldState, replay, replayed_calls
from ._score import Agreement, Disagreement, ScoreReport, SessionScore, score_transcripts
from ._suite import DOMAINS, Tau2Suite, load_tau2_suite, tau2_suite
from ._tau2 import import_tau2
from ._tau2task import Tau2Task, render_instructions, scenario_from_task
from ._taubench import guess_domain, import_taubench, taubench_domain
from ._taubench_task import TauBenchTask, scenario_from_any_task, scenario_from_taubench

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
    "normalise",
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
