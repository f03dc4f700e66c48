"""Seeded structural mutations of a parsed JSON/YAML value.

Each mutation picks a spot by a random walk from the root (stopping early often, so shallow,
structural fields are hit as much as deep message text), changes it, and returns a short
description with the path, which is what a crash report shows as its reproducer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ._jsonout import DupKeys, Raw

Path = list[str | int]

ODD_TEXT = (
    "\ud800",  # a lone high surrogate (written as its \\ud800 escape)
    "\udfff",
    "\x00",
    "\u202e",  # right-to-left override
    "\u200b\u200d",  # zero-width space and joiner
    "\ufeff",  # BOM inside a string
    "e\u0301\u0301\u0301",  # stacked combining accents
    "😀👩‍👩‍👧",
    "\r\n\t\x1b[31m",  # control characters and an ANSI escape
    "[red]rich markup[/red] [bold",
    "<script>alert(1)</script>",
    "'; drop table sessions; --",
    "%s %d {0} {name}",
)


def _deep(depth: int, kind: str) -> Raw:
    if kind == "list":
        return Raw(b"[" * depth + b"]" * depth)
    return Raw(b'{"a": ' * depth + b"0" + b"}" * depth)


def hostile_value(rng: random.Random) -> tuple[Any, str]:
    """A value of the kind that breaks parsers and stores, with a short label."""
    choice = rng.randrange(24)
    table: list[tuple[Any, str]] = [
        (None, "null"),
        (True, "true"),
        (0, "0"),
        (-1, "-1"),
        (2**31, "2**31"),
        (2**63, "2**63"),
        (2**64 + 1, "2**64+1"),
        (-(2**63) - 1, "-2**63-1"),
        (10**400, "10**400"),
        (1.5, "1.5"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        ("", "empty string"),
        ("x" * rng.choice([10_000, 300_000]), "long string"),
        (rng.choice(ODD_TEXT), "odd unicode"),
        ([], "[]"),
        ({}, "{}"),
        ([[None]], "[[null]]"),
        ({"": None, "\x00": []}, "odd-keyed object"),
        (_deep(rng.choice([1_100, 5_000]), rng.choice(["list", "dict"])), "deep nesting"),
        (Raw(b'"bad \xff\xfe \xc3( bytes"'), "non-UTF-8 string"),
        ("0", '"0"'),
        (Raw(b"1e999"), "1e999"),
    ]
    return table[choice]


def _children(node: Any) -> list[str | int]:
    if isinstance(node, dict):
        return list(node)
    if isinstance(node, list):
        return list(range(len(node)))
    return []


def walk(root: Any, rng: random.Random, stop: float = 0.3) -> tuple[Any, str | int, Path] | None:
    """A random (container, key or index, path) of `root`; None when it has no children."""
    node: Any = root
    path: Path = []
    parent: tuple[Any, str | int] | None = None
    while True:
        keys = _children(node)
        if not keys or (parent is not None and rng.random() < stop):
            break
        key = rng.choice(keys)
        parent = (node, key)
        path = [*path, key]
        node = node[key]
    if parent is None:
        return None
    return parent[0], parent[1], path


def keyed_spots(root: Any) -> dict[str, list[tuple[dict[str, Any], Path]]]:
    """Every dict key of `root` → the dicts holding it (with their paths)."""
    found: dict[str, list[tuple[dict[str, Any], Path]]] = {}
    stack: list[tuple[Any, Path]] = [(root, [])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                found.setdefault(key, []).append((node, path))
                stack.append((value, [*path, key]))
        elif isinstance(node, list):
            stack.extend((v, [*path, i]) for i, v in enumerate(node))
    return found


def show(path: Path) -> str:
    """`a.b[2].c` for a path."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(root)"


def _retype(value: Any, rng: random.Random) -> Any:
    options: list[Any] = [
        "text",
        42,
        4.25,
        [value],
        {"value": value},
        None,
        False,
        str(value)[:50],
    ]
    return rng.choice(options)


Op = Callable[[Any, str | int, random.Random], str]


def _drop(c: Any, k: str | int, rng: random.Random) -> str:
    del c[k]
    return "drop"


