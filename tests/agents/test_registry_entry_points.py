"""Providers from installed packages: a `sessionproof.providers` entry point makes
`--model KIND:...` work with nothing imported first, and listing kinds imports no plug-in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof._plugins import forget_entry_points
from sessionproof.agents import _registry, make_agent
from sessionproof.agents._internal import accepted_specs, get_provider, unregister_provider
from sessionproof.errors import ConfigError, ModelSpecError

RECIPES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recipes"


def _dist(where: Path, lines: str) -> None:
    info = where / "canned_models-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: canned-models\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[sessionproof.providers]\n{lines}\n")


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Path]:
    """The provider recipe's module, declared by an installed distribution's entry point."""
    _dist(tmp_path, "canned = canned_provider:canned\nbroken = canned_provider:CannedAgent")
    sys.path[:0] = [str(tmp_path), str(RECIPES)]
    sys.modules.pop("canned_provider", None)
    forget_entry_points()
    yield tmp_path
    for entry in (str(tmp_path), str(RECIPES)):
        sys.path.remove(entry)
    sys.modules.pop("canned_provider", None)
    unregister_provider("canned")
    _registry._INSTALLED._objects.clear()
    forget_entry_points()


def test_an_installed_kind_is_listed_from_metadata_and_made_on_first_use(installed: Path) -> None:
    assert "canned:..." in accepted_specs()
    assert "canned_provider" not in sys.modules  # listing the kinds imports no plug-in
    agent = make_agent("canned:Hello there")
    assert agent.name == "canned:Hello there"
    assert "canned_provider" in sys.modules
    # Once imported, the kind shows the forms its @provider declared.
    assert "canned:TEXT" in accepted_specs() and "canned:..." not in accepted_specs()
    found = get_provider("canned")
    assert found is not None and found.accepts == ("canned:TEXT",)


def test_an_unknown_kind_lists_the_installed_ones(installed: Path) -> None:
    with pytest.raises(ModelSpecError, match=r"accepted: .*canned:\.\.\."):
        make_agent("nosuchkind:x")


def test_an_entry_point_that_is_no_provider_is_said(installed: Path) -> None:
    with pytest.raises(ConfigError, match="'broken' names type 'CannedAgent', not a factory"):
        make_agent("broken:x")


def test_model_spec_of_an_installed_kind_runs_from_the_cli(tmp_path: Path) -> None:
    _dist(tmp_path / "site", "canned = canned_provider:canned")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path / "site"), str(RECIPES), *filter(None, env.get("PYTHONPATH", "").split(":"))]
    )
    code = "import sys; from sessionproof.cli import main; sys.argv[0] = 'sessionproof'; main()"
    args = ["run", "--suite", "quickstart", "--model", "canned:Sorry, no.", "--limit", "1"]
    done = subprocess.run(
        [sys.executable, "-c", code, *args, "--json", "--store", str(tmp_path / "s.duckdb")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr
    summary = json.loads(done.stdout)
    # Judged, and failed: a canned reply looks nothing up.
    assert (summary["sessions"], summary["judged"], summary["successes"]) == (1, 1, 0)
    assert "model canned:Sorry, no." in done.stderr
