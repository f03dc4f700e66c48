"""BFCL-compatible call matching and BFCL single-call suites.

`score_bfcl_file` judges decoded model outputs with the semantics of BFCL's AST checker
(parallel calls paired optimally, BFCL's greedy decision reported beside it);
`load_bfcl_suite` turns the shipped BFCL v4 questions into one-turn scenarios.
"""

from ._data import (
    SUITE_CATEGORIES,
    BfclQuestion,
    category_of,
    compile_question,
    load_questions,
    packaged_questions,
)
from ._match import (
    BfclVerdict,
    CheckKind,
    QuestionRule,
    check_kind,
    decoded_calls,
    maximum_matching,
)
from ._rules import BFCL_TYPES, CallRule, ParamRule, standardise
from ._score import INPUT_ERROR, BfclMatcher, BfclScore, CategoryScore, score_bfcl_file

__all__ = [
    "BFCL_TYPES",
    "INPUT_ERROR",
    "SUITE_CATEGORIES",
    "BfclMatcher",
    "BfclQuestion",
    "BfclScore",
    "BfclVerdict",
    "CallRule",
    "CategoryScore",
    "CheckKind",
    "ParamRule",
    "QuestionRule",
    "category_of",
    "check_kind",
    "compile_question",
    "decoded_calls",
    "load_questions",
    "maximum_matching",
    "packaged_questions",
    "score_bfcl_file",
    "standardise",
]
