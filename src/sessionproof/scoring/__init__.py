"""Scoring: session verdicts, call matching, metrics and statistics."""

from ._summary import METRIC_DEFINITIONS, RunSummary, summarize
from ._verdict import evaluate_session, gold_state_hash, normalise_text, with_termination

__all__ = [
    "METRIC_DEFINITIONS",
    "RunSummary",
    "evaluate_session",
    "gold_state_hash",
    "normalise_text",
    "summarize",
    "with_termination",
]
