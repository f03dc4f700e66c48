"""A benchmark's domain loads without the rest of its package: `get_domain("retail")` builds
tau2's retail tools and DB, not its scoring, transcript importers or the store (duckdb)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = (
    "duckdb",
    "sessionproof.store",
    "sessionproof.scoring",
    "sessionproof.importers",
    "sessionproof.engine",
    "sessionproof.suites._score",
    "sessionproof.suites.tau2._evaluate",
)


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running `code`."""
    probe = code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(out.stdout.split())


@pytest.mark.parametrize("domain", ["retail", "airline", "taubench-retail"])
def test_a_tau2_domain_loads_no_scoring_store_or_importers(domain: str) -> None:
    loaded = _loaded_after(
        f"from sessionproof.domains import get_domain\nget_domain({domain!r}).create()"
    )
    assert "sessionproof.suites.tau2._tau" in loaded  # the probe really built the domain
    assert sorted(m for m in HEAVY if m in loaded) == []


def test_the_lazy_names_still_resolve() -> None:
    import sessionproof.suites as suites
    import sessionproof.suites.tau2 as tau2

    for module in (suites, tau2):
        for name in module.__all__:
            assert getattr(module, name) is not None, name
        assert set(module.__all__) <= set(dir(module))
    assert tau2.score_transcripts.__module__ == "sessionproof.suites._score"
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = tau2.no_such_name
