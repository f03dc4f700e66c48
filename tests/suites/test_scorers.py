"""`score --format NAME` for model outputs goes to the scorer a package registered for NAME."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessionproof import runs
from sessionproof.errors import ConfigError
from sessionproof.runs._internal import SCORE_FORMATS
from sessionproof.suites import OutputReport, ScoreOptions
from sessionproof.suites._internal import scorer_names
from sessionproof.suites._scorers import SCORERS


class LineReport:
    def __init__(self, lines: int, options: ScoreOptions) -> None:
        self.lines = lines
        self.options = options

    def summary(self) -> dict[str, Any]:
        return {"lines": self.lines}

    def render(self, console: Any) -> None:
        console.print(f"{self.lines} lines")

    def exit_code(self) -> int:
        return 0


class LineScorer:
    def score(self, path: Path, options: ScoreOptions) -> LineReport:
        return LineReport(len(path.read_text().splitlines()), options)


@pytest.fixture
def line_scorer() -> Iterator[None]:
    SCORERS.add("line-count", LineScorer())
    yield
    SCORERS.remove("line-count")


def test_a_registered_scorer_scores_its_format(tmp_path: Path, line_scorer: None) -> None:
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("{}\n{}\n{}\n")
    questions = tmp_path / "q.json"
    assert "line-count" in scorer_names()
    report = runs.score(outputs, fmt="line-count", questions=questions, strict_empty_turns=True)
    assert isinstance(report, OutputReport) and isinstance(report, LineReport)
    assert report.summary() == {"lines": 3}
    assert report.options == ScoreOptions(questions=questions, strict_empty_turns=True)
    with pytest.raises(ConfigError, match="not for line-count outputs"):
        runs.score(outputs, fmt="line-count", suite="demo")


def test_bfcl_outputs_are_scored_by_the_scorer_its_package_registers() -> None:
    origins = {e.name: e.origin for e in SCORERS.entries()}
    assert origins["bfcl"] == "sessionproof"
    assert "bfcl" in SCORE_FORMATS
    with pytest.raises(ConfigError, match="--format bfcl needs --questions and --answers"):
        runs.score(Path("outputs.jsonl"), fmt="bfcl")
