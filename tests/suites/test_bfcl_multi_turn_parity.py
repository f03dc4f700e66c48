"""BFCL multi-turn verdicts equal BFCL's own checker's (tests/fixtures/bfcl_multi_turn/SOURCE.md).

The API classes come from the installed bfcl-eval; the verdicts are the anchor's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessionproof.suites.bfcl._internal import score_bfcl_file
from sessionproof.suites.bfcl._mt_check import check_multi_turn
from sessionproof.suites.bfcl._mt_data import is_multi_turn_file, load_multi_turn
from sessionproof.suites.bfcl._mt_exec import BfclWorld, call_string, parse_call

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bfcl_multi_turn"
CATEGORIES = ("multi_turn_base", "multi_turn_miss_param")


def _files(category: str) -> tuple[Path, Path]:
    name = f"BFCL_v4_{category}.json"
    return FIXTURES / name, FIXTURES / f"possible_answer_{name}"


def _verdicts(category: str) -> list[dict[str, Any]]:
    lines = (FIXTURES / "bfcl_multi_turn_checker_verdicts.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["category"] == category]


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_verdict_and_error_type_equals_bfcls(category: str) -> None:
    questions = load_multi_turn(*_files(category))
    rows = _verdicts(category)
    assert len(rows) > 40
    for row in rows:
        q = questions[row["id"]]
        assert q.ground_truth is not None
        verdict = check_multi_turn(q.entry(), q.ground_truth, row["model_output_decoded"])
        assert (verdict.valid, verdict.error_type) == (row["bfcl_valid"], row["bfcl_error_type"]), (
            row["id"],
            row["variant"],
            verdict.error,
        )


@pytest.mark.parametrize("category", CATEGORIES)
def test_score_file_accepts_multi_turn_results(category: str, tmp_path: Path) -> None:
    questions, answers = _files(category)
    assert is_multi_turn_file(questions)
    rows = _verdicts(category)
    given = tmp_path / "in.jsonl"
    given.write_text(
        "".join(
            json.dumps({"id": r["id"], "model_output_decoded": r["model_output_decoded"]}) + "\n"
            for r in rows
        )
    )
    out = tmp_path / "out.jsonl"
    score = score_bfcl_file(given, questions, answers, out)
    judged = [json.loads(line) for line in out.read_text().splitlines()]
    assert [j["valid"] for j in judged] == [r["bfcl_valid"] for r in rows]
    assert score.categories[category].valid == sum(r["bfcl_valid"] for r in rows)
    # Every turn of a valid session passed; a failing session has a failing turn.
    for line in judged:
        assert all(line["turns_valid"]) == line["valid"]


def test_strict_empty_turns_fails_calls_where_the_gold_is_empty() -> None:
    # BFCL 2026.3.23 lets a read-only call through in a clarification turn; the stricter
    # rule BFCL's unused irrelevance checker states fails it.
    questions = load_multi_turn(*_files("multi_turn_miss_param"))
    row = next(
        r
        for r in _verdicts("multi_turn_miss_param")
        if r["variant"] == "calls_in_clarification_turns"
    )
    q = questions[row["id"]]
    assert q.ground_truth is not None
    lax = check_multi_turn(q.entry(), q.ground_truth, row["model_output_decoded"])
    strict = check_multi_turn(
        q.entry(), q.ground_truth, row["model_output_decoded"], strict_empty_turns=True
    )
    assert lax.valid and row["bfcl_valid"]
    assert not strict.valid
    assert strict.error_type == "multi_turn:irrelevance_error:decoder_success"


def test_calls_parse_without_eval_and_run_on_bfcls_classes() -> None:
    q = load_multi_turn(*_files("multi_turn_base"))["multi_turn_base_0"]
    world = BfclWorld(q.involved_classes, q.initial_config)
    assert parse_call("sort('final_report.pdf')").args == ("final_report.pdf",)
    assert world.keyword_arguments("sort", ("a.pdf",), {}) == {"file_name": "a.pdf"}
    moved = json.dumps({"current_working_directory": "document"})
    assert world.execute("cd(folder='document')") == moved
    # What BFCL's eval would refuse or fail on is an error result, never code run.
    assert world.execute("__import__('os').system('true')").startswith("Error during execution: ")
    assert world.execute("exit()") == "Error during execution: Function call exit is not allowed."
    assert world.execute("nope(").startswith("Error during execution: ")
    expected = "mv(source='a', destination='b')"
    assert call_string("mv", {"source": "a", "destination": "b"}) == expected


def test_cli_strict_empty_turns_flag(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sessionproof.cli._internal import app

    questions, answers = _files("multi_turn_miss_param")
    rows = [
        r
        for r in _verdicts("multi_turn_miss_param")
        if r["variant"] == "calls_in_clarification_turns"
    ]
    given = tmp_path / "in.jsonl"
    given.write_text(
        "".join(
            json.dumps({"id": r["id"], "model_output_decoded": r["model_output_decoded"]}) + "\n"
            for r in rows
        )
    )
    valid = {}
    for flag in ([], ["--strict-empty-turns"]):
        out = tmp_path / f"out{len(flag)}.jsonl"
        args = ["score", str(given), "--format", "bfcl", "--questions", str(questions)]
        done = CliRunner().invoke(app, [*args, "--answers", str(answers), "-o", str(out), *flag])
        assert done.exit_code == 0, done.output
        valid[bool(flag)] = [json.loads(line)["valid"] for line in out.read_text().splitlines()]
    assert all(valid[False]) and len(valid[False]) == len(rows)
    assert not any(valid[True])