def _dup_key(c: Any, k: str | int, rng: random.Random) -> str:
    if not isinstance(c, dict):
        c.insert(int(k), c[k])  # a list: the item twice (a duplicate record)
        return "duplicate item"
    other, _ = hostile_value(rng)
    pairs = [*c.items(), (k, other)] if rng.random() < 0.5 else [(k, other), *c.items()]
    # The container itself must become the marker: swap it in place of its contents.
    c.clear()
    c["__dup__"] = DupKeys(tuple(pairs))
    return "duplicate key"


def _rename(c: Any, k: str | int, rng: random.Random) -> str:
    if not isinstance(c, dict):
        c[k], c[-1] = c[-1], c[k]
        return "swap items"
    new = rng.choice([str(k).upper(), f"{k}_", f"{k}s", "", " " + str(k), "\u202e" + str(k)])
    items = [(new if key == k else key, v) for key, v in c.items()]
    c.clear()
    c.update(items)
    return f"rename key to {new!r}"


def _retype_op(c: Any, k: str | int, rng: random.Random) -> str:
    old = c[k]
    c[k] = _retype(old, rng)
    return f"retype {type(old).__name__}→{type(c[k]).__name__}"


def _hostile(c: Any, k: str | int, rng: random.Random) -> str:
    value, label = hostile_value(rng)
    c[k] = value
    return f"set {label}"


def _odd_text(c: Any, k: str | int, rng: random.Random) -> str:
    odd = rng.choice(ODD_TEXT)
    old = c[k]
    if isinstance(old, str):
        at = rng.randrange(len(old) + 1)
        c[k] = old[:at] + odd + old[at:]
    else:
        c[k] = odd
    return f"insert {odd!r}"


def _empty(c: Any, k: str | int, rng: random.Random) -> str:
    old = c[k]
    c[k] = type(old)() if isinstance(old, list | dict | str) else None
    return "empty"


def _graft(c: Any, k: str | int, rng: random.Random) -> str:
    # Type confusion as real files have it: a value that belongs somewhere else in the file.
    return "graft"  # filled in by `mutate`, which knows the root


OPS: dict[str, tuple[Op, int]] = {
    "drop": (_drop, 3),
    "duplicate": (_dup_key, 2),
    "rename": (_rename, 2),
    "retype": (_retype_op, 3),
    "hostile": (_hostile, 4),
    "odd_text": (_odd_text, 2),
    "empty": (_empty, 1),
    "graft": (_graft, 1),
}


def mutate(root: Any, rng: random.Random, focus: tuple[str, ...] = ()) -> str:
    """Apply one structural mutation to `root` in place; return what it did and where.

    `focus` keys (fields the code reads as numbers, ids or lists) are picked more often.
    """
    spots = keyed_spots(root)
    hot = [k for k in focus if k in spots]
    spot: tuple[Any, str | int, Path] | None
    if hot and rng.random() < 0.4:
        hot_key = rng.choice(hot)
        holder, where = rng.choice(spots[hot_key])
        spot = (holder, hot_key, [*where, hot_key])
    else:
        spot = walk(root, rng)
    if spot is None:
        return "no spot to mutate"
    container: Any = spot[0]
    key, path = spot[1], spot[2]
    names = list(OPS)
    name = rng.choices(names, weights=[OPS[n][1] for n in names])[0]
    if name == "graft":
        donor = walk(root, rng, stop=0.5)
        if donor is None:
            return "no donor"
        value = donor[0][donor[1]]
        container[key] = value if isinstance(value, Raw | DupKeys) else _copy(value)
        return f"graft {show(donor[2])} at {show(path)}"
    what = OPS[name][0](container, key, rng)
    return f"{what} at {show(path)}"


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def unmark(root: Any) -> Any:
    """Replace `{"__dup__": DupKeys}` holders by the marker itself (see `_dup_key`)."""
    if isinstance(root, dict):
        if len(root) == 1 and isinstance(root.get("__dup__"), DupKeys):
            return root["__dup__"]
        return {k: unmark(v) for k, v in root.items()}
    if isinstance(root, list):
        return [unmark(v) for v in root]
    return root


def copy_tree(value: Any) -> Any:
    """A deep copy of plain JSON data (faster than copy.deepcopy)."""
    return _copy(value)
