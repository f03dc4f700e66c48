"""Seeded suite-file text: YAML (block or flow) or JSON, with YAML's own hazards mixed in.

YAML has failure modes JSON lacks: anchors and aliases (an alias bomb expands exponentially;
an alias inside its own anchor makes a cycle), tabs in indentation, duplicate keys (last one
wins, silently), multiple documents, language tags, and plain scalars that are not the type
they look like (`yes`, `2023-01-01`, `0x10`, `.inf`). A placeholder scalar marks where such
text goes in the dumped document.
"""

from __future__ import annotations

import random
from typing import Any

import yaml

from ._jsonout import dumps, has_markers

SLOT = "__FUZZ_SLOT__"
"""Placeholder scalar replaced by raw YAML text after dumping."""

YAML_SCALARS: tuple[str, ...] = (
    "1e3",
    "0x10",
    "0o17",
    ".inf",
    "-.inf",
    ".nan",
    "99999999999999999999",
    "-9223372036854775809",
    "~",
    "2023-01-01",
    "2001-12-14t21:59:43.10-05:00",
    "yes",
    "off",
    "!!binary aGVsbG8=",
    "!!set {a, b}",
    "!!omap [a: 1, b: 2]",
    "!!python/object/apply:os.getcwd []",
    "!custom 5",
    "*undefined_alias",
    "&anchor 5",
    "'\\ud800'",
    '"\\ud800\\x00\\u202e"',
    '"\\U0001F600"',
    "|\n    block\n    text",
    "[a, [b, [c, [d]]]]",
    "{? complex key : 1}",
    "!!timestamp not-a-date",
    "!!int 12abc",
)


def _anchors_bomb(rng: random.Random) -> tuple[str, str, str]:
    """(anchor lines, the alias to use, a label) for an exponential alias bomb."""
    levels = rng.randint(3, 9)
    width = rng.randint(4, 9)
    lines = [f"b0: &b0 [{', '.join(['lol'] * width)}]"]
    for n in range(1, levels):
        lines.append(f"b{n}: &b{n} [{', '.join([f'*b{n - 1}'] * width)}]")
    # The top is a mapping, so it passes where a scenario takes any object (metadata, args).
    top = ", ".join(f"k{i}: *b{levels - 1}" for i in range(width))
    lines.append(f"bomb: &bomb {{{top}}}")
    return "\n".join(lines) + "\n", "*bomb", f"alias bomb {width}^{levels + 1}"


def _recursive(rng: random.Random) -> tuple[str, str, str]:
    if rng.random() < 0.5:
        return "r: &r [*r, 1]\n", "*r", "recursive alias (list)"
    return "r: &r {self: *r}\n", "*r", "recursive alias (dict)"


def _lines_tab(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    indented = [i for i, line in enumerate(lines) if line.startswith("  ")]
    if not indented:
        return "\t" + text, "tab before the first line"
    at = rng.choice(indented)
    lines[at] = "\t" + lines[at].lstrip(" ")
    return "\n".join(lines), f"tab indentation on line {at + 1}"


def _dup_key_line(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    keyed = [
        i for i, line in enumerate(lines) if ": " in line and not line.lstrip().startswith("-")
    ]
    if not keyed:
        return text, "no key line to duplicate"
    at = rng.choice(keyed)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    key = lines[at].split(": ", 1)[0].strip()
    lines.insert(at + 1, f"{indent}{key}: {rng.choice(YAML_SCALARS[:12])}")
    return "\n".join(lines), f"duplicate key {key!r} on line {at + 2}"


def _flow(value: Any, ascii_only: bool) -> str:
    return dumps(value, ascii_only=ascii_only).decode("utf-8", "surrogateescape")


def suite_text(scenarios: list[Any], rng: random.Random, slot: str | None) -> tuple[bytes, str]:
    """The suite as file text, with `slot` (raw YAML) where a `SLOT` scalar was placed.

    Returns (text, a label saying how it was written and which hazard was added).
    """
    labels: list[str] = []
    prefix = ""
    if slot == "bomb":
        prefix, slot, label = _anchors_bomb(rng)
        labels.append(label)
    elif slot == "recursive":
        prefix, slot, label = _recursive(rng)
        labels.append(label)
    elif slot is not None:
        labels.append(f"YAML scalar {slot!r}")
    flow = has_markers(scenarios) or rng.random() < 0.25
    if prefix or rng.random() < 0.3:
        body: Any = {"scenarios": scenarios}
    else:
        body = scenarios
    if flow:
        ascii_only = rng.random() < 0.5
        # Anchors are block-mapping keys: the suite is then one more key beside them.
        text = ("scenarios: " + _flow(scenarios, ascii_only)) if prefix else _flow(body, ascii_only)
        labels.append("flow style")
    else:
        text = yaml.safe_dump(body, sort_keys=False, allow_unicode=rng.random() < 0.5, width=80)
    if slot is not None:
        quoted = ['"' + SLOT + '"', SLOT]
        for q in quoted:
            text = text.replace(q, slot)
    text = prefix + text
    hazard = rng.random() if slot is None else 1.0
    if hazard < 0.08:
        text, label = _lines_tab(text, rng)
        labels.append(label)
    elif hazard < 0.16:
        text, label = _dup_key_line(text, rng)
        labels.append(label)
    elif hazard < 0.2:
        text += "\n---\n- id: second-document\n"
        labels.append("a second YAML document")
    return text.encode("utf-8", "surrogateescape"), "; ".join(labels)
