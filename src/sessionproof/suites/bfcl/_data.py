"""BFCL question and possible-answer files (JSON Lines despite their `.json` names)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ForeignJSONError, InputFileError, UnknownSuiteError
from ...importers._internal import load_json, without_bom
from ._match import CheckKind, QuestionRule, check_kind
from ._rules import CallRule

SUITE_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
"""BFCL v4 categories shipped as package data and runnable as `--suite bfcl:<category>`."""


class BfclQuestion(BaseModel):
    """One BFCL single-call question with its possible answer."""

    model_config = ConfigDict(extra="forbid")

    id: str
    category: str
    """The id without its trailing `_<index>`, e.g. `parallel_multiple`."""
    messages: list[dict[str, Any]]
    """The first (only) turn of the question: `{"role", "content"}` messages."""
    functions: list[dict[str, Any]]
    """The function documents, in BFCL's own schema dialect (`dict`, `float`, `tuple`...)."""
    ground_truth: list[dict[str, Any]] | None = None
    """`[{function: {param: [acceptable values]}}]`; None for irrelevance (no call is right)."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Fields of the question record this loader does not interpret."""


def category_of(question_id: str) -> str:
    """`simple_python_12` → `simple_python`; `live_simple_3-2-1` → `live_simple`."""
    return question_id.rsplit("_", 1)[0] if "_" in question_id else question_id


BAD_QUESTION = "input_error:bad_question"
"""Error type of the lines whose question has a malformed function document."""


def read_bytes(path: Path | str) -> bytes:
    """A BFCL file's bytes as UTF-8 without a byte-order mark; `InputFileError` naming it."""
    try:
        return without_bom(Path(path).read_bytes())
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ForeignJSONError as exc:
        raise InputFileError(f"{path}: {exc}") from None


def read_json_lines(path: Path | str, text: bytes | None = None) -> list[tuple[int, Any]]:
    """Every non-blank line of a JSON Lines file, parsed, with its 1-based line number.

    Raises `InputFileError` naming the file and line when the file cannot be read or a line
    is not JSON or too deep (a reference file is used whole or not at all).
    """
    text = read_bytes(path) if text is None else without_bom(text)
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, load_json(line)))
        except ForeignJSONError as exc:
            raise InputFileError(f"{path}:{number}: {exc}") from None
    return rows


def _answers(path: Path | str, text: bytes | None = None) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for number, row in read_json_lines(path, text):
        where = f"{path}:{number}"
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise InputFileError(f"{where}: a possible answer needs a string `id`")
        truth = row.get("ground_truth")
        if not isinstance(truth, list):
            raise InputFileError(f"{where}: `ground_truth` must be a list")
        for call in truth:
            if not (isinstance(call, dict) and len(call) == 1):
                raise InputFileError(f"{where}: each ground-truth call is {{function: {{...}}}}")
            (args,) = call.values()
            if not isinstance(args, dict) or not all(isinstance(v, list) for v in args.values()):
                raise InputFileError(
                    f"{where}: each ground-truth argument maps to a list of acceptable values"
                )
        found[row["id"]] = truth
    return found


def load_questions(
    questions: Path | str,
    answers: Path | str | None,
    *,
    questions_text: bytes | None = None,
    answers_text: bytes | None = None,
) -> dict[str, BfclQuestion]:
    """Questions by id, each joined with its possible answer when `answers` has one.

    Raises `InputFileError` for an unreadable or malformed file (with the line).
    """
    truths = _answers(answers, answers_text) if answers is not None else {}
    found: dict[str, BfclQuestion] = {}
    for number, row in read_json_lines(questions, questions_text):
        where = f"{questions}:{number}"
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise InputFileError(f"{where}: a question needs a string `id`")
        qid = row["id"]
        turns = row.get("question")
        functions = row.get("function", [])
        if not isinstance(turns, list) or not isinstance(functions, list):
            raise InputFileError(f"{where}: `question` and `function` must be lists")
        first = turns[0] if turns and isinstance(turns[0], list) else turns
        if not all(isinstance(f, dict) and isinstance(f.get("name"), str) for f in functions):
            raise InputFileError(f"{where}: every function needs a string `name`")
        found[qid] = BfclQuestion(
            id=qid,
            category=category_of(qid),
            messages=[m for m in first if isinstance(m, dict)],
            functions=functions,
            ground_truth=truths.get(qid),
            extra={k: v for k, v in row.items() if k not in ("id", "question", "function")},
        )
    return found


