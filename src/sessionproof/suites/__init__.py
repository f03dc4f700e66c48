"""Suites: named sets of scenarios, built-in or from a user's file."""

from ._domains import DomainRef, McpRef, resolve_reference
from ._files import load_suite_dir, load_suite_file, parse_scenarios
from ._registry import BUILTIN_SUITES, load_suite
from ._suite import FileSuite, Suite

__all__ = [
    "BUILTIN_SUITES",
    "DomainRef",
    "FileSuite",
    "McpRef",
    "Suite",
    "load_suite",
    "load_suite_dir",
    "load_suite_file",
    "parse_scenarios",
    "resolve_reference",
]
