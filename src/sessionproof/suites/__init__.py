"""Suites: named sets of scenarios, built-in or from a user's file.

The names below are imported on first use (PEP 562): a benchmark's domain lives in a
sub-package here (`suites.tau2.retail`), and building it must not load the suite machinery,
which pulls in scoring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._files import load_suite_dir, load_suite_file, parse_scenarios
    from ._judges import Judge, Judgement, register_judge
    from ._nl_judge import NLJudge
    from ._plugin import SuitePlugin, register_suite
    from ._project import Project, open_project
    from ._registry import load_suite
    from ._replay import replay, replayed_calls
    from ._scorers import OutputReport, ScoreOptions, Scorer
    from ._suite import FileSuite, Suite

_MODULE_OF: dict[str, str] = {
    "FileSuite": "._suite",
    "Judge": "._judges",
    "Judgement": "._judges",
    "NLJudge": "._nl_judge",
    "OutputReport": "._scorers",
    "Project": "._project",
    "ScoreOptions": "._scorers",
    "Scorer": "._scorers",
    "Suite": "._suite",
    "SuitePlugin": "._plugin",
    "load_suite": "._registry",
    "load_suite_dir": "._files",
    "load_suite_file": "._files",
    "open_project": "._project",
    "parse_scenarios": "._files",
    "register_judge": "._judges",
    "register_suite": "._plugin",
    "replay": "._replay",
    "replayed_calls": "._replay",
}
"""Each public name -> the submodule that defines it."""

__all__ = [
    "FileSuite",
    "Judge",
    "Judgement",
    "NLJudge",
    "OutputReport",
    "Project",
    "ScoreOptions",
    "Scorer",
    "Suite",
    "SuitePlugin",
    "load_suite",
    "load_suite_dir",
    "load_suite_file",
    "open_project",
    "parse_scenarios",
    "register_judge",
    "register_suite",
    "replay",
    "replayed_calls",
]


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
