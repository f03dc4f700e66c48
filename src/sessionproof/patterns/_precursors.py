"""Precursors: what happened right before each failed session broke.

For each failed session with a first divergence (`scoring.session_survival`), the tokens up to
and including the divergence's step are cut, and the contiguous n-grams (1..L tokens) that
*end* there are counted, once per session. A precursor is reported with the failures it
precedes, the divergence classes there, and how many passed sessions hold the same n-gram
anywhere (its base rate). An n-gram is dropped when a longer one ending the same way precedes
as many failures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ._alphabet import SessionTokens


class Precursor(BaseModel):
    """An n-gram that ends at the first divergence of failed sessions."""

    model_config = ConfigDict(extra="forbid")

    pattern: str
    failures: int
    share: float
    """Of the failed sessions with a divergence."""
    pass_support: int
    """Passed sessions holding the same contiguous n-gram anywhere."""
    divergence_classes: dict[str, int] = Field(default_factory=dict)
    examples: list[str] = Field(default_factory=list)


def _grams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def precursors(
    failed: Sequence[SessionTokens],
    divergences: Mapping[str, tuple[int, str]],
    passed: Sequence[SessionTokens],
    max_len: int = 3,
    top: int = 10,
) -> list[Precursor]:
    """Precursor n-grams of `failed` sessions at their divergence (session id → step, class)."""
    counts: Counter[tuple[str, ...]] = Counter()
    classes: dict[tuple[str, ...], Counter[str]] = {}
    examples: dict[tuple[str, ...], list[str]] = {}
    judged = 0
    for s in failed:
        if s.session_id not in divergences:
            continue
        step, kind = divergences[s.session_id]
        end = max((i for i, st in enumerate(s.steps) if st <= step), default=-1)
        if end < 0:
            continue
        judged += 1
        window = s.tokens[: end + 1]
        for n in range(1, max_len + 1):
            if n > len(window):
                break
            gram = tuple(window[-n:])
            counts[gram] += 1
            classes.setdefault(gram, Counter())[kind] += 1
            examples.setdefault(gram, []).append(s.session_id)
    if not judged:
        return []
    wanted = set(counts)
    pass_grams: Counter[tuple[str, ...]] = Counter()
    for s in passed:
        for n in range(1, max_len + 1):
            pass_grams.update(g for g in _grams(s.tokens, n) if g in wanted)
    # Longer first on ties: the longer n-gram says more about the same failures.
    ranked = sorted(counts, key=lambda g: (-counts[g], -len(g)))
    out: list[Precursor] = []
    for gram in ranked:
        longer = [g for g in counts if len(g) > len(gram) and g[-len(gram) :] == gram]
        if any(counts[g] == counts[gram] for g in longer):
            continue
        out.append(
            Precursor(
                pattern=" → ".join(gram),
                failures=counts[gram],
                share=counts[gram] / judged,
                pass_support=pass_grams[gram],
                divergence_classes=dict(classes[gram].most_common()),
                examples=examples[gram][:3],
            )
        )
        if len(out) >= top:
            break
    return out
