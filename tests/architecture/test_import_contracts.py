"""The import contracts in pyproject.toml hold, and really fail when broken.

The contracts are applied, as written in pyproject.toml, to a tiny synthetic package with the
same sub-package names; each violation is added on its own and must break its contract.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")
TOY = "toyproof"


def _config() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        config: dict[str, Any] = tomllib.load(f)["tool"]["importlinter"]
    return config


def _renamed(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("sessionproof", TOY)
    if isinstance(value, list):
        return [_renamed(v) for v in value]
    if isinstance(value, dict):
        return {k: _renamed(v) for k, v in value.items()}
    return value


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(type(value))


def _write_config(path: Path) -> None:
    config = _renamed(_config())
    lines = ["[tool.importlinter]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in config.items() if k != "contracts"]
    for contract in config["contracts"]:
        lines.append("[[tool.importlinter.contracts]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in contract.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _toy(tmp: Path) -> Path:
    """Every sub-package the contracts name, each with a private module, importing nothing."""
    pkg = tmp / TOY
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name in ("_api.py", "_version.py"):
        (pkg / name).write_text("")
    for layer in _config()["contracts"][0]["layers"]:
        for name in layer.split("|"):
            sub = pkg / name.strip()
            sub.mkdir()
            (sub / "__init__.py").write_text("from ._impl import VALUE as VALUE\n")
            (sub / "_impl.py").write_text("VALUE = 1\n")
            # The facade other packages may import (a sub-package has its own).
            (sub / "_internal.py").write_text("from ._impl import VALUE as VALUE\n")
            (sub / "inner").mkdir()
            (sub / "inner" / "__init__.py").write_text("")
            (sub / "inner" / "_impl.py").write_text("VALUE = 1\n")
            (sub / "inner" / "_internal.py").write_text("from ._impl import VALUE as VALUE\n")
    _write_config(tmp / "pyproject.toml")
    return pkg


def _lint(cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_project_keeps_its_contracts() -> None:
    result = _lint(ROOT, ROOT / "src")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "0 broken" in result.stdout


def test_the_toy_package_keeps_them_too(tmp_path: Path) -> None:
    _toy(tmp_path)
    result = _lint(tmp_path, tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]


@pytest.mark.parametrize(
    "line",
    [
        "from ..agents._internal import VALUE",
        "from ..agents.inner._internal import VALUE",
        "from ..agents import _internal",
    ],
)
def test_another_package_may_import_a_facade(tmp_path: Path, line: str) -> None:
    pkg = _toy(tmp_path)
    target = pkg / "cli" / "_impl.py"
    target.write_text(target.read_text() + line + "\n")
    result = _lint(tmp_path, tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # A lower layer importing a higher one.
        ("guard/_impl.py", "from ..engine import VALUE", "Layers"),
        # Independent siblings.
        ("faults/_impl.py", "from ..guard import VALUE", "Layers"),
        ("records/_impl.py", "from ..errors import VALUE", "records imports nothing"),
        ("errors/_impl.py", "from .._version import *", "errors imports nothing"),
        # cli is imported by nothing, not even from above the layers.
        ("_api.py", "from . import cli", "Nothing imports cli"),
        # Another package's private module, even from a higher layer.
        ("cli/_impl.py", "from ..agents._impl import VALUE", "private modules"),
        # ... a sub-package's too, however it is spelled.
        ("cli/_impl.py", "from ..agents.inner._impl import VALUE", "private modules"),
        ("cli/_impl.py", "from ..agents import _impl", "private modules"),
        # The facade is not a way around the layers.
        ("guard/_impl.py", "from ..engine._internal import VALUE", "Layers"),
    ],
)
def test_each_violation_breaks_its_contract(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    pkg = _toy(tmp_path)
    target = pkg / module
    target.write_text(target.read_text() + line + "\n")
    result = _lint(tmp_path, tmp_path)
    assert result.returncode != 0
    report = result.stdout.split("Broken contracts", 1)[-1]
    assert broken in report, result.stdout[-3000:]
