"""YAML for suite files, bounded: no alias bombs, no recursive aliases, no runaway nesting.

PyYAML's safe loader shares one Python object per anchor, so a few hundred bytes of nested
aliases (nine levels of nine) load instantly and then expand into hundreds of millions of
values the moment anything copies them (validation, `model_dump`, hashing). So the document
is composed into its node graph first and measured there, where sharing is still visible:
its depth and its size once every alias is expanded. Only a document within bounds is
turned into Python data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.error import Mark
from yaml.events import AliasEvent, CollectionStartEvent, Event
from yaml.nodes import MappingNode, Node, SequenceNode
from yaml.reader import ReaderError

from ..errors import InputFileError

MAX_DEPTH = 100
"""Deepest nesting a suite file may have (PyYAML recurses per level; pydantic stops at ~250)."""
MAX_ALIAS_EXPANSION = 100_000
"""Values aliases may add once expanded, beyond those written out in the file."""


class _BoundedLoader(yaml.SafeLoader):
    """A safe loader that refuses, while composing, nesting past `MAX_DEPTH` and an alias
    to a collection that is still open (a recursive alias), both with their line; and,
    while constructing, a tagged scalar its constructor cannot read, with its line."""

    def __init__(self, stream: bytes) -> None:
        super().__init__(stream)
        self._depth = 0
        self._open_anchors: set[str] = set()

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        """Compose one node, counting depth and open anchors."""
        event: Event = self.peek_event()  # type: ignore[no-untyped-call]
        mark = cast("Mark | None", event.start_mark)
        if isinstance(event, AliasEvent) and event.anchor in self._open_anchors:
            problem = f"recursive alias *{event.anchor} inside its own value"
            raise ComposerError(None, None, problem, mark)
        if self._depth >= MAX_DEPTH:
            raise ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels", mark)
        anchor = event.anchor if isinstance(event, CollectionStartEvent) else None
        self._depth += 1
        if anchor is not None:
            self._open_anchors.add(anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1
            if anchor is not None:
                self._open_anchors.discard(anchor)

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        """Construct one node; a value its tag's constructor fails on is a YAML error.

        PyYAML's scalar constructors trust their input: `!!int 12abc` raises ValueError and
        `!!timestamp not-a-date` AttributeError. Every node, nested or not, is constructed
        through here, so this is the one place they become a `ConstructorError` with a line.
        """
        try:
            return super().construct_object(node, deep)  # type: ignore[no-untyped-call]
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, OverflowError) as exc:
            tag = node.tag.rsplit(":", 1)[-1]
            problem = (
                f"cannot read {node.value!r} as {tag}"
                if isinstance(node.value, str)
                else (f"cannot read this {tag} value")
            )
            raise ConstructorError(None, None, f"{problem} ({exc})", node.start_mark) from None


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


@dataclass(frozen=True, slots=True)
class _Measure:
    distinct: int
    expanded: int
    depth: int


def _measure(root: Node) -> _Measure:
    """Distinct nodes, nodes once aliases are expanded, and expanded depth.

    Iterative and memoised per node, so it costs the file's size, not the expansion's.
    """
    sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded size, expanded depth)
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            below = [sizes[id(child)] for child in _children(node)]
            size = 1 + sum(s for s, _ in below)
            depth = 1 + max((d for _, d in below), default=0)
            sizes[key] = (size, depth)
        elif key not in sizes:
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    expanded, depth = sizes[id(root)]
    return _Measure(len(sizes), expanded, depth)


def _where(exc: yaml.YAMLError, raw: bytes) -> str:
    if isinstance(exc, ReaderError):
        if exc.encoding != "unicode":  # bytes that do not decode: a byte offset
            return f" at byte {exc.position}"
        # A character YAML does not allow: `position` counts characters of the text.
        before = raw.decode("utf-8", errors="replace")[: exc.position]
        line, column = before.count("\n") + 1, exc.position - before.rfind("\n")
        return f" at line {line} column {column}"
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""


def _problem(exc: yaml.YAMLError) -> str:
    if isinstance(exc, ReaderError):
        if exc.encoding != "unicode":
            return f"not {exc.encoding} text ({exc.reason})"
        return f"character U+{exc.character:04X} is not allowed in YAML"
    problem = getattr(exc, "problem", None)
    return str(problem) if problem else str(exc).splitlines()[0]


@dataclass(frozen=True, slots=True)
class YamlDocument:
    """A suite file's data, with the line each top-level scenario starts on."""

    data: Any
    lines: list[int]
    """1-based start line of each scenario (items of the top list, or of `scenarios:`)."""
    field_lines: dict[tuple[str | int, ...], int] = field(default_factory=dict)
    """1-based line of every value by its path from the root (`("scenarios", 0, "user")`),
    so an error can point at the field itself."""

    def line_of(self, path: tuple[str | int, ...]) -> int | None:
        """The line of the deepest known prefix of `path` (None when none is known)."""
        for end in range(len(path), 0, -1):
            line = self.field_lines.get(path[:end])
            if line is not None:
                return line
        return None


def _item_lines(root: Node) -> list[int]:
    items = root
    if isinstance(root, MappingNode):
        for key, value in root.value:
            if getattr(key, "value", None) == "scenarios":
                items = value
    if not isinstance(items, SequenceNode):
        return []
    return [item.start_mark.line + 1 for item in items.value]


def _field_lines(root: Node) -> dict[tuple[str | int, ...], int]:
    """Each node's line by path; iterative, and each node visited once (an aliased node
    keeps the path it was first reached by), so it costs the file's size."""
    out: dict[tuple[str | int, ...], int] = {}
    seen: set[int] = set()
    stack: list[tuple[Node, tuple[str | int, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, SequenceNode):
            stack.extend((child, (*path, i)) for i, child in enumerate(node.value))
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                name = key.value if isinstance(key.value, str) else str(key.value)
                out.setdefault((*path, name), key.start_mark.line + 1)
                stack.append((value, (*path, name)))
    return out


def load_yaml(raw: bytes, source: str) -> YamlDocument:
    """Parse one YAML document within the bounds above; raises `InputFileError` naming
    `source` and the line for bad syntax, recursive aliases, deep nesting or alias bombs."""
    try:
        # The reader decodes and checks the first chunk of text as it is built.
        loader = _BoundedLoader(raw)
    except yaml.YAMLError as exc:
        raise InputFileError(
            f"{source}: not valid YAML{_where(exc, raw)}: {_problem(exc)}"
        ) from None
    try:
        root = loader.get_single_node()
        if root is None:
            return YamlDocument(None, [])
        measure = _measure(root)
        if measure.depth > MAX_DEPTH:
            raise InputFileError(
                f"{source}: nested deeper than {MAX_DEPTH} levels once aliases are expanded"
            )
        extra = measure.expanded - measure.distinct
        if extra > MAX_ALIAS_EXPANSION:
            raise InputFileError(
                f"{source}: YAML aliases would expand to {extra:,} more values, above the "
                f"limit of {MAX_ALIAS_EXPANSION:,} (an alias bomb?); write the values out"
            )
        data = loader.construct_document(root)
        return YamlDocument(data, _item_lines(root), _field_lines(root))
    except yaml.YAMLError as exc:
        raise InputFileError(
            f"{source}: not valid YAML{_where(exc, raw)}: {_problem(exc)}"
        ) from None
    finally:
        loader.dispose()
