"""What the banking package registers (see `pyproject.toml`): the suite `tau2-banking`, the
domain `banking_knowledge` and the judge `tau2-banking`. Importing this loads nothing else."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..._plugin import SuitePlugin

if TYPE_CHECKING:
    from ..._suite import Suite


def _load(name: str) -> Suite:
    from ._suite import banking_suite, left_out_note

    suite = banking_suite(name)
    if suite.left_out:
        sys.stderr.write(left_out_note(suite.left_out) + "\n")
    return suite


SUITE = SuitePlugin(
    "tau2-bench banking_knowledge tasks (knowledge-base retrieval: bm25, grep, bm25_grep, "
    "no_knowledge)",
    _load,
    usage="tau2-banking[:RETRIEVAL]",
)
"""`--suite tau2-banking[:RETRIEVAL]`."""
