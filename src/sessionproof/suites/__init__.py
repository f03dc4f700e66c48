"""Suites: named sets of scenarios, built-in or from a user's file.

The names below are imported on first use (PEP 562): a benchmark's domain lives in a
sub-package here (`suites.tau2.retail`), and building it must not load the suite machinery,
which pulls in scoring.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._files import load_suite_file, parse_scenarios
    from ._registry import BUILTIN_SUITES, load_suite
    from ._suite import Suite

_MODULE_OF: dict[str, str] = {
    "BUILTIN_SUITES": "._registry",
    "Suite": "._suite",
    "load_suite": "._registry",
    "load_suite_file": "._files",
    "parse_scenarios": "._files",
}
"""Each public name -> the submodule that defines it."""

__all__ = ["BUILTIN_SUITES", "Suite", "load_suite", "load_suite_file", "parse_scenarios"]


def __getattr__(name: str) -> Any:
    """A public name, imported from its submodule on first use (module attribute hook)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later look-ups skip the hook
    return value


def __dir__() -> list[str]:
    """The module's names, the lazy ones included."""
    return sorted({*globals(), *_MODULE_OF})
