"""The fuzz harness itself: cases are reproducible from their index, and each outcome class
is told apart (so a green fuzz run means what it says)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from ._cases import KINDS, Case, build_case
from ._jsonout import DupKeys, Raw, dumps
from ._mutate import mutate, unmark
from ._pool import run_cases
from ._run import _silent_drop, run_case
from ._seeds import tau2_seeds
from ._text import mutate_text


@pytest.mark.parametrize("kind", KINDS)
def test_a_case_is_rebuilt_exactly_from_its_index(kind: str) -> None:
    first = [build_case(kind, 7, i) for i in range(5)]
    again = [build_case(kind, 7, i) for i in range(5)]
    assert [(c.argv, c.files, c.mutations, c.hostile_seed) for c in first] == [
        (c.argv, c.files, c.mutations, c.hostile_seed) for c in again
    ]
    other = [build_case(kind, 8, i) for i in range(5)]
    assert [c.describe() for c in other] != [c.describe() for c in first]


def test_mutations_change_the_document_and_say_where() -> None:
    rng = random.Random(3)
    changed = 0
    for _ in range(40):
        (doc, *_) = tau2_seeds()
        before = dumps(doc)
        note = mutate(doc, rng, ("trial",))
        changed += dumps(unmark(doc)) != before
        assert " at " in note or note.startswith(("graft", "no "))
    assert changed >= 30


def test_the_writer_emits_what_no_encoder_would() -> None:
    text = dumps(
        {
            "n": float("nan"),
            "big": 10**30,
            "s": "\ud800",
            "raw": Raw(b"[[[]]]"),
            "dup": DupKeys((("a", 1), ("a", 2))),
        }
    )
    assert text == (
        b'{"n": NaN, "big": 1000000000000000000000000000000, "s": "\\ud800", '
        b'"raw": [[[]]], "dup": {"a": 1, "a": 2}}'
    )
    assert json.loads(text)["dup"] == {"a": 2}


def test_text_mutations_are_seeded() -> None:
    data = b'{"a": 1}\n{"b": 2}\n'
    assert mutate_text(data, random.Random(5)) == mutate_text(data, random.Random(5))


def _case(tmp: dict[str, bytes], argv: list[str]) -> Case:
    return Case(kind="tau2", index=0, argv=argv, files=tmp)


def test_outcome_classes_are_told_apart() -> None:
    (seed, *_) = tau2_seeds()
    good = json.dumps(seed).encode()
    broken: dict[str, Any] = json.loads(good)
    broken["simulations"][1]["messages"] = "not a list"
    store = ["--store", "s.duckdb"]
    accepted = run_case(_case({"r.json": good}, ["score", "r.json", *store]))
    partial = run_case(_case({"r.json": json.dumps(broken).encode()}, ["score", "r.json", *store]))
    clean = run_case(_case({}, ["score", "missing.json", *store]))
    usage = run_case(_case({}, ["score", "x.json", "--no-such-flag"]))
    assert (accepted.outcome, partial.outcome, clean.outcome, usage.outcome) == (
        "accepted",
        "partial",
        "clean_error",
        "clean_error",
    )
    assert partial.note is None  # the skipped record was named
    assert clean.message and clean.message.startswith("InputFileError")


def test_an_uncaught_exception_is_a_traceback_with_our_innermost_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sessionproof.runs._score as score_use_case

    def boom(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("planted")

    # The library's score use case (the CLI calls it) raises what no code expects.
    monkeypatch.setattr(score_use_case, "score_transcripts", boom)
    (seed, *_) = tau2_seeds()
    result = run_case(
        _case({"r.json": json.dumps(seed).encode()}, ["score", "r.json", "--store", "s.duckdb"])
    )
    assert result.outcome == "traceback"
    assert result.signature.startswith("ZeroDivisionError at runs/_score.py:")
    assert result.message == "planted"


def test_cases_write_only_in_their_own_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for kind in ("tau2", "suite", "bfcl-outputs"):
        run_case(build_case(kind, 0, 1))
    assert list(tmp_path.iterdir()) == []


def test_the_pool_reports_hangs_and_dead_workers() -> None:
    (hang,) = run_cases("selftest-hang", 0, [0], timeout=1.0)
    (died,) = run_cases("selftest-die", 0, [0], timeout=30.0)
    assert (hang.outcome, hang.signature) == ("hang", "over the 1 s limit")
    assert (died.outcome, died.signature) == ("traceback", "worker died (exit code 3)")
    after = list(run_cases("bfcl-answers", 0, [0, 1], timeout=30.0))
    assert [r.index for r in after] == [0, 1]


def test_an_unknown_anthropic_block_accepted_silently_is_noted() -> None:
    line = {"messages": [{"role": "user", "content": [{"type": "image_v9", "data": "x"}]}]}
    case = Case(kind="anthropic", index=0, argv=[], files={"log.jsonl": json.dumps(line).encode()})
    assert _silent_drop(case, stderr="") is not None
    assert _silent_drop(case, stderr="warning: messages.0.content.0: unknown block") is None
    odd = {"messages": [{"role": "user", "content": [{"type": {"not": "a string"}}]}]}
    case.files["log.jsonl"] = json.dumps(odd).encode()
    assert _silent_drop(case, stderr="") is not None
    known = {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    case.files["log.jsonl"] = json.dumps(known).encode()
    assert _silent_drop(case, stderr="") is None
