"""Agreement with BFCL's own checker on its recorded verdicts (tests/fixtures/bfcl/SOURCE.md)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

import sessionproof.suites.bfcl as bfcl
from sessionproof.suites.bfcl._internal import BfclMatcher

DATA = Path(bfcl.__file__).parent / "data"
VERDICTS = Path(__file__).parents[1] / "fixtures" / "bfcl" / "bfcl_ast_checker_verdicts.jsonl"
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")


def _rows() -> dict[str, list[dict[str, Any]]]:
    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with VERDICTS.open() as handle:
        for line in handle:
            row = json.loads(line)
            by_cat[row["category"]].append(row)
    return by_cat


ROWS = _rows()


def _matcher(category: str) -> BfclMatcher:
    name = f"BFCL_v4_{category}.json"
    return BfclMatcher(DATA / name, DATA / "possible_answer" / name)


@pytest.mark.slow
@pytest.mark.parametrize("category", CATEGORIES)
def test_agreement_with_bfcl_is_at_least_99_5_percent(category: str) -> None:
    matcher = _matcher(category)
    rows = ROWS[category]
    assert len(rows) > 1000
    disagree = [
        r
        for r in rows
        if matcher.judge(r["id"], r["model_output_decoded"]).valid != r["bfcl_valid"]
    ]
    assert 1 - len(disagree) / len(rows) >= 0.995, disagree[:5]


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_disagreement_is_a_greedy_miss_that_bfcl_also_reports(category: str) -> None:
    # The greedy decision we report beside each verdict must be BFCL's decision exactly, so
    # the only verdicts that may differ are those where the optimal pairing found a match.
    matcher = _matcher(category)
    for row in ROWS[category]:
        verdict = matcher.judge(row["id"], row["model_output_decoded"])
        assert verdict.greedy_valid == row["bfcl_valid"], (row["id"], row["variant"])
        if verdict.valid != row["bfcl_valid"]:
            assert verdict.valid and verdict.greedy_differs
            assert verdict.assignment is not None
            assert sorted(verdict.assignment) == list(range(len(row["model_output_decoded"])))


@pytest.mark.parametrize("category", CATEGORIES)
def test_error_types_match_bfcl_on_rejected_outputs(category: str) -> None:
    matcher = _matcher(category)
    mismatched = []
    for row in ROWS[category]:
        verdict = matcher.judge(row["id"], row["model_output_decoded"])
        if (
            not row["bfcl_valid"]
            and not verdict.valid
            and verdict.error_type != row["bfcl_error_type"]
        ):
            mismatched.append(
                (row["id"], row["variant"], verdict.error_type, row["bfcl_error_type"])
            )
    assert mismatched == []


def test_parallel_178_reversed_is_the_known_greedy_failure() -> None:
    row = next(
        r
        for r in ROWS["parallel"]
        if r["id"] == "parallel_178" and r["variant"] == "reversed_order"
    )
    verdict = _matcher("parallel").judge(row["id"], row["model_output_decoded"])
    assert row["bfcl_valid"] is False
    assert verdict.valid and not verdict.greedy_valid
    # Expected call 0 accepts Microsoft *or* Apple on 2022-01-01; only the Microsoft call
    # (output 3) leaves the Apple one (output 1) for expected call 2.
    assert verdict.assignment is not None
    assert verdict.assignment[0] == 3 and verdict.assignment[2] == 1
