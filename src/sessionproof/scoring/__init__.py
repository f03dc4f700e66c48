"""Scoring: session verdicts, call matching, metrics and statistics."""

from ._summary import METRIC_DEFINITIONS, RunSummary, pass_hat_k, summarize, wilson_interval
from ._verdict import evaluate_session, gold_state_hash, normalise_text, with_termination

__all__ = [
    "METRIC_DEFINITIONS",
    "RunSummary",
    "evaluate_session",
    "gold_state_hash",
    "normalise_text",
    "pass_hat_k",
    "summarize",
    "wilson_interval",
    "with_termination",
]
