"""Every `module:attr` reference goes through `sessionproof._plugins.resolve`, and each caller
keeps its own user-facing error."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import sessionproof
from sessionproof import _plugins
from sessionproof.agents import _python_agent
from sessionproof.domains.sources import _python
from sessionproof.errors import ConfigError, ModelSpecError

SRC = Path(sessionproof.__file__).parent
CALLERS = (
    "importers/_formats.py",
    "scoring/_calls.py",
    "agents/_python_agent.py",
    "domains/sources/_python.py",
)


def test_no_caller_keeps_a_private_resolver() -> None:
    for name in CALLERS:
        code = (SRC / name).read_text()
        assert "import_module" not in code and "import importlib" not in code, name


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []

    def spy(ref: str, *, what: str = "reference") -> Any:
        seen.append(ref)
        return _plugins.resolve(ref, what=what)

    monkeypatch.setattr(_python_agent, "resolve", spy)
    monkeypatch.setattr(_python, "resolve", spy)
    return seen


def test_python_agents_and_toolkits_resolve_through_the_one_resolver(calls: list[str]) -> None:
    assert _python_agent.load_function("os.path:join") is __import__("os").path.join
    assert _python.import_object("os.path:sep") == __import__("os").path.sep
    assert calls == ["os.path:join", "os.path:sep"]


def test_their_own_errors_stay(calls: list[str], tmp_path: Path) -> None:
    with pytest.raises(ModelSpecError, match=r"'os' has no attribute 'nope' \(python:os:nope\)"):
        _python_agent.load_function("os:nope")
    with pytest.raises(ModelSpecError, match="cannot import 'no_such_mod_x' for python:"):
        _python_agent.load_function("no_such_mod_x:f")
    with pytest.raises(ConfigError, match="python reference 'os:nope': os has no nope"):
        _python.import_object("os:nope")
    (tmp_path / "raises_at_import.py").write_text("raise ConfigErrorLike\n")
    with pytest.raises(ConfigError, match="cannot import raises_at_import: NameError"):
        _python.import_object("raises_at_import:X", tmp_path)
    sys.modules.pop("raises_at_import", None)
    # A module that raises a ConfigError of its own while importing is an import failure.
    (tmp_path / "own_config_error.py").write_text(
        "from sessionproof.errors import ConfigError\nraise ConfigError('mine')\n"
    )
    with pytest.raises(ConfigError, match="cannot import own_config_error: ConfigError: mine"):
        _python.import_object("own_config_error:X", tmp_path)
    with pytest.raises(ModelSpecError, match=r"cannot import 'own_config_error'.*: mine"):
        _python_agent.load_function("own_config_error:X")
    assert len(calls) >= 6
    sys.path.remove(str(tmp_path))
