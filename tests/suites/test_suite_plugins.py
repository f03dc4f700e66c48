"""Suites and domains come from entry points: a package adds one with no line of ours changed."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof._plugins import forget_entry_points
from sessionproof.domains import _registry, domain_names, get_domain
from sessionproof.suites import load_suite
from sessionproof.suites._internal import BUILTIN_SUITES, is_builtin_suite, recorded_suite
from sessionproof.suites._plugin import SUITES, suite_help

PROBE = """
from sessionproof.domains.demo._internal import spec as demo_spec
from sessionproof.suites import Suite
from sessionproof.suites._plugin import SuitePlugin


def _load(name):
    from sessionproof.domains.demo._internal import load_scenarios

    return Suite(name, load_scenarios()[:2])


SUITE = SuitePlugin("two probe scenarios", _load, usage="probe[:PART]")


def probe_domain():
    spec = demo_spec()
    spec.name = "probe-world"
    return spec
"""


@pytest.fixture
def probe_dist(tmp_path: Path) -> Iterator[Path]:
    info = tmp_path / "probe_suites-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: probe-suites\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[sessionproof.suites]\nprobe = probe_suites:SUITE\n\n"
        "[sessionproof.domains]\nprobe-world = probe_suites:probe_domain\n"
    )
    (tmp_path / "probe_suites.py").write_text(PROBE)
    sys.path.insert(0, str(tmp_path))
    forget_entry_points()
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("probe_suites", None)
    SUITES.remove("probe")
    _registry._REGISTERED.pop("probe-world", None)  # the domain built from the entry point
    forget_entry_points()


def test_an_installed_package_adds_a_suite_and_a_domain(probe_dist: Path) -> None:
    suite = load_suite("probe:smoke")
    assert suite.name == "probe:smoke"
    assert len(suite.scenarios) == 2
    # `run --help` lists it, marked as another package's.
    assert suite_help()["probe[:PART]"] == "two probe scenarios (from probe-suites)"
    assert "probe-world" in domain_names()
    assert "probe-world" in domain_names(installed=True)
    assert get_domain("probe-world").name == "probe-world"


def test_a_third_party_suite_is_not_built_in(probe_dist: Path) -> None:
    # A stored run or a trace naming it never loads its code unless the user ran it.
    assert not is_builtin_suite("probe:smoke")
    assert recorded_suite("score", "probe:smoke") is None
    assert recorded_suite("run", "probe:smoke") == "probe:smoke"


def test_the_benchmarks_are_entry_points_of_sessionproof_itself() -> None:
    origins = {e.name: e.origin for e in SUITES.entries()}
    for name in ("tau2-retail", "tau2-airline", "bfcl", "wild"):
        assert origins[name] == "sessionproof", name
        assert is_builtin_suite(name)
    assert origins["demo"] == "runtime" and is_builtin_suite("quickstart")
    assert is_builtin_suite("tau2-retail:test") and is_builtin_suite("bfcl:simple_python")
    assert not is_builtin_suite("tau2-retail-x") and not is_builtin_suite("suite.yaml")
    assert "tau2-airline[:SPLIT]" in BUILTIN_SUITES and "wild" in BUILTIN_SUITES
