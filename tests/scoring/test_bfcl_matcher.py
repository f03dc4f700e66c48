"""The BFCL matcher on constructed questions: each semantic rule, and optimal pairing."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from sessionproof.scoring._internal import maximum_matching
from sessionproof.suites.bfcl._internal import (
    BfclQuestion,
    CheckKind,
    check_kind,
    compile_question,
    decoded_calls,
    standardise,
)

SCHEMA: dict[str, Any] = {
    "name": "book",
    "description": "Book a trip.",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string"},
            "nights": {"type": "integer"},
            "budget": {"type": "float"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "prefs": {"type": "dict", "properties": {"view": {"type": "string"}}},
            "late": {"type": "boolean"},
        },
        "required": ["city", "nights"],
    },
}
ANSWER: dict[str, Any] = {
    "city": ["San Francisco", "SF"],
    "nights": [3],
    "budget": [250.0, ""],
    "tags": [["quiet", "sea-view"], ""],
    "prefs": [{"view": ["ocean", ""], "floor": ["high"]}, ""],
    "late": [True],
}


def _rule(category: str = "simple_python", truth: list[dict[str, Any]] | None = None) -> Any:
    question = BfclQuestion(
        id=f"{category}_0",
        category=category,
        messages=[{"role": "user", "content": "book it"}],
        functions=[SCHEMA],
        ground_truth=truth if truth is not None else [{"book": ANSWER}],
    )
    return compile_question(question)


def _judge(args: dict[str, Any], name: str = "book") -> tuple[bool, str | None]:
    verdict = _rule().judge([{name: args}])
    return verdict.valid, verdict.error_type


BASE: dict[str, Any] = {"city": "SF", "nights": 3, "late": True}


def test_standardise_drops_exactly_bfcl_punctuation_and_lowercases() -> None:
    assert standardise("April 1, 2024") == standardise("april1 2024") == "april12024"
    assert standardise("a-b_c/d.e*f^g") == "abcdefg"
    assert standardise("It's") == 'it"s'
    # Other punctuation is kept, so these still differ.
    assert standardise("a:b") != standardise("ab")
    assert standardise("a!") != standardise("a")


def test_minimal_correct_call_is_valid() -> None:
    assert _judge(BASE) == (True, None)


def test_string_values_compare_after_normalisation() -> None:
    assert _judge({**BASE, "city": "san-francisco."})[0]
    assert _judge({**BASE, "city": "Oakland"}) == (False, "value_error:string")


def test_int_is_accepted_for_float_but_not_float_for_int() -> None:
    assert _judge({**BASE, "budget": 250})[0]
    assert _judge({**BASE, "nights": 3.0}) == (False, "type_error:simple")


def test_bool_is_not_an_integer() -> None:
    assert _judge({**BASE, "nights": True}) == (False, "type_error:simple")


def test_empty_string_means_may_be_omitted_and_others_must_be_given() -> None:
    assert _judge({"city": "SF", "nights": 3}) == (
        False,
        "simple_function_checker:missing_optional",
    )
    assert _judge({"nights": 3, "late": True}) == (
        False,
        "simple_function_checker:missing_required",
    )


def test_unknown_parameter_and_wrong_name_are_rejected() -> None:
    assert _judge({**BASE, "pets": 1}) == (False, "simple_function_checker:unexpected_param")
    assert _judge(BASE, name="book_trip") == (False, "simple_function_checker:wrong_func_name")


def test_lists_are_exact_in_order_with_strings_normalised() -> None:
    assert _judge({**BASE, "tags": ["Quiet", "sea view"]})[0]
    assert _judge({**BASE, "tags": ["sea-view", "quiet"]}) == (False, "value_error:list/tuple")
    # BFCL checks item types only against list-valued acceptable values; "" among them
    # (the parameter may be omitted) lets any items through to the value comparison.
    assert _judge({**BASE, "tags": ["quiet", 3]}) == (False, "value_error:list/tuple")
    strict = _rule(truth=[{"book": {**ANSWER, "tags": [["quiet", "sea-view"]]}}])
    assert strict.judge([{"book": {**BASE, "tags": ["quiet", 3]}}]).error_type == (
        "type_error:nested"
    )


def test_nested_dicts_check_keys_and_values() -> None:
    assert _judge({**BASE, "prefs": {"floor": "High"}})[0]
    assert _judge({**BASE, "prefs": {"floor": "high", "view": "Ocean"}})[0]
    assert _judge({**BASE, "prefs": {"view": "ocean"}}) == (False, "value_error:dict_key")
    assert _judge({**BASE, "prefs": {"floor": "low"}}) == (False, "value_error:dict_value")
    assert _judge({**BASE, "prefs": {"floor": "high", "pool": "yes"}}) == (
        False,
        "value_error:dict_key",
    )


def test_malformed_outputs_are_a_format_error() -> None:
    rule = _rule()
    for output in ("book(city='SF')", [["book"]], [{"book": {}, "other": {}}], [{"book": [1]}]):
        verdict = rule.judge(output)
        assert not verdict.valid
        assert verdict.error_type == "ast_decoder:decoder_wrong_output_format"
    assert decoded_calls([{"f": {"a": 1}}]) == [("f", {"a": 1})]


def test_simple_needs_exactly_one_call() -> None:
    verdict = _rule().judge([{"book": BASE}, {"book": BASE}])
    assert verdict.error_type == "simple_function_checker:wrong_count"


def test_category_to_checker() -> None:
    assert check_kind("parallel_multiple") is CheckKind.parallel
    assert check_kind("live_multiple") is CheckKind.multiple
    assert check_kind("irrelevance") is CheckKind.irrelevance
    assert check_kind("live_relevance") is CheckKind.relevance
    assert check_kind("simple_java") is None
    assert check_kind("multi_turn_base") is None


def test_irrelevance_is_valid_only_without_a_call() -> None:
    rule = _rule("irrelevance", truth=[])
    assert rule.judge([]).valid
    assert rule.judge([{}]).valid
    assert rule.judge("I cannot help with that").valid
    verdict = rule.judge([{"book": BASE}])
    assert not verdict.valid and verdict.error_type == "irrelevance_error:decoder_success"


PAR_TRUTH = [
    {"book": {**ANSWER, "city": ["SF", "LA"], "nights": [3]}},
    {"book": {**ANSWER, "city": ["SF"], "nights": [3]}},
]


def test_parallel_optimal_pairing_accepts_what_greedy_rejects() -> None:
    rule = _rule("parallel", truth=PAR_TRUTH)
    la = {**BASE, "city": "LA"}
    sf = dict(BASE)
    # Greedy pairs expected 0 with the SF call and then finds nothing for expected 1.
    verdict = rule.judge([{"book": sf}, {"book": la}])
    assert verdict.valid and not verdict.greedy_valid and verdict.greedy_differs
    assert verdict.assignment == [1, 0]
    same_order = rule.judge([{"book": la}, {"book": sf}])
    assert same_order.valid and same_order.greedy_valid and same_order.assignment == [0, 1]


def test_parallel_rejects_when_no_perfect_pairing_exists() -> None:
    rule = _rule("parallel", truth=PAR_TRUTH)
    la = {**BASE, "city": "LA"}
    verdict = rule.judge([{"book": la}, {"book": la}])
    assert not verdict.valid and not verdict.greedy_valid
    assert verdict.error_type == "parallel_function_checker_no_order:cannot_find_match"
    assert "expected call 1" in (verdict.error or "")
    short = rule.judge([{"book": la}])
    assert short.error_type == "parallel_function_checker_no_order:wrong_count"


def _scipy_matching_size(candidates: list[list[int]], n_right: int) -> int:
    rows = [i for i, row in enumerate(candidates) for _ in row]
    cols = [j for row in candidates for j in row]
    graph = csr_matrix((np.ones(len(cols)), (rows, cols)), shape=(len(candidates), n_right))
    return int((maximum_bipartite_matching(graph, perm_type="column") >= 0).sum())


def test_maximum_matching_matches_scipy_on_random_graphs() -> None:
    rnd = random.Random(7)
    for _ in range(400):
        n_left, n_right = rnd.randint(1, 8), rnd.randint(1, 8)
        density = rnd.random()
        candidates = [[j for j in range(n_right) if rnd.random() < density] for _ in range(n_left)]
        pairing = maximum_matching(candidates, n_right)
        used = [j for j in pairing if j != -1]
        assert len(used) == len(set(used))
        assert all(j == -1 or j in candidates[i] for i, j in enumerate(pairing))
        assert len(used) == _scipy_matching_size(candidates, n_right)


def test_question_without_answer_or_schema_is_flagged() -> None:
    question = BfclQuestion(
        id="simple_python_9", category="simple_python", messages=[], functions=[SCHEMA]
    )
    with pytest.raises(Exception, match="no possible answer"):
        compile_question(question)
    rule = _rule("multiple", truth=[{"missing_fn": {"a": [1]}}])
    verdict = rule.judge([{"missing_fn": {"a": 1}}])
    assert not verdict.valid and verdict.error_type == "schema_error:unknown_function"
