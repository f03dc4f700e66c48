"""`score --format bfcl` on multi-turn result files: one BFCL verdict per line.

A line is `{"id", "model_output_decoded": [turn][step][call string], ...}`; its verdict is
BFCL's multi-turn checker's (`_mt_check`), with every turn's own verdict beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from ._match import BfclVerdict
from ._mt_check import check_multi_turn
from ._mt_data import MultiTurnQuestion, load_multi_turn

WRONG_FORMAT = "multi_turn:decoder_wrong_output_format"
NO_ANSWER = "input_error:no_ground_truth"


class MultiTurnVerdict(BfclVerdict):
    """A multi-turn verdict as the score file reports it: BFCL's, plus each turn's."""

    turns_valid: list[bool] = Field(default_factory=list)
    """Per turn: True when that turn passed BFCL's checks given the model's own history."""


class MultiTurnRule:
    """One multi-turn question ready to judge outputs."""

    def __init__(self, question: MultiTurnQuestion, *, strict_empty_turns: bool) -> None:
        self.question = question
        self.category = question.category
        self.strict_empty_turns = strict_empty_turns

    def judge(self, output: Any) -> BfclVerdict:
        """The verdict on one decoded output."""
        truth = self.question.ground_truth
        if truth is None:
            return _verdict(False, NO_ANSWER, f"no possible answer for {self.question.id!r}")
        if not _well_formed(output):
            return _verdict(
                False, WRONG_FORMAT, "model_output_decoded must be [turn][step][call string]"
            )
        found = check_multi_turn(
            self.question.entry(), truth, output, strict_empty_turns=self.strict_empty_turns
        )
        return MultiTurnVerdict(
            valid=found.valid,
            error_type=found.error_type,
            error=found.error,
            greedy_valid=found.valid,
            turns_valid=[t.valid for t in found.turns],
        )


def _verdict(valid: bool, error_type: str, error: str) -> BfclVerdict:
    return BfclVerdict(valid=valid, error_type=error_type, error=error, greedy_valid=valid)


def _well_formed(output: Any) -> bool:
    return type(output) is list and all(
        type(turn) is list
        and all(type(step) is list and all(type(c) is str for c in step) for step in turn)
        for turn in output
    )


class MultiTurnMatcher:
    """Multi-turn questions loaded once, then outputs judged against them (the same shape
    as `BfclMatcher`, so `score_bfcl_file` drives both)."""

    def __init__(
        self,
        questions: Path | str,
        answers: Path | str | None,
        *,
        strict_empty_turns: bool = False,
    ) -> None:
        self.rules: dict[str, MultiTurnRule] = {
            qid: MultiTurnRule(q, strict_empty_turns=strict_empty_turns)
            for qid, q in load_multi_turn(questions, answers).items()
        }

    def judge(self, question_id: str, output: Any) -> BfclVerdict:
        """The verdict on `output` for question `question_id`."""
        rule = self.rules.get(question_id)
        if rule is None:
            return _verdict(False, "input_error:unknown_id", f"no question with id {question_id!r}")
        return rule.judge(output)
