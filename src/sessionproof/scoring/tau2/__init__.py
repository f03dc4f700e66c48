"""tau2-bench and tau-bench verdicts, and offline scoring of transcript files."""

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

__all__ = [
    "DEFAULT_GOLD_CACHE",
    "AgentJudge",
    "Agreement",
    "Disagreement",
    "GoldCache",
    "GoldState",
    "Judgement",
    "NLJudge",
    "ScoreReport",
    "SessionScore",
    "evaluate_tau2",
    "evaluate_taubench",
    "judge_tau2",
    "judge_taubench",
    "make_judge",
    "normalise",
    "parse_judgement",
    "replay",
    "replayed_calls",
    "score_transcripts",
    "transcript_text",
]
