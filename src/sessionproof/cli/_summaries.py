"""Run summaries as every command prints them: one per arm, never the arms pooled."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console

from ..report._internal import render_summary
from ..scoring import RunSummary, summarize
from ..scoring._internal import first_summary


def summaries_json(head: Mapping[str, Any], by_arm: Mapping[str, RunSummary]) -> dict[str, Any]:
    """`head` plus the summaries: `arms` (arm → its summary) always; a one-arm run also has
    its summary's numbers at the top level (as before arms were split), a run of several
    arms none there (pooling arms would mix a baseline with its fault arms)."""
    payload: dict[str, Any] = dict(head)
    if len(by_arm) <= 1:
        payload.update(first_summary(by_arm).model_dump(mode="json"))
    payload["arms"] = {arm: s.model_dump(mode="json") for arm, s in by_arm.items()}
    return payload


def render_summaries(console: Console, by_arm: Mapping[str, RunSummary], title: str = "") -> None:
    """One summary table per arm (titled by the arm when there are several)."""
    if len(by_arm) == 1:
        render_summary(console, title or "summary", next(iter(by_arm.values())))
        return
    if not by_arm:
        render_summary(console, title or "summary", summarize([]))
        return
    console.print(
        f"{len(by_arm)} arms: each summarized apart (arms are never pooled)", highlight=False
    )
    for arm, summary in by_arm.items():
        render_summary(console, f"{title + ': ' if title else ''}arm {arm}", summary)
