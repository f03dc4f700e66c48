"""Suites: named sets of scenarios, built-in or from a user's file."""

from ._files import load_suite_file, parse_scenarios
from ._registry import BUILTIN_SUITES, load_suite
from ._suite import Suite

__all__ = ["BUILTIN_SUITES", "Suite", "load_suite", "load_suite_file", "parse_scenarios"]
