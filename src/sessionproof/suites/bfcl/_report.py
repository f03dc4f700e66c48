"""BFCL verdicts as `score --format bfcl` reports them: the `--json` summary and the tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ...scoring.stats import wilson_interval
from ._score import BfclScore


def bfcl_summary(score: BfclScore, output: Path | None = None) -> dict[str, Any]:
    """The `--json` summary of a BFCL score (see `BfclReport.summary`)."""
    categories: dict[str, Any] = {}
    for name, cat in score.categories.items():
        low, high = wilson_interval(cat.valid, cat.n)
        categories[name] = {
            "accuracy": cat.accuracy,
            "n": cat.n,
            "valid": cat.valid,
            "ci95": [low, high],
            "error_types": cat.error_types,
            "greedy_accuracy": cat.greedy_valid / cat.n if cat.n else None,
            "optimal_not_greedy": cat.optimal_not_greedy,
        }
    return {
        "lines": score.lines,
        "categories": categories,
        "input_errors": score.input_errors,
        "input_error_lines": score.input_error_lines,
        "broken_questions": score.broken_questions,
        "output": str(output) if output is not None else None,
    }


class BfclReport(BaseModel):
    """BFCL-compatible verdicts of one file of decoded model outputs."""

    model_config = ConfigDict(extra="forbid")

    score: BfclScore
    output: str | None = None
    """Where one verdict per line was written, if anywhere."""

    def summary(self) -> dict[str, Any]:
        """The `--json` object: per category accuracy, n, Wilson 95% CI, error types, and the
        ids where the optimal pairing accepts what BFCL's greedy matcher rejects."""
        return bfcl_summary(self.score, None if self.output is None else Path(self.output))

    def exit_code(self) -> int:
        """0 when every line was judged, 1 when some lines were input errors."""
        return 1 if self.score.input_errors else 0

    def render(self, console: Any) -> None:
        """The verdict table, the lines not judged and the broken questions."""
        from rich.markup import escape

        score = self.score
        console.print(_table(score))
        if score.input_errors:
            detail = ", ".join(f"{k} ×{v}" for k, v in score.input_errors.items())
            lines = ", ".join(str(n) for n in score.input_error_lines[:10])
            console.print(f"[yellow]not judged:[/] {detail} (lines {lines})")
        for qid, why in score.broken_questions.items():
            console.print(f"[yellow]broken question[/] {escape(qid)}: {escape(why)}")
        if self.output is not None:
            console.print(f"verdicts written to {self.output}")


def _table(score: BfclScore) -> Any:
    from rich.table import Table

    multi_turn = any(name.startswith("multi_turn") for name in score.categories)
    title = (
        "BFCL multi-turn verdicts (BFCL's checker semantics)"
        if multi_turn
        else "BFCL AST verdicts (parallel calls paired optimally)"
    )
    table = Table(title=title)
    for column in ("category", "n", "accuracy", "95% CI", "BFCL greedy", "top errors"):
        table.add_column(
            column, justify="left" if column in ("category", "top errors") else "right"
        )
    for name, cat in score.categories.items():
        low, high = wilson_interval(cat.valid, cat.n)
        top = ", ".join(f"{k} ×{v}" for k, v in list(cat.error_types.items())[:3])
        greedy = f"{cat.greedy_valid / cat.n:.1%}" if cat.n else "-"
        if cat.optimal_not_greedy:
            greedy += f" ({len(cat.optimal_not_greedy)} differ)"
        table.add_row(
            name,
            str(cat.n),
            f"{cat.accuracy:.1%}" if cat.accuracy is not None else "-",
            f"{low:.1%}–{high:.1%}",
            greedy,
            top or "-",
        )
    return table
