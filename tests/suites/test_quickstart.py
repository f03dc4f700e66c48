"""The `quickstart` suite: the README's first command, a few well-chosen demo scenarios."""

from __future__ import annotations

from sessionproof import runs
from sessionproof.suites import load_suite
from sessionproof.suites._internal import BUILTIN_SUITES
from sessionproof.suites._registry import QUICKSTART_SCENARIOS


def test_quickstart_is_a_listed_subset_of_the_demo_suite() -> None:
    demo = {s.id: s for s in load_suite("demo").scenarios}
    quick = load_suite("quickstart")
    assert "quickstart" in BUILTIN_SUITES
    assert quick.name == "quickstart"
    assert [s.id for s in quick.scenarios] == list(QUICKSTART_SCENARIOS)
    assert 0 < len(quick.scenarios) < len(demo)
    for s in quick.scenarios:
        assert s == demo[s.id]  # the same scenarios, unchanged, so scores compare


def test_quickstart_spans_info_writes_and_policy() -> None:
    tags = {t for s in load_suite("quickstart").scenarios for t in s.tags}
    assert {"info", "write", "policy"} <= tags


def test_quickstart_runs_and_scores_with_the_oracle() -> None:
    report = runs.run(runs.RunConfig(suite="quickstart", model="oracle"))
    sessions = list(report.sessions)
    assert len(sessions) == len(QUICKSTART_SCENARIOS)
    assert all(s.outcome is not None and s.outcome.success for s in sessions)


def test_the_full_demo_suite_stays_the_default() -> None:
    assert runs.RunConfig().suite == "demo"
    assert len(load_suite("demo").scenarios) == 16
