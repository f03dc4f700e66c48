"""BFCL: compatible call matching, the single-call suites and their questions.

`score_bfcl_file` judges decoded model outputs with the semantics of BFCL's AST checker
(parallel calls paired optimally, BFCL's greedy decision reported beside it);
`load_bfcl_suite` turns the shipped BFCL v4 questions into one-turn scenarios, and
`make_bfcl_suite` (`--suite bfcl:CATEGORY`, registered in `sessionproof.suites` by name) runs
them; `expected_calls` gives the session call metrics BFCL's own rules for a question.

The multi-turn categories (`bfcl:multi_turn_base`, `_miss_func`, `_miss_param`,
`_long_context`) run BFCL's own API classes from the installed bfcl-eval (`_mt_*` modules):
sessions judged with BFCL's multi-turn checker semantics, one verdict per turn, and
`score_bfcl_file` judges multi-turn result files the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

if TYPE_CHECKING:
    from ._bfcl import BfclSuite, make_bfcl_suite
    from ._data import (
        SUITE_CATEGORIES,
        BfclQuestion,
        category_of,
        compile_question,
        load_questions,
        packaged_questions,
    )
    from ._domain import BFCL_POLICY, BfclDomainSpec, BfclState, bfcl_domain
    from ._expected import expected_calls
    from ._match import (
        BfclVerdict,
        CheckKind,
        QuestionRule,
        check_kind,
        decoded_calls,
    )
    from ._report import BfclReport, bfcl_summary
    from ._rules import BFCL_TYPES, CallRule, ParamRule, standardise
    from ._schema import PYTHON_HINT, parameters_schema, safe_tool_names, to_json_schema
    from ._score import INPUT_ERROR, BfclMatcher, BfclScore, CategoryScore, score_bfcl_file
    from ._suite import (
        evaluate_bfcl,
        judge_calls,
        load_bfcl_suite,
        oracle_arguments,
        question_scenario,
    )

_MODULE_OF: dict[str, str] = {
    "BfclSuite": "._bfcl",
    "make_bfcl_suite": "._bfcl",
    "SUITE_CATEGORIES": "._data",
    "BfclQuestion": "._data",
    "category_of": "._data",
    "compile_question": "._data",
    "load_questions": "._data",
    "packaged_questions": "._data",
    "BFCL_POLICY": "._domain",
    "BfclDomainSpec": "._domain",
    "BfclState": "._domain",
    "bfcl_domain": "._domain",
    "expected_calls": "._expected",
    "BfclVerdict": "._match",
    "CheckKind": "._match",
    "QuestionRule": "._match",
    "check_kind": "._match",
    "decoded_calls": "._match",
    "BfclReport": "._report",
    "bfcl_summary": "._report",
    "BFCL_TYPES": "._rules",
    "CallRule": "._rules",
    "ParamRule": "._rules",
    "standardise": "._rules",
    "PYTHON_HINT": "._schema",
    "parameters_schema": "._schema",
    "safe_tool_names": "._schema",
    "to_json_schema": "._schema",
    "INPUT_ERROR": "._score",
    "BfclMatcher": "._score",
    "BfclScore": "._score",
    "CategoryScore": "._score",
    "score_bfcl_file": "._score",
    "evaluate_bfcl": "._suite",
    "judge_calls": "._suite",
    "load_bfcl_suite": "._suite",
    "oracle_arguments": "._suite",
    "question_scenario": "._suite",
}
"""Each public name -> the submodule that defines it (imported on first use, so the
suite plug-in object in `_plugins` loads nothing else of the package)."""

__all__ = [
    "BFCL_POLICY",
    "BFCL_TYPES",
    "INPUT_ERROR",
    "PYTHON_HINT",
    "SUITE_CATEGORIES",
    "BfclDomainSpec",
    "BfclMatcher",
    "BfclQuestion",
    "BfclReport",
    "BfclScore",
    "BfclState",
    "BfclSuite",
    "BfclVerdict",
    "CallRule",
    "CategoryScore",
    "CheckKind",
    "ParamRule",
    "QuestionRule",
    "bfcl_domain",
    "bfcl_summary",
    "category_of",
    "check_kind",
    "compile_question",
    "decoded_calls",
    "evaluate_bfcl",
    "expected_calls",
    "judge_calls",
    "load_bfcl_suite",
    "load_questions",
    "make_bfcl_suite",
    "oracle_arguments",
    "packaged_questions",
    "parameters_schema",
    "question_scenario",
    "safe_tool_names",
    "score_bfcl_file",
    "standardise",
    "to_json_schema",
]

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
