"""Score a file of decoded model outputs against BFCL questions, one verdict per line."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ...errors import ForeignJSONError, InputFileError
from ...importers._internal import load_json
from ._data import BAD_QUESTION, UnjudgeableQuestion, compile_question, load_questions, read_bytes
from ._match import BfclVerdict, QuestionRule
from ._mt_data import is_multi_turn_file
from ._mt_score import MultiTurnMatcher, MultiTurnRule, MultiTurnVerdict
from ._output import AtomicOutput, refuse_input_as_output

INPUT_ERROR = "input_error:"
"""Prefix of the error types that blame the input line, not the model. Such lines are counted
apart (`input_errors`) and left out of every accuracy."""

_OURS = (
    "id",
    "valid",
    "error_type",
    "error",
    "category",
    "greedy_valid",
    "assignment",
    "turns_valid",
)


class CategoryScore(BaseModel):
    """Verdict counts of one BFCL category."""

    model_config = ConfigDict(extra="forbid")

    n: int = 0
    """Judged lines (input errors excluded)."""
    valid: int = 0
    error_types: dict[str, int] = Field(default_factory=dict)
    greedy_valid: int = 0
    """Lines BFCL's first-match-wins matcher would accept."""
    optimal_not_greedy: list[str] = Field(default_factory=list)
    """Ids accepted by the optimal pairing but rejected by BFCL's greedy matcher."""

    @property
    def accuracy(self) -> float | None:
        """Share of judged lines that are valid (None when nothing was judged)."""
        return self.valid / self.n if self.n else None


class BfclScore(BaseModel):
    """What `score_bfcl_file` found: per-category counts and the input problems."""

    model_config = ConfigDict(extra="forbid")

    lines: int = 0
    categories: dict[str, CategoryScore] = Field(default_factory=dict)
    input_errors: dict[str, int] = Field(default_factory=dict)
    """Lines not judged, by error type (bad JSON, unknown id...)."""
    input_error_lines: list[int] = Field(default_factory=list)
    """1-based line numbers of those lines (the first 100)."""
    broken_questions: dict[str, str] = Field(default_factory=dict)
    """Questions of the questions file that cannot be judged, by id, and why (a malformed
    function document); their lines are `input_error:bad_question`."""


class BfclMatcher:
    """Questions compiled once, then any number of outputs judged against them."""

    def __init__(self, questions: Path | str, answers: Path | str | None) -> None:
        self.rules: dict[str, QuestionRule | UnjudgeableQuestion] = {}
        for qid, question in load_questions(questions, answers).items():
            try:
                self.rules[qid] = compile_question(question)
            except UnjudgeableQuestion as exc:
                self.rules[qid] = exc

    def judge(self, question_id: str, output: Any) -> BfclVerdict:
        """The verdict on `output` for question `question_id` (input errors included)."""
        rule = self.rules.get(question_id)
        if rule is None:
            return _input_error("unknown_id", f"no question with id {question_id!r}")
        if isinstance(rule, UnjudgeableQuestion):
            return BfclVerdict(
                valid=False, error_type=rule.error_type, error=str(rule), greedy_valid=False
            )
        return rule.judge(output)


AnyMatcher = BfclMatcher | MultiTurnMatcher
"""A single-call or a multi-turn matcher (same `rules` and `judge`)."""


def _input_error(kind: str, message: str) -> BfclVerdict:
    return BfclVerdict(
        valid=False, error_type=INPUT_ERROR + kind, error=message, greedy_valid=False
    )


def _row(matcher: AnyMatcher, line: bytes) -> tuple[dict[str, Any], BfclVerdict, str | None]:
    try:
        record = load_json(line)
    except ForeignJSONError as exc:
        return {}, _input_error("bad_json", f"the line is {exc}"), None
    if not isinstance(record, dict):
        return {}, _input_error("not_an_object", "a line must be a JSON object"), None
    qid = record.get("id")
    if not isinstance(qid, str):
        return record, _input_error("missing_id", "the line has no string `id`"), None
    rule = matcher.rules.get(qid)
    category = rule.category if isinstance(rule, QuestionRule | MultiTurnRule) else None
    if "model_output_decoded" not in record:
        return record, _input_error("missing_output", "no `model_output_decoded`"), category
    return record, matcher.judge(qid, record["model_output_decoded"]), category


