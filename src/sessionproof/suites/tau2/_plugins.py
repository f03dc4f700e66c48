"""What this package registers through sessionproof's entry points (see `pyproject.toml`):
the suites `tau2-retail[:SPLIT]` and `tau2-airline[:SPLIT]`, and the judges of tau2 and
tau-bench tasks. Importing this module loads nothing else of the package."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._plugin import SuitePlugin

if TYPE_CHECKING:
    from .._suite import Suite


def _load(name: str) -> Suite:
    from ._suite import tau2_suite

    return tau2_suite(name)


RETAIL_SUITE = SuitePlugin(
    "tau2-bench retail tasks (simulated user; split from split_tasks.json)",
    _load,
    usage="tau2-retail[:SPLIT]",
)
"""`--suite tau2-retail[:SPLIT]`."""

AIRLINE_SUITE = SuitePlugin(
    "tau2-bench airline tasks (simulated user)", _load, usage="tau2-airline[:SPLIT]"
)
"""`--suite tau2-airline[:SPLIT]`."""
