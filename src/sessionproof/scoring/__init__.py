"""Scoring: session verdicts, call matching, metrics and statistics."""

from ._arms import ARM_DEFINITIONS, ArmReport, ArmsReport, PairedRow, compare_arms
from ._summary import METRIC_DEFINITIONS, RunSummary, summarize
from ._verdict import evaluate_session, gold_state_hash, normalise_text, with_termination

__all__ = [
    "ARM_DEFINITIONS",
    "METRIC_DEFINITIONS",
    "ArmReport",
    "ArmsReport",
    "PairedRow",
    "RunSummary",
    "compare_arms",
    "evaluate_session",
    "gold_state_hash",
    "normalise_text",
    "summarize",
    "with_termination",
]
