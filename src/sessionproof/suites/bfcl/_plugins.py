"""What this package registers through sessionproof's entry points (see `pyproject.toml`):
the `bfcl:CATEGORY` suites and the scorer of BFCL model-output files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._plugin import SuitePlugin

if TYPE_CHECKING:
    from .._suite import Suite


def _load(name: str) -> Suite:
    from ._bfcl import make_bfcl_suite

    return make_bfcl_suite(name)


SUITE = SuitePlugin(
    "BFCL v4 single-call questions: simple_python, multiple, parallel, parallel_multiple, "
    "irrelevance; multi-turn entries (BFCL's classes, from bfcl-eval): multi_turn_base, "
    "multi_turn_miss_func, multi_turn_miss_param, multi_turn_long_context",
    _load,
    usage="bfcl:CATEGORY",
)
"""`--suite bfcl:CATEGORY`."""