def _out_line(record: dict[str, Any], verdict: BfclVerdict, category: str | None) -> bytes:
    out: dict[str, Any] = {
        "id": record.get("id"),
        "valid": verdict.valid,
        "error_type": verdict.error_type,
        "error": verdict.error,
        "category": category,
        "greedy_valid": verdict.greedy_valid,
        "assignment": verdict.assignment,
    }
    if isinstance(verdict, MultiTurnVerdict):
        out["turns_valid"] = verdict.turns_valid
    for key, value in record.items():
        # The input's own fields ride along; a clash with ours keeps both under a new name.
        out[f"input_{key}" if key in _OURS and key != "id" else key] = value
    return orjson.dumps(out)


def score_bfcl_file(
    path: Path,
    questions: Path,
    answers: Path,
    output: Path | None = None,
    *,
    strict_empty_turns: bool = False,
) -> BfclScore:
    """Judge every line `{"id", "model_output_decoded", ...}` of `path`.

    Writes one line per input line to `output` when given: `{"id", "valid", "error_type",
    "error", "category", "greedy_valid", "assignment", ...the input's fields}`, atomically (a
    temporary file beside it, renamed over it when complete). A broken line gets an
    `input_error:*` verdict and the rest are still judged. Raises `ConfigError` when `output`
    is one of the input files, `InputFileError` when a file cannot be read or written, holds
    no model output, or a question/answer file is malformed.

    A multi-turn questions file (its entries have `initial_config`) is judged with BFCL's
    multi-turn checker semantics: `model_output_decoded` is [turn][step][call string], and
    each output line also carries `turns_valid`. `strict_empty_turns` also fails a call made
    in a turn whose gold is empty (BFCL 2026.3.23 does not check that).
    """
    if output is not None:
        refuse_input_as_output(output, [path, questions, answers])
    raw = read_bytes(path)
    rows = [(n, line) for n, line in enumerate(raw.splitlines(), start=1) if line.strip()]
    if not rows:
        raise InputFileError(f"no model outputs in {path}: the file is empty")
    matcher: AnyMatcher
    if is_multi_turn_file(questions):
        matcher = MultiTurnMatcher(questions, answers, strict_empty_turns=strict_empty_turns)
    else:
        matcher = BfclMatcher(questions, answers)
    lines = 0
    errors: Counter[str] = Counter()
    error_lines: list[int] = []
    # Plain counters in the loop: assigning to pydantic fields per line costs more than judging.
    tallies: dict[str, list[int]] = {}  # category -> [n, valid, greedy_valid]
    per_type: dict[str, Counter[str]] = {}
    differs: dict[str, list[str]] = {}
    sink = AtomicOutput(output) if output is not None else None
    try:
        for number, line in rows:
            lines += 1
            record, verdict, category = _row(matcher, line)
            etype = verdict.error_type
            if etype is not None and etype.startswith(INPUT_ERROR):
                errors[etype] += 1
                if len(error_lines) < 100:
                    error_lines.append(number)
                if not record:
                    record = {"line": number}
            else:
                cat = category or "unknown"
                tally = tallies.get(cat)
                if tally is None:
                    tally = tallies[cat] = [0, 0, 0]
                    per_type[cat] = Counter()
                    differs[cat] = []
                tally[0] += 1
                tally[1] += verdict.valid
                tally[2] += verdict.greedy_valid
                if etype is not None:
                    per_type[cat][etype] += 1
                if verdict.valid != verdict.greedy_valid:
                    differs[cat].append(str(record.get("id")))
            if sink is not None:
                sink.write(_out_line(record, verdict, category) + b"\n")
    except BaseException:
        if sink is not None:
            sink.discard()
        raise
    if sink is not None:
        sink.commit()
    return BfclScore(
        lines=lines,
        categories={
            cat: CategoryScore(
                n=n,
                valid=valid,
                greedy_valid=greedy,
                error_types=dict(per_type[cat].most_common()),
                optimal_not_greedy=differs[cat],
            )
            for cat, (n, valid, greedy) in sorted(tallies.items())
        },
        input_errors=dict(errors.most_common()),
        input_error_lines=error_lines,
        broken_questions={
            qid: str(rule)
            for qid, rule in matcher.rules.items()
            if isinstance(rule, UnjudgeableQuestion) and rule.error_type == BAD_QUESTION
        },
    )
