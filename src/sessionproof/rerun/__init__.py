"""Rerunning real transcripts: their user side replayed against a candidate agent in the
same domain, judged as the originals were, compared pair by pair."""

from ._plan import RerunItem
from ._report import RerunReport

__all__ = [
    "RerunItem",
    "RerunReport",
]
