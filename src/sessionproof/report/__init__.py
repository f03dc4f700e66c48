"""Reports: terminal (rich), JSON, and later HTML."""

from ._terminal import render_definitions, render_summary, render_table, render_transcript

__all__ = ["render_definitions", "render_summary", "render_table", "render_transcript"]
