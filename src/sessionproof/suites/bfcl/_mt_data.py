"""BFCL multi-turn question and possible-answer files, and the function documents.

A multi-turn question is `{"id", "question": [turn][messages], "initial_config",
"involved_classes", "missed_function"?}`; its possible answer `{"id", "ground_truth": [turn]
[call strings]}`. The shipped files and function documents are read from the installed
bfcl-eval (`--suite bfcl:multi_turn_*`); `score --format bfcl` reads the files it is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...errors import InputFileError, UnknownSuiteError
from ._data import category_of, read_bytes, read_json_lines
from ._mt_package import CLASS_MODULES, MULTI_TURN_CATEGORIES, data_dir

MULTI_TURN_KEYS = ("initial_config", "involved_classes")
"""Keys only a multi-turn question has."""


class MultiTurnQuestion(BaseModel):
    """One BFCL multi-turn entry with its possible answer."""

    model_config = ConfigDict(extra="forbid")

    id: str
    category: str
    turns: list[list[dict[str, Any]]]
    """Each turn's user messages (empty at a miss_func turn where functions come back)."""
    initial_config: dict[str, Any] = Field(default_factory=dict)
    involved_classes: list[str]
    missed_function: dict[int, list[str]] = Field(default_factory=dict)
    """miss_func: turn index → functions held back until that turn."""
    ground_truth: list[list[str]] | None = None
    """Gold call strings per turn; an empty list: the model should not act in that turn."""

    def entry(self) -> dict[str, Any]:
        """What the checker reads of the question (BFCL's field names)."""
        return {
            "id": self.id,
            "initial_config": self.initial_config,
            "involved_classes": self.involved_classes,
        }


def is_multi_turn_file(path: Path | str) -> bool:
    """True when the first question of a BFCL questions file is a multi-turn one."""
    for _, row in read_json_lines(path, _first_line(path)):
        return isinstance(row, dict) and any(k in row for k in MULTI_TURN_KEYS)
    return False


def _first_line(path: Path | str) -> bytes:
    text = read_bytes(path)
    for line in text.splitlines():
        if line.strip():
            return line
    return b""


def _answers(path: Path | str, text: bytes | None = None) -> dict[str, list[list[str]]]:
    found: dict[str, list[list[str]]] = {}
    for number, row in read_json_lines(path, text):
        where = f"{path}:{number}"
        truth = row.get("ground_truth") if isinstance(row, dict) else None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise InputFileError(f"{where}: a possible answer needs a string `id`")
        if not isinstance(truth, list) or not all(
            isinstance(t, list) and all(isinstance(c, str) for c in t) for t in truth
        ):
            raise InputFileError(f"{where}: a multi-turn `ground_truth` is [turn][call string]")
        found[row["id"]] = truth
    return found


def _question(where: str, row: Any, truth: list[list[str]] | None) -> MultiTurnQuestion:
    if not isinstance(row, dict) or not isinstance(row.get("id"), str):
        raise InputFileError(f"{where}: a question needs a string `id`")
    turns = row.get("question")
    if not isinstance(turns, list) or not all(isinstance(t, list) for t in turns):
        raise InputFileError(f"{where}: a multi-turn `question` is [turn][message]")
    classes = row.get("involved_classes")
    if not isinstance(classes, list) or not all(c in CLASS_MODULES for c in classes):
        raise InputFileError(
            f"{where}: `involved_classes` must name BFCL multi-turn classes "
            f"({', '.join(CLASS_MODULES)})"
        )
    config = row.get("initial_config") or {}
    missed = row.get("missed_function") or {}
    if not isinstance(config, dict) or not isinstance(missed, dict):
        raise InputFileError(f"{where}: `initial_config` and `missed_function` are objects")
    try:
        held = {int(k): [str(f) for f in v] for k, v in missed.items()}
    except (TypeError, ValueError):
        raise InputFileError(f"{where}: `missed_function` maps turn numbers to names") from None
    return MultiTurnQuestion(
        id=row["id"],
        category=category_of(row["id"]),
        turns=[[m for m in t if isinstance(m, dict)] for t in turns],
        initial_config=config,
        involved_classes=classes,
        missed_function=held,
        ground_truth=truth,
    )


def load_multi_turn(
    questions: Path | str,
    answers: Path | str | None,
    *,
    questions_text: bytes | None = None,
    answers_text: bytes | None = None,
) -> dict[str, MultiTurnQuestion]:
    """Multi-turn questions by id, each with its possible answer when `answers` has one.

    Raises `InputFileError` for an unreadable or malformed file (with the line).
    """
    truths = _answers(answers, answers_text) if answers is not None else {}
    found: dict[str, MultiTurnQuestion] = {}
    for number, row in read_json_lines(questions, questions_text):
        question = _question(f"{questions}:{number}", row, None)
        found[question.id] = question.model_copy(update={"ground_truth": truths.get(question.id)})
    return found


def packaged_multi_turn(category: str) -> dict[str, MultiTurnQuestion]:
    """The installed bfcl-eval's questions of a multi-turn category, with their answers."""
    if category not in MULTI_TURN_CATEGORIES:
        raise UnknownSuiteError(
            f"unknown BFCL multi-turn category {category!r}; known: "
            + ", ".join(MULTI_TURN_CATEGORIES)
        )
    data = data_dir()
    name = f"BFCL_v4_{category}.json"
    questions = data.joinpath(name)
    answers = data.joinpath("possible_answer").joinpath(name)
    return load_multi_turn(
        f"bfcl_eval/data/{name}",
        f"bfcl_eval/data/possible_answer/{name}",
        questions_text=questions.read_bytes(),
        answers_text=answers.read_bytes(),
    )


_DOCS: dict[str, list[dict[str, Any]]] = {}


def function_docs(class_name: str) -> list[dict[str, Any]]:
    """BFCL's function documents of one class, from the installed package (read once)."""
    docs = _DOCS.get(class_name)
    if docs is None:
        path = (
            data_dir().joinpath("multi_turn_func_doc").joinpath(f"{CLASS_MODULES[class_name]}.json")
        )
        rows = read_json_lines(f"multi_turn_func_doc/{path.name}", path.read_bytes())
        docs = _DOCS[class_name] = [r for _, r in rows if isinstance(r, dict)]
    return docs
