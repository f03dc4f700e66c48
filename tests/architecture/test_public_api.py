"""The public API is curated: at most 200 names in all `__all__`s of src/sessionproof (counted
as the shape check counts them), each with a docstring and rendered in the docs' API
reference, and each public package's `__all__` exactly the list in scripts/dev/public_api.toml.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import griffe
import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PUBLIC = ROOT / "scripts" / "dev" / "public_api.toml"
CODEMOD = ROOT / "scripts" / "dev" / "curate_api.py"
LIMIT = 200


def _all_lists() -> dict[str, list[str]]:
    """module -> the names of its module-level `__all__ = [...]` (the shape check's rule)."""
    found: dict[str, list[str]] = {}
    for path in sorted((SRC / "sessionproof").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, (ast.Assign, ast.AnnAssign)):
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(getattr(t, "id", "") == "__all__" for t in targets) and isinstance(
                node.value, (ast.List, ast.Tuple)
            ):
                parts = path.relative_to(SRC).with_suffix("").parts
                module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                found[module] = [ast.literal_eval(e) for e in node.value.elts]
    return found


def _exported() -> list[tuple[str, str]]:
    return [(module, name) for module, names in _all_lists().items() for name in names]


@cache
def _package() -> griffe.Object | griffe.Alias:
    return griffe.load("sessionproof", search_paths=[str(SRC)], resolve_aliases=False)


def _target(module: str, name: str) -> griffe.Object | griffe.Alias:
    """The object `module.name` is, aliases followed (as mkdocstrings renders it)."""
    obj = _package()
    for part in [*module.split(".")[1:], name]:
        obj = obj[part]
    return obj.final_target if obj.is_alias else obj


@cache
def _rendered() -> dict[str, set[str]]:
    """Each object a `::: path` directive of a docs page renders -> the paths it is rendered
    or named under: the directive's own, and on that page `` `pkg.name` `` spellings of the
    same object (`sessionproof.Session` is `sessionproof.records.Session`)."""
    found: dict[str, set[str]] = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        named = set(re.findall(r"`(sessionproof[\w.]*)`", text))
        for match in re.finditer(r"^::: *(sessionproof[\w.]*)", text, re.M):
            module, _, name = match.group(1).rpartition(".")
            path = _target(module, name).path
            found.setdefault(path, set()).add(match.group(1))
            found[path] |= {n for n in named if n.rpartition(".")[2] == name}
    return found


def test_at_most_200_names_are_exported() -> None:
    exported = _exported()
    assert len(exported) <= LIMIT, f"{len(exported)} names in __all__s"


def test_only_public_packages_have_an_all() -> None:
    # A private module or package (`_x`) lists no `__all__`: its names are not public.
    private = [m for m in _all_lists() if any(p.startswith("_") for p in m.split("."))]
    assert private == []


def test_each_public_package_exports_its_curated_list() -> None:
    with PUBLIC.open("rb") as f:
        curated: dict[str, list[str]] = tomllib.load(f)["packages"]
    for module, names in _all_lists().items():
        assert set(names) <= set(curated.get(module, [])), module


@pytest.mark.parametrize(("module", "name"), _exported(), ids=[f"{m}.{n}" for m, n in _exported()])
def test_each_exported_name_is_documented(module: str, name: str) -> None:
    target = _target(module, name)
    assert target.docstring is not None and target.docstring.value.strip(), (
        f"{module}.{name} has no docstring"
    )
    assert f"{module}.{name}" in _rendered().get(target.path, set()), (
        f"{module}.{name} is rendered by no `:::` directive of docs/"
    )


def test_the_codemod_has_nothing_left_to_do() -> None:
    # The tree is what scripts/dev/curate_api.py makes of it: a second run changes nothing.
    done = subprocess.run(
        [sys.executable, str(CODEMOD), "--check"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
