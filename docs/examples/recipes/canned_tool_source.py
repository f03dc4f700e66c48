"""Recipe: a tool-source kind, so a `domains:` file may say `canned: {TOOL: OUTPUT, ...}`.

A tool-source kind is a function that builds a domain from its `domains:` entry (the whole
mapping as written, your kind's key among the others) and the directory the file is in.
Any `DomainSpec` will do; here, schema-free tools answered from the entry's canned outputs.
A `ValueError` names what is wrong with an entry: the load stops with the file and domain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessionproof.domains.sources import Fixture, FixtureBook, FixtureDomainSpec
from sessionproof.records import ToolSpec

_OPTIONS = {"canned", "policy"}


def canned_source(name: str, entry: dict[str, Any], base: Path) -> FixtureDomainSpec:
    """The domain `name`: one tool per key of `entry["canned"]`, answering its value."""
    answers = entry["canned"]
    if not isinstance(answers, dict) or not answers:
        raise ValueError("`canned` must map each tool name to its output")
    unknown = sorted(set(entry) - _OPTIONS)
    if unknown:
        raise ValueError(f"`canned` takes no {', '.join(unknown)}")
    specs = [
        ToolSpec(name=tool, description=f"Look up {tool}.", parameters={"type": "object"})
        for tool in answers
    ]
    book = FixtureBook([Fixture(tool, None, output) for tool, output in answers.items()])
    return FixtureDomainSpec(name, specs, book, str(entry.get("policy", "")))
