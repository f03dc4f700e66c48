"""The `wild` suite: WildToolBench-style multi-task sessions over the demo domain.

Thirty-six sessions of four tasks, generated from a compact data file (`sessions.yaml`) by
playing each task's gold calls on the demo world. Every task is one user turn, typed
single-tool / parallel / sequential / mixed / clarify / chat; later tasks carry an
implicit-intent kind; sessions carry 0–3 instruction transitions. Reports break task accuracy
down by position, type and intent, session accuracy by transitions, and give the
optimal-path rate of parallel and mixed tasks.
"""

from __future__ import annotations

from ..._lazy import lazy_exports

_MODULE_OF: dict[str, str] = {}
"""Each public name -> the submodule that defines it (imported on first use, so the
suite plug-in object in `_plugins` loads nothing else of the package)."""

__all__: list[str] = []

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF)
