"""One definition of each thing: no function, class or constant is written out twice in src.

The scan compares definitions, not where they live: a function or class whose body (its
docstring and own name aside) repeats another's, and a module constant assigned the same value
under the same name in two modules, are copies that drift apart. Moving a module keeps the
check green; copying a definition turns it red.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "sessionproof"

MIN_NODES = 25
"""A definition smaller than this (AST nodes, signature included) is too small to be a copy:
one-line properties and protocol methods legitimately look alike."""

MIN_VALUE_NODES = 6
"""A constant's value smaller than this (`N = 3`, `T = TypeVar("T")`) is not a copy either."""

KNOWN = {
    ("FixtureError", "HttpToolError"),
    ("BfclMultiTurnSuite.__init__", "BfclSuite.__init__"),
    ("BfclSuite.hashed_form", "Tau2Suite.hashed_form"),
    ("ImportResult.skipped", "ScoreReport.skipped"),
    ("CreditCard", "CreditCard"),
    ("ToolMode", "ToolMode"),
    ("AttrValue", "AttrValue"),
    ("Attrs", "Attrs"),
    ("DomainFor", "DomainFor"),
    ("MAX_RESPONSE_BYTES", "MAX_RESPONSE_BYTES"),
    ("StoreOpt", "StoreOpt"),
}
"""Copies in src when this check was written, by qualified name (no file path): each is debt
to pay by defining it once; none may be added."""


def _stripped(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[str, int]:
    """The definition without its name and docstring (so copies under new names compare
    equal), dumped, and its size in AST nodes."""
    body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
    parts: list[ast.AST] = [*node.decorator_list]
    if isinstance(node, ast.ClassDef):
        parts += [*node.bases, *node.keywords]
    else:
        parts += [node.args] if node.returns is None else [node.args, node.returns]
    parts += body
    key = type(node).__name__ + "|".join(ast.dump(part) for part in parts)
    return key, 1 + sum(1 for part in parts for _ in ast.walk(part))


Found = tuple[str, str]  # (comparison key, "qualified name")


def _definitions(tree: ast.Module) -> Iterator[Found]:
    """Every function and class (with its qualified name) big enough to count, outermost
    first, and every module constant with a value big enough to count."""

    def visit(body: list[ast.stmt], prefix: str) -> Iterator[Found]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + node.name
                key, size = _stripped(node)
                if size >= MIN_NODES:
                    yield key, name
                yield from visit(node.body, name + ".")

    yield from visit(tree.body, "")
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if (
            isinstance(target, ast.Name)
            and sum(1 for _ in ast.walk(value)) >= MIN_VALUE_NODES
            and _shared(value)
        ):
            yield f"{target.id} = {ast.dump(value)}", target.id


def _shared(value: ast.expr) -> bool:
    """False for values each module makes its own by convention: a TypeVar, a module's logger
    (anything naming `__name__`)."""
    func = value.func if isinstance(value, ast.Call) else None
    if isinstance(func, ast.Name) and func.id == "TypeVar":
        return False
    return not any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(value))


def duplicates(sources: dict[str, str]) -> set[tuple[str, ...]]:
    """The qualified names of each group of equal definitions across `sources` (path -> code);
    a copy nested in a copied definition is reported with its outer one only."""
    groups: dict[str, list[str]] = defaultdict(list)
    where: dict[str, list[str]] = defaultdict(list)
    for path, code in sorted(sources.items()):
        for key, name in _definitions(ast.parse(code)):
            groups[key].append(name)
            where[key].append(f"{path}:{name}")
    copied = {key for key, names in groups.items() if len(names) > 1}
    outer: set[str] = set()
    found: set[tuple[str, ...]] = set()
    for key in sorted(copied, key=lambda k: min(len(w) for w in where[k])):
        places = where[key]
        if any(place.startswith(prefix + ".") for place in places for prefix in outer):
            continue
        outer.update(places)
        found.add(tuple(sorted(groups[key])))
    return found


@cache
def _source() -> dict[str, str]:
    return {
        path.relative_to(SRC).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(SRC.rglob("*.py"))
    }


def test_the_scan_finds_copies_under_other_names_and_only_copies() -> None:
    one = '''
class Refused(Exception):
    """Said one way."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code + 1


def total(values: list[int]) -> int:
    return sum(v * 2 for v in values if v > 0)


Mode = Literal["native", "prompted", "auto"]
T = TypeVar("T", bound=BaseModel)
_log = logging.getLogger(__name__)
'''
    two = '''
class Denied(Exception):
    """Said another way: the docstring and the name do not make it another class."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code + 1


def total(values: list[int]) -> int:
    return sum(v * 2 for v in values if v >= 0)


Mode = Literal["native", "prompted", "auto"]
T = TypeVar("T", bound=BaseModel)
_log = logging.getLogger(__name__)
'''
    found = duplicates({"a.py": one, "b.py": two})
    # The class is reported once (not again for its __init__); `total` differs by one
    # operator; each module's own TypeVar and logger are no copies.
    assert found == {("Denied", "Refused"), ("Mode", "Mode")}
    assert duplicates({"a.py": one}) == set()


def test_no_definition_is_copied_in_src() -> None:
    found = duplicates(_source())
    new = sorted(found - KNOWN)
    assert new == [], f"copied definitions (define each once and import it): {new}"
    # The scan sees the copies known when it was written that are still there.
    assert found & KNOWN, "the scan found none of the known copies: is it still looking?"


@cache
def _named() -> dict[str, list[str]]:
    """Each function, class and assigned name in src -> the files defining it."""
    names: dict[str, list[str]] = defaultdict(list)
    for path, code in _source().items():
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names[node.name].append(path)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    # `name = name` (re-binding a shared definition) defines nothing new.
                    same = isinstance(node.value, ast.Name) and isinstance(target, ast.Name)
                    if isinstance(target, ast.Name) and not (same and node.value.id == target.id):
                        names[target.id].append(path)
    return names


def test_one_run_summary_one_percentage_format_one_fact_search() -> None:
    names = _named()
    assert len(names["RunSummary"]) == 1 and len(names["pct"]) == 1
    assert len(names["normalise_text"]) == 1
    assert names["_pct"] == [] and names["normalise"] == []


def test_the_stop_token_is_written_once_where_it_is_defined() -> None:
    (defined,) = _named()["STOP_TOKEN"]
    literal = [p for p, code in _source().items() if "###STOP###" in code]
    assert literal == [defined]


def test_tau2_defines_its_transfer_tool_once() -> None:
    # The demo's own hand-off validates its summary and says more, and banking's takes a
    # reason code from its knowledge base: different tools. retail and airline share one.
    assert sorted(_named()["transfer_to_human_agents"]) == [
        "domains/demo/_tools.py",
        "suites/tau2/_tau/_domain.py",
        "suites/tau2/banking/_tools.py",
    ]
