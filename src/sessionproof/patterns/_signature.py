"""The task signature: what a session's task was, read from its trace, for strata when
scenarios do not repeat.

Four coarse features, each bucketed so that sessions of a similar task share a stratum:

- `tools`: the number of distinct tools the session called — 0-1, 2-3, 4+;
- `writes`: the number of write calls — 0, 1, 2+ (hard tasks write more);
- `length`: tool calls — 0-4, 5-9, 10+;
- `intent`: the first user message's content words (lower-cased, at least four letters, not
  in `STOPWORDS`) hashed by a one-permutation MinHash — the smallest CRC-32 of the words,
  modulo `INTENT_BUCKETS` — so requests sharing most of their words tend to share a bucket.

`strata` coarsens the signature until at least half of the sessions fall in strata holding
both a failed and a passed session: it drops `intent`, then `length`, then `tools`, keeping
`writes` to the last (the number of writes is the confounder the write motifs need adjusted
for). When even `writes` alone leaves no stratum with both outcomes there is nothing to
stratify on (None). Which features were kept is returned with the strata.

The features are read from the same trace as the outcome, so they can carry some of the
effect (a failing session may run longer); the buckets are coarse to limit that, and the
control is named `task-signature` wherever it is used.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from ._motif_view import SessionView, tool_role

INTENT_BUCKETS = 3
FEATURES = ("writes", "tools", "length", "intent")
"""Kept in this order of importance: `strata` drops from the end."""
STOPWORDS = frozenset(
    [
        "that",
        "this",
        "with",
        "have",
        "would",
        "like",
        "could",
        "please",
        "want",
        "need",
        "just",
        "also",
        "from",
        "your",
        "there",
        "their",
        "about",
        "what",
        "when",
        "which",
        "will",
        "been",
        "were",
        "they",
        "them",
        "then",
        "than",
        "hello",
        "thanks",
        "thank",
        "some",
        "into",
        "make",
        "sure",
        "help",
        "today",
    ]
)
_WORDS = re.compile(r"[a-z]{4,}")


def _bucket(n: int, edges: tuple[int, ...]) -> int:
    return sum(n >= e for e in edges)


def intent_bucket(text: str, buckets: int = INTENT_BUCKETS) -> int:
    """The MinHash bucket of `text`'s content words (the module docstring); 0 when it has
    none."""
    words = {w for w in _WORDS.findall(text.lower()) if w not in STOPWORDS}
    if not words:
        return 0
    return min(zlib.crc32(w.encode()) for w in words) % buckets


@dataclass(frozen=True)
class Signature:
    """One session's bucketed task features."""

    writes: int
    tools: int
    length: int
    intent: int

    def key(self, features: Sequence[str]) -> str:
        """The stratum name over `features`, e.g. `writes=1|tools=2`."""
        return "|".join(f"{f}={getattr(self, f)}" for f in features)


def signature(view: SessionView, write_tools: frozenset[str] | None = None) -> Signature:
    """The session's task signature (rules: the module docstring)."""
    calls = [c for _, c in view.calls()]
    writes = sum(tool_role(c.name, write_tools) == "write" for c in calls)
    return Signature(
        writes=_bucket(writes, (1, 2)),
        tools=_bucket(len({c.name for c in calls}), (2, 4)),
        length=_bucket(len(calls), (5, 10)),
        intent=intent_bucket(view.first_user_text()),
    )


def _covered(keys: Sequence[str], failed: Sequence[bool]) -> int:
    outcomes: dict[str, set[bool]] = {}
    for k, f in zip(keys, failed, strict=True):
        outcomes.setdefault(k, set()).add(f)
    return sum(len(outcomes[k]) == 2 for k in keys)


def strata(
    signatures: Sequence[Signature], failed: Sequence[bool]
) -> tuple[list[str], tuple[str, ...]] | None:
    """(stratum per session, the features kept), coarsened as the module docstring says;
    None when no stratum has both outcomes."""
    for n in range(len(FEATURES), 0, -1):
        kept = FEATURES[:n]
        keys = [s.key(kept) for s in signatures]
        covered = _covered(keys, failed)
        if covered * 2 >= len(keys) or (n == 1 and covered > 0):
            return keys, kept
    return None
