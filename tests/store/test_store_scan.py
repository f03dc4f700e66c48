"""The one-pass test of a batch for something to redact flags exactly what `might_hold` does."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sessionproof._secrets import SecretMatcher
from sessionproof.store import _scan
from sessionproof.store._scrub import Scrubber, marker_substrings

SECRET = "Zq8-scan-secret-value"
_NOISE = (
    '{"role":"user","content":"',
    "where is order #W2378156? ",
    "caf\u00e9 \u2014 na\u00efve \U0001f600 ",
    '"},{"call_id":"toolu_01","name":"get_order_details","output":"',
    "Mechanical Keyboard, 104 keys, ",
    "tasks-and-risks ",
    "s k - ",
)
_TRICKY = (
    "\u212a",  # Kelvin sign: lower-cases to "k"
    "\u0130",  # dotted capital I: lower-cases to "i" + a combining dot
    "\u017f",  # long s: case-folds to "s", lower-cases to itself
    "\u212aEY=",
    "api_\u212aey",
    "SIG=",
)


def _texts(rng: random.Random, secret_forms: tuple[str, ...]) -> list[str]:
    pool = [*_NOISE, *_TRICKY, *secret_forms]
    markers = marker_substrings()
    out = []
    for _ in range(400):
        parts = [rng.choice(_NOISE) for _ in range(rng.randint(1, 6))]
        if rng.random() < 0.3:
            parts.insert(rng.randint(0, len(parts)), rng.choice(pool))
        if rng.random() < 0.2:
            marker = rng.choice(markers)
            parts.insert(rng.randint(0, len(parts)), rng.choice((marker, marker.upper())))
        out.append("".join(parts))
    return out


@pytest.mark.parametrize("one_pass", [True, False])
@pytest.mark.parametrize("secret", [None, SECRET, "s\u00e9cret-non-ascii-value"])
def test_flags_exactly_the_texts_might_hold_flags(
    one_pass: bool, secret: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_scan, "_RE2_MIN_CHARS", 0 if one_pass else 10**12)
    monkeypatch.setattr(_scan, "_RE2_OPEN_MIN_CHARS", 0)
    matcher = SecretMatcher.build(frozenset({secret} if secret else set()))
    scrubber = Scrubber(matcher)
    forms = (secret, secret.upper(), secret.swapcase()) if secret else ()
    texts = _texts(random.Random(13), forms)
    expected = [i for i, text in enumerate(texts) if scrubber.might_hold(text)]
    assert 40 < len(expected) < len(texts) - 40  # both answers occur
    assert _scan.may_hold(scrubber, texts) == expected


def test_the_one_pass_pattern_flags_the_characters_python_lower_cases_to_ascii() -> None:
    # Without them in the pattern a Kelvin-sign "api_Key=" would pass as clean.
    scrubber = Scrubber(SecretMatcher.build(frozenset()))
    pattern = _scan._pattern(scrubber.needles)
    texts = ["kiwi ink", "api_\u212aey=v", "\u0130", "plain"]
    assert _scan._flag_re2(texts, pattern) == [1, 2]


def _scan_in_child(queue: Any) -> None:
    # No DuckDB call here: it would hang in a child forked after the parent's scans.
    scrubber = Scrubber(SecretMatcher.build(frozenset()))
    queue.put((_scan._flag_re2(["x"], "x"), _scan.may_hold(scrubber, ["x" * 300_000, "token=1"])))


def test_a_forked_child_keeps_to_the_substring_tests() -> None:
    import multiprocessing

    pattern = _scan._pattern(())
    assert _scan._flag_re2(["token=1"], pattern) == [0]  # the parent's scans have started
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_scan_in_child, args=(queue,))
    child.start()
    assert queue.get(timeout=60) == (None, [1])
    child.join(timeout=60)
    assert child.exitcode == 0


def test_a_text_duckdb_cannot_take_falls_back_to_the_exact_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A lone surrogate has no UTF-8 form: DuckDB refuses the text, the scan fails, and
    # every text gets the exact test instead.
    monkeypatch.setattr(_scan, "_RE2_MIN_CHARS", 0)
    monkeypatch.setattr(_scan, "_RE2_OPEN_MIN_CHARS", 0)
    scrubber = Scrubber(SecretMatcher.build(frozenset()))
    texts = ["plain \ud800 text", "token=abc", "nothing here"]
    assert _scan.may_hold(scrubber, texts) == [1]


def test_a_small_batch_opens_no_duckdb_for_the_scan_and_a_megabyte_scanned_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Opening the in-memory DuckDB costs more than the substring tests of a small batch (a
    # score of a few dozen sessions); once the process has scanned a megabyte (a run's
    # batches, or one large batch) it is opened and used for every batch past the usual
    # threshold.
    monkeypatch.setattr(_scan, "_engine", None)
    monkeypatch.setattr(_scan, "_scanned", 0)
    scrubber = Scrubber(SecretMatcher.build(frozenset()))
    texts = _texts(random.Random(5), ())
    n = len(texts)
    expected = [i for i, text in enumerate(texts) if scrubber.might_hold(text)]

    def flags(copies: int) -> list[int]:
        return [i + k * n for k in range(copies) for i in expected]

    copies = 300_000 // sum(map(len, texts)) + 1
    small = texts * copies  # past _RE2_MIN_CHARS only
    assert _scan._RE2_MIN_CHARS <= sum(map(len, small)) < _scan._RE2_OPEN_MIN_CHARS / 3
    assert _scan.may_hold(scrubber, small) == flags(copies)
    assert _scan._engine is None
    assert _scan.may_hold(scrubber, small) == flags(copies)
    assert _scan._engine is None  # 0.6 MB scanned
    while _scan._scanned + sum(map(len, small)) < _scan._RE2_OPEN_MIN_CHARS:
        assert _scan.may_hold(scrubber, small) == flags(copies)
    assert _scan._engine is None
    assert _scan.may_hold(scrubber, small) == flags(copies)  # past 1 MB in all: opened
    assert _scan._engine is not None

    monkeypatch.setattr(_scan, "_engine", None)
    monkeypatch.setattr(_scan, "_scanned", 0)
    large = texts * (_scan._RE2_OPEN_MIN_CHARS // sum(map(len, texts)) + 1)
    assert _scan.may_hold(scrubber, large) == flags(len(large) // n)
    assert _scan._engine is not None
