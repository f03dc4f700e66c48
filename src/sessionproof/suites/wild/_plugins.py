"""What this package registers through sessionproof's entry points (see `pyproject.toml`):
the `wild` suite."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._plugin import SuitePlugin

if TYPE_CHECKING:
    from .._suite import Suite


def _load(name: str) -> Suite:
    from ._suite import make_wild_suite

    return make_wild_suite(name)


SUITE = SuitePlugin(
    "WildToolBench-style sessions of four tasks over the demo world (scripted users; "
    "breakdowns by task position, type, intent and transitions)",
    _load,
)
"""`--suite wild`."""
