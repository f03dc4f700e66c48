"""Suites: named sets of scenarios, built-in or from a user's file.

The names below are imported on first use (PEP 562): a benchmark's domain lives in a
sub-package here (`suites.tau2.retail`), and building it must not load the suite machinery,
which pulls in scoring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._domains import DomainRef, McpRef, resolve_reference
    from ._files import load_suite_dir, load_suite_file, parse_scenarios
    from ._judges import Judge, Judgement, judge_named, judge_of, register_judge
    from ._nl_judge import AgentJudge, NLJudge, make_judge
    from ._plugin import SuitePlugin, register_suite
    from ._project import RECORDED_DOMAIN, Project, attach_scenarios, open_project
    from ._readings import READINGS, GoldPrefixSuite, gold_prefix_suite, has_per_turn_criteria
    from ._registry import BUILTIN_SUITES, is_builtin_suite, load_suite, recorded_suite
    from ._replay import replay, replayed_calls
    from ._score import score_transcripts
    from ._score_report import ScoreReport
    from ._scorers import OutputReport, ScoreOptions, Scorer, score_outputs, scorer_names
    from ._suite import FileSuite, Suite

_MODULE_OF: dict[str, str] = {
    "BUILTIN_SUITES": "._registry",
    "DomainRef": "._domains",
    "FileSuite": "._suite",
    "GoldPrefixSuite": "._readings",
    "READINGS": "._readings",
    "gold_prefix_suite": "._readings",
    "has_per_turn_criteria": "._readings",
    "McpRef": "._domains",
    "Project": "._project",
    "RECORDED_DOMAIN": "._project",
    "attach_scenarios": "._project",
    "open_project": "._project",
    "Suite": "._suite",
    "is_builtin_suite": "._registry",
    "load_suite": "._registry",
    "recorded_suite": "._registry",
    "load_suite_dir": "._files",
    "load_suite_file": "._files",
    "parse_scenarios": "._files",
    "resolve_reference": "._domains",
    "Judge": "._judges",
    "Judgement": "._judges",
    "judge_named": "._judges",
    "judge_of": "._judges",
    "register_judge": "._judges",
    "AgentJudge": "._nl_judge",
    "NLJudge": "._nl_judge",
    "make_judge": "._nl_judge",
    "SuitePlugin": "._plugin",
    "register_suite": "._plugin",
    "replay": "._replay",
    "replayed_calls": "._replay",
    "score_transcripts": "._score",
    "ScoreReport": "._score_report",
    "OutputReport": "._scorers",
    "ScoreOptions": "._scorers",
    "Scorer": "._scorers",
    "score_outputs": "._scorers",
    "scorer_names": "._scorers",
}
"""Each public name -> the submodule that defines it."""

__all__ = [
    "BUILTIN_SUITES",
    "READINGS",
    "RECORDED_DOMAIN",
    "AgentJudge",
    "DomainRef",
    "FileSuite",
    "GoldPrefixSuite",
    "Judge",
    "Judgement",
    "McpRef",
    "NLJudge",
    "OutputReport",
    "Project",
    "ScoreOptions",
    "ScoreReport",
    "Scorer",
    "Suite",
    "SuitePlugin",
    "attach_scenarios",
    "gold_prefix_suite",
    "has_per_turn_criteria",
    "is_builtin_suite",
    "judge_named",
    "judge_of",
    "load_suite",
    "load_suite_dir",
    "load_suite_file",
    "make_judge",
    "open_project",
    "parse_scenarios",
    "recorded_suite",
    "register_judge",
    "register_suite",
    "replay",
    "replayed_calls",
    "resolve_reference",
    "score_outputs",
    "score_transcripts",
    "scorer_names",
]


__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
