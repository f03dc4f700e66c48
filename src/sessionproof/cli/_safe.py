"""Text from suites, agents and imported transcripts reaches the console escaped.

Scenario ids, user turns, agent replies, tool names and arguments are not ours: printed raw,
an ESC or OSC sequence among them could rewrite a "verdict: failure" line, set the window
title, or write the clipboard (OSC 52). Every C0 control character but newline and tab, DEL
and every C1 control character is shown as `\\xNN` instead. Rich strips only a few of them
(bell, backspace, carriage return...), never ESC.

`SafeConsole` applies this to everything it prints — the text only, not the styles and
cursor moves rich adds itself — so the CLI's two consoles need no change at each print
site. `plain_safe` covers the lines a progress display writes to its console's file
directly (off a terminal), and `terminal_safe` any other such line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

from rich.console import Console
from rich.segment import Segment

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _shown(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def terminal_safe(text: str) -> str:
    """`text` with control characters (but newline and tab) shown as `\\xNN`."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_shown, text)


def _safe_segments(buffer: Iterable[Segment]) -> Iterator[Segment]:
    for segment in buffer:
        if segment.control or _CONTROL.search(segment.text) is None:
            yield segment  # rich's own cursor moves, or nothing to escape
        else:
            yield Segment(terminal_safe(segment.text), segment.style, segment.control)


class SafeConsole(Console):
    """A rich `Console` that escapes control characters in the text it prints."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        # Rich turns segments into the output string here, adding its own escape codes for
        # styles; the text of each segment is made safe just before.
        return super()._render_buffer(_safe_segments(buffer))


class _EscapingFile:
    """A text file that writes `terminal_safe` text to the file it wraps."""

    def __init__(self, raw: IO[str]) -> None:
        self._raw = raw

    def write(self, text: str) -> int:
        return self._raw.write(terminal_safe(text))

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding, fileno...
        return getattr(self._raw, name)


def plain_safe(console: Console) -> Console:
    """The console a progress display should draw on: `console` itself on a terminal (rich
    renders the bar, through `SafeConsole`); off a terminal — where the display writes one
    plain line per session straight to the console's file, and rich adds no escape codes of
    its own — a console whose file escapes whatever is written to it."""
    if console.is_terminal:
        return console
    return SafeConsole(file=_EscapingFile(console.file), width=console.width)  # type: ignore[arg-type]
