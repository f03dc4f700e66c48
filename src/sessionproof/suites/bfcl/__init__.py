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

from ..._lazy import lazy_exports

_MODULE_OF: dict[str, str] = {}
"""Each public name -> the submodule that defines it (imported on first use, so the
suite plug-in object in `_plugins` loads nothing else of the package)."""

__all__: list[str] = []

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
