"""Generic packages name no built-in benchmark: tau2, BFCL and wild are plug-ins.

Everything under `src/sessionproof` except `suites/` (where the benchmarks live, each in its
own package registered through entry points like a third party's) is walked: no import of a
benchmark package (absolute or relative), no `"module:attr"` string naming one, and no string
literal (docstrings and comments aside: they may mention a benchmark as an example) equal to
or starting with a benchmark's name. The failure lists every hit.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import sessionproof

SRC = Path(sessionproof.__file__).parent
SUITES = SRC / "suites"
BENCHMARK_PACKAGES = sorted(
    p.name for p in SUITES.iterdir() if p.is_dir() and (p / "__init__.py").exists()
)
NAMES = ("tau2", "tau-bench", "taubench", "bfcl", "wild")
"""The names a generic string may not start with (the packages' and their formats')."""
_NAMED = re.compile(r"^(?i:" + "|".join(re.escape(n) for n in NAMES) + r")(?![a-z0-9])")
"""A literal starting with a name, in any case, that does not go on as a longer lowercase
word (`wildcard` is no benchmark; `BfclReport`, `tau2-retail` and `bfcl:simple` are)."""
_MODULE = re.compile(r"sessionproof\.suites\.(" + "|".join(BENCHMARK_PACKAGES) + r")\b")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of string constants that are documentation: bare string statements (module,
    class and function docstrings, and the attribute docstrings after an assignment)."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            ids.add(id(node.value))
    return ids


def _package_of(path: Path) -> list[str]:
    rel = path.relative_to(SRC.parent).with_suffix("")
    return list(rel.parts[:-1])  # a module's package; a package's `__init__` is its own


def _imported(node: ast.ImportFrom, path: Path) -> list[str]:
    """The full module names an ImportFrom names (the module and each module-like name)."""
    if node.level:
        base = _package_of(path)
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        module = ".".join([*base, *([node.module] if node.module else [])])
    else:
        module = node.module or ""
    return [module, *(f"{module}.{a.name}" for a in node.names)]


def _hits(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    docs = _docstrings(tree)
    where = path.relative_to(SRC.parent)
    found: list[str] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = _imported(node, path)
        for name in names:
            if _MODULE.match(name) or _MODULE.search(name + "."):
                found.append(f"{where}:{node.lineno}: imports {name}")
                break
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value
            if _MODULE.search(text):
                found.append(f"{where}:{node.lineno}: names a benchmark module: {text!r}")
            elif _NAMED.match(text.strip()):
                found.append(f"{where}:{node.lineno}: names a benchmark: {text[:60]!r}")
    return found


def generic_files() -> list[Path]:
    """Every module of sessionproof outside `suites/`."""
    return sorted(p for p in SRC.rglob("*.py") if SUITES not in p.parents)


def test_the_benchmark_packages_are_found() -> None:
    assert {"tau2", "bfcl", "wild"} <= set(BENCHMARK_PACKAGES)
    assert len(generic_files()) > 100


def test_the_checker_sees_every_kind_of_naming(tmp_path: Path) -> None:
    # The walk must catch each form, or its silence proves nothing.
    probe = SRC / "records" / "_probe_generic_names.py"
    probe.write_text(
        '"""Docs may name tau2 and BFCL."""\n'
        "from ..suites.tau2 import x\n"
        "from ..suites import bfcl\n"
        "import sessionproof.suites.wild\n"
        'REF = "sessionproof.suites.tau2._tau2:import_tau2"\n'
        'KIND = "tau-bench"\n'
        'FMT = f"bfcl:{1}"\n'
        'OK = "a tau2 mention mid-string is not a name"\n'
        'WORD = "wildcard"\n'
        'NAME = "BfclReport"\n'
        'DOC = 1\n"""Attribute docs may name wild too."""\n'
    )
    try:
        hits = _hits(probe)
    finally:
        probe.unlink()
    assert len(hits) == 7, hits
    assert sorted(int(h.split(":")[1]) for h in hits) == [2, 3, 4, 5, 6, 7, 10]


def test_generic_packages_name_no_builtin_benchmark() -> None:
    hits = [hit for path in generic_files() for hit in _hits(path)]
    assert hits == [], "\n".join(["generic code names a built-in benchmark:", *hits])
