"""Rerunning real transcripts: their user side replayed against a candidate agent in the
same domain, judged as the originals were, compared pair by pair."""

__all__: list[str] = []
