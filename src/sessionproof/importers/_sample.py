"""What a format's sniff looks at: a file's bytes, and its JSON parsed lazily, once for all."""

from __future__ import annotations

from functools import cached_property

from ..errors import ForeignJSONError
from ._json import load_json, load_salvaging

SNIFFED_LINES = 5
"""JSON Lines records a sample parses: a broken first line (cut short, nested too deep) must
not hide a log whose other lines are fine."""


class Sample:
    """One transcript file as the sniffs see it; each view is computed on first use only."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        """The file's bytes (a UTF-8 byte-order mark already dropped)."""

    @cached_property
    def head(self) -> bytes:
        """The first byte that is not white space (b"" for an empty file)."""
        return self.raw.lstrip()[:1]

    @cached_property
    def records(self) -> list[object]:
        """The first JSON Lines records that parse, when the file starts with an object."""
        if self.head != b"{":
            return []
        lines = [line for line in self.raw.split(b"\n", 4 * SNIFFED_LINES) if line.strip()]
        found: list[object] = []
        for line in lines[:SNIFFED_LINES]:
            try:
                found.append(load_json(line))
            except ForeignJSONError:
                continue
        return found

    @cached_property
    def document(self) -> object:
        """The file as one JSON document, what of it parses (None when it is not JSON)."""
        if self.head not in (b"{", b"["):
            return None
        return load_salvaging(self.raw).value
