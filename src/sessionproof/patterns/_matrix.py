"""The miner's array form: sessions as a padded integer matrix, with labels and strata.

Everything that counts works on `TokenMatrix`, never on sessions, so the synthetic generator
and the benchmark feed the miner directly, and a million sessions fit in a few hundred MB.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..errors import ConfigError
from ._alphabet import SessionTokens

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass
class TokenMatrix:
    """N sessions × T positions of token ids; `pad` (= len(vocab)) fills the tail."""

    tokens: npt.NDArray[np.int32]
    failed: BoolArray
    """True for a failed session."""
    strata: IntArray
    """The stratum (scenario) index of each session."""
    vocab: list[str]
    stratum_names: list[str] = field(default_factory=list)
    session_ids: list[str] | None = None
    """Session ids by row (None for synthetic data: the row index names the session)."""
    steps: npt.NDArray[np.int32] | None = None
    """The trace step of each token (same shape as `tokens`), when known."""

    def __post_init__(self) -> None:
        n = self.tokens.shape[0]
        if self.failed.shape != (n,) or self.strata.shape != (n,):
            raise ConfigError("token matrix: labels and strata need one entry per session")

    @property
    def pad(self) -> int:
        """The padding id."""
        return len(self.vocab)

    @property
    def sessions(self) -> int:
        """Number of sessions (rows)."""
        return int(self.tokens.shape[0])

    @property
    def lengths(self) -> IntArray:
        """Number of real tokens in each row."""
        return np.asarray((self.tokens != self.pad).sum(axis=1), dtype=np.int64)

    def session_id(self, row: int) -> str:
        """The id of the session in `row`."""
        return self.session_ids[row] if self.session_ids is not None else f"s{row}"

    def subset(self, rows: BoolArray) -> TokenMatrix:
        """The sessions where `rows` is true (same vocabulary and strata numbering)."""
        ids = self.session_ids
        return TokenMatrix(
            tokens=self.tokens[rows],
            failed=self.failed[rows],
            strata=self.strata[rows],
            vocab=self.vocab,
            stratum_names=self.stratum_names,
            session_ids=[i for i, keep in zip(ids, rows, strict=True) if keep] if ids else None,
            steps=self.steps[rows] if self.steps is not None else None,
        )


def encode(sessions: Sequence[SessionTokens]) -> TokenMatrix:
    """The matrix of judged sessions (those with `success` None are left out by the caller)."""
    vocab_index: dict[str, int] = {}
    for s in sessions:
        for t in s.tokens:
            vocab_index.setdefault(t, len(vocab_index))
    vocab = list(vocab_index)
    width = max((len(s.tokens) for s in sessions), default=1) or 1
    pad = len(vocab)
    tokens = np.full((len(sessions), width), pad, dtype=np.int32)
    steps = np.zeros((len(sessions), width), dtype=np.int32)
    strata_index: dict[str, int] = {}
    strata = np.zeros(len(sessions), dtype=np.int64)
    for row, s in enumerate(sessions):
        tokens[row, : len(s.tokens)] = [vocab_index[t] for t in s.tokens]
        steps[row, : len(s.steps)] = s.steps
        strata[row] = strata_index.setdefault(s.scenario_id, len(strata_index))
    failed = np.array([s.success is False for s in sessions], dtype=np.bool_)
    return TokenMatrix(
        tokens=tokens,
        failed=failed,
        strata=strata,
        vocab=vocab,
        stratum_names=list(strata_index),
        session_ids=[s.session_id for s in sessions],
        steps=steps,
    )
