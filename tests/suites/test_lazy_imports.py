"""A benchmark's domain loads without the rest of its package: `get_domain("retail")` builds
tau2's retail tools and DB, not its scoring, transcript importers or the store (duckdb)."""

from __future__ import annotations

import importlib
import importlib.util
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


# The lazy tables: the packages' own and their facades.
LAZY = (
    "sessionproof.suites",
    "sessionproof.suites._internal",
    "sessionproof.suites.tau2",
    "sessionproof.suites.tau2._internal",
)


def test_the_lazy_names_still_resolve() -> None:
    modules = [importlib.import_module(m) for m in LAZY if importlib.util.find_spec(m)]
    resolved = {}
    for module in modules:
        table = vars(module)["_MODULE_OF"]
        for name in table:
            resolved[name] = getattr(module, name)
            assert resolved[name] is not None, name
        assert set(getattr(module, "__all__", ())) <= set(dir(module))
        assert set(table) <= set(dir(module))
    assert resolved["score_transcripts"].__module__ == "sessionproof.suites._score"
    tau2 = importlib.import_module("sessionproof.suites.tau2")
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = tau2.no_such_name