class UnjudgeableQuestion(Exception):
    """A question the AST checker cannot judge; the message says why (for the verdict line)."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type


def function_problem(function: dict[str, Any]) -> str | None:
    """What is malformed in a BFCL function document's parameters (None when nothing is).

    `parameters` must be an object, its `properties` an object of objects, its `required` a
    list of names: anything else cannot be judged (and used to crash the checker).
    """
    name = function.get("name")
    parameters = function.get("parameters")
    if parameters is None:
        return None
    if not isinstance(parameters, dict):
        return f"function {name!r}: `parameters` must be an object, got {_kind(parameters)}"
    properties = parameters.get("properties")
    if properties is not None and not isinstance(properties, dict):
        return f"function {name!r}: `properties` must be an object, got {_kind(properties)}"
    for pname, schema in (properties or {}).items():
        if not isinstance(schema, dict):
            return f"function {name!r}: parameter {pname!r} must be an object, got {_kind(schema)}"
    required = parameters.get("required")
    if required is not None and not (
        isinstance(required, list) and all(isinstance(r, str) for r in required)
    ):
        return f"function {name!r}: `required` must be a list of names, got {_kind(required)}"
    return None


def _kind(value: object) -> str:
    return "a list" if isinstance(value, list) else type(value).__name__


def compile_question(question: BfclQuestion) -> QuestionRule:
    """The matcher for one question; raises `UnjudgeableQuestion` when it has none."""
    kind = check_kind(question.category)
    if kind is None:
        raise UnjudgeableQuestion(
            "input_error:unsupported_category",
            f"category {question.category!r} is not judged by the Python AST checker",
        )
    if kind in (CheckKind.irrelevance, CheckKind.relevance):
        return QuestionRule(question.id, question.category, kind, [])
    truth = question.ground_truth
    if not truth:
        raise UnjudgeableQuestion(
            "input_error:no_possible_answer", f"no possible answer for {question.id!r}"
        )
    for function in question.functions:
        problem = function_problem(function)
        if problem:
            raise UnjudgeableQuestion(BAD_QUESTION, f"question {question.id!r}: {problem}")
    by_name: dict[str, dict[str, Any]] = {}
    for function in question.functions:
        by_name.setdefault(function["name"], function)
    rules = []
    for index, call in enumerate(truth):
        ((name, answer),) = call.items()
        if kind is CheckKind.simple and index == 0:
            # BFCL's simple checker uses the question's first function, whatever the answer says.
            schema = question.functions[0] if question.functions else None
            rules.append(CallRule(schema["name"] if schema else name, schema, answer))
        else:
            rules.append(CallRule(name, by_name.get(name), answer))
    return QuestionRule(question.id, question.category, kind, rules)


def packaged_questions(category: str) -> dict[str, BfclQuestion]:
    """The shipped BFCL v4 questions (and answers) of one category.

    Raises `UnknownSuiteError` for a category that is not shipped.
    """
    if category not in SUITE_CATEGORIES:
        raise UnknownSuiteError(
            f"unknown BFCL category {category!r}; shipped: {', '.join(SUITE_CATEGORIES)}"
        )
    data = resources.files(__package__).joinpath("data")
    name = f"BFCL_v4_{category}.json"
    q_text = data.joinpath(name).read_bytes()
    answer = data.joinpath("possible_answer", name)
    a_text = answer.read_bytes() if answer.is_file() else None
    return load_questions(
        f"bfcl:{name}",
        f"bfcl:possible_answer/{name}" if a_text is not None else None,
        questions_text=q_text,
        answers_text=a_text,
    )
