"""Running one fuzz case in this process through the real CLI, and classifying what happened.

Outcome classes:
- `clean_error`: a named `SessionproofError` (what `sessionproof` prints as one `error:` line
  and exits 2 on) or a usage error from the option parser;
- `partial`: exit 1, some records skipped, each named on the output;
- `accepted`: exit 0;
- `traceback`: any other exception (or a traceback printed), the failure class;
- `hang`: the case ran past its time limit (decided by the pool, not here).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from typer.testing import CliRunner

import sessionproof
from sessionproof.cli._internal import app
from sessionproof.errors import SessionproofError

from . import hostile
from ._cases import Case

OUTCOMES = ("clean_error", "partial", "accepted", "traceback", "hang")
"""Every outcome class, failures last."""
FAILURES = ("traceback", "hang")

_SRC = str(Path(sessionproof.__file__).resolve().parent.parent) + os.sep
"""Frames under this folder are ours (the installed or checked-out `src/`)."""
_NAMED = re.compile(r'skipped|not judged|"input_error_lines": \[\s*\d')
"""How each front end names a record it left out (tables, stderr lines, BFCL's JSON)."""


@dataclass
class CaseResult:
    """What one case did; `signature` names a failure for de-duplication."""

    kind: str
    index: int
    outcome: str
    seconds: float
    description: str
    signature: str | None = None
    where: str | None = None
    """Innermost sessionproof frame (file:line in function) of a traceback."""
    message: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data, to cross a process pipe."""
        return asdict(self)


def _innermost(tb: TracebackType | None) -> tuple[str, str]:
    """(signature frame "module.py:function", full "path:line in function") in our code."""
    frames = traceback.extract_tb(tb)
    ours = [f for f in frames if str(Path(f.filename).resolve()).startswith(_SRC)]
    frame = ours[-1] if ours else (frames[-1] if frames else None)
    if frame is None:
        return "?", "?"
    path = str(Path(frame.filename).resolve())
    short = path[len(_SRC) :] if path.startswith(_SRC) else frame.filename
    short = short.removeprefix("sessionproof" + os.sep)
    return f"{short}:{frame.name}", f"{short}:{frame.lineno} in {frame.name}"


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:limit]


def failure(case: Case, exc: BaseException, seconds: float) -> CaseResult:
    """A traceback result for an exception that escaped the CLI."""
    frame, where = _innermost(exc.__traceback__)
    try:
        text = str(exc)
    except Exception as inner:  # an exception whose own message cannot be rendered
        text = f"<str() raised {type(inner).__name__}>"
    return CaseResult(
        kind=case.kind,
        index=case.index,
        outcome="traceback",
        seconds=seconds,
        description=case.describe(),
        signature=f"{type(exc).__name__} at {frame}",
        where=where,
        message=_first_line(text),
    )


def _invoke(case: Case) -> CaseResult:
    result = _classify(case)
    if case.hostile_seed is not None:
        # The step that broke is the agent's last one: show the last few it took.
        did = hostile.behaviours()
        result.description += f" | agent did: {', '.join(did[-3:]) or 'nothing'}"
        if len(did) > 3:
            result.description += f" (after {len(did) - 3} earlier steps)"
    return result


def _classify(case: Case) -> CaseResult:
    started = time.perf_counter()
    if case.hostile_seed is not None:
        hostile.configure(case.hostile_seed)
    try:
        result = CliRunner().invoke(app, case.argv, catch_exceptions=True)
    except BaseException as escaped:  # CancelledError and friends get past CliRunner too
        return failure(case, escaped, time.perf_counter() - started)
    seconds = time.perf_counter() - started
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        if isinstance(exc, SessionproofError):
            message = str(exc)
            note = "multi-line message" if "\n" in message.strip() else None
            return CaseResult(
                case.kind,
                case.index,
                "clean_error",
                seconds,
                case.describe(),
                message=f"{type(exc).__name__}: {_first_line(message)}",
                note=note,
            )
        return failure(case, exc, seconds)
    text = result.stdout + result.stderr
    if "Traceback (most recent call last)" in text:
        return CaseResult(
            case.kind,
            case.index,
            "traceback",
            seconds,
            case.describe(),
            signature="traceback printed on the output",
            message=_first_line(text[text.index("Traceback") :]),
        )
    code = result.exit_code
    if code == 0:
        note = _silent_drop(case, result.stderr)
        return CaseResult(case.kind, case.index, "accepted", seconds, case.describe(), note=note)
    if code == 1:
        named = _NAMED.search(text) is not None
        return CaseResult(
            case.kind,
            case.index,
            "partial",
            seconds,
            case.describe(),
            message=_first_line(result.stderr or result.stdout),
            note=None if named else "exit 1 without naming a skipped record",
        )
    if code == 2:  # the option parser's usage error
        return CaseResult(
            case.kind,
            case.index,
            "clean_error",
            seconds,
            case.describe(),
            message=_first_line(result.stderr or result.stdout),
        )
    return CaseResult(
        case.kind,
        case.index,
        "traceback",
        seconds,
        case.describe(),
        signature=f"unexpected exit code {code}",
        message=_first_line(text),
    )


_ANTHROPIC_BLOCKS = frozenset({"text", "tool_use", "tool_result", "thinking", "redacted_thinking"})


def _silent_drop(case: Case, stderr: str) -> str | None:
    """A note when an Anthropic log with a block of an unknown type was accepted without a
    word about it (the block's content is lost). Not a failure class: an observation."""
    if case.kind != "anthropic" or "warning" in stderr:
        return None
    for line in case.files.get("log.jsonl", b"").splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # the harness must not trip on what it made
            continue
        messages = record.get("messages") if isinstance(record, dict) else None
        for message in messages if isinstance(messages, list) else []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                kind = block.get("type") if isinstance(block, dict) else None
                if isinstance(block, dict) and not (
                    isinstance(kind, str) and kind in _ANTHROPIC_BLOCKS
                ):
                    return "unknown Anthropic block type accepted without a warning"
    return None


def run_case(case: Case, base: str | None = None) -> CaseResult:
    """Write the case's files in a fresh temporary directory (under `base` when given), run
    it there, classify it."""
    home = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="sessionproof-fuzz-", dir=base) as tmp:
        os.chdir(tmp)
        try:
            for name, data in case.files.items():
                Path(name).write_bytes(data)
            return _invoke(case)
        finally:
            os.chdir(home)
