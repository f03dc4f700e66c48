"""Rerunning real transcripts: their user side replayed against a candidate agent in the
same domain, judged as the originals were, compared pair by pair."""

from ._plan import RerunItem, plan_reruns, verdict_of
from ._report import (
    JudgedBy,
    OriginalSource,
    RerunReport,
    SessionShape,
    Skipped,
    TranscriptRerun,
)
from ._rerun import arerun, rerun
from ._suite import RerunSuite

__all__ = [
    "JudgedBy",
    "OriginalSource",
    "RerunItem",
    "RerunReport",
    "RerunSuite",
    "SessionShape",
    "Skipped",
    "TranscriptRerun",
    "arerun",
    "plan_reruns",
    "rerun",
    "verdict_of",
]
