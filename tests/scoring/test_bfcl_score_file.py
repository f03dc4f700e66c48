"""`score_bfcl_file` and the `score --format bfcl` command on real BFCL data and broken input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sessionproof.suites.bfcl as bfcl
from sessionproof.cli._score_outputs import score_outputs_command
from sessionproof.errors import InputFileError
from sessionproof.suites.bfcl._internal import INPUT_ERROR, score_bfcl_file

DATA = Path(bfcl.__file__).parent / "data"
Q = DATA / "BFCL_v4_parallel.json"
A = DATA / "possible_answer" / "BFCL_v4_parallel.json"
VERDICTS = Path(__file__).parents[1] / "fixtures" / "bfcl" / "bfcl_ast_checker_verdicts.jsonl"


def _real_rows(category: str, limit: int) -> list[dict[str, Any]]:
    rows = []
    with VERDICTS.open() as handle:
        for line in handle:
            row = json.loads(line)
            if row["category"] == category:
                rows.append(
                    {
                        "id": row["id"],
                        "model_output_decoded": row["model_output_decoded"],
                        "variant": row["variant"],
                        "bfcl_valid": row["bfcl_valid"],
                    }
                )
            if len(rows) == limit:
                break
    return rows


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_scores_real_outputs_and_passes_input_fields_through(tmp_path: Path) -> None:
    rows = _real_rows("parallel", 120)
    src = _write(tmp_path / "in.jsonl", [json.dumps(r) for r in rows])
    out = tmp_path / "out.jsonl"
    score = score_bfcl_file(src, Q, A, out)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(written) == len(rows) == score.lines
    for row, verdict in zip(rows, written, strict=True):
        assert verdict["id"] == row["id"]
        assert verdict["variant"] == row["variant"]
        assert verdict["model_output_decoded"] == row["model_output_decoded"]
        assert verdict["valid"] == row["bfcl_valid"]
        assert verdict["category"] == "parallel"
        assert (verdict["error_type"] is None) == verdict["valid"]
    cat = score.categories["parallel"]
    assert cat.n == len(rows)
    assert cat.valid == sum(r["bfcl_valid"] for r in rows)
    assert sum(cat.error_types.values()) == cat.n - cat.valid


def test_broken_lines_get_their_own_verdict_and_the_rest_is_scored(tmp_path: Path) -> None:
    good = _real_rows("parallel", 3)
    lines = [
        json.dumps(good[0]),
        '{"id": "parallel_0", "model_output_decoded": [',  # truncated
        "[1, 2]",
        json.dumps({"model_output_decoded": []}),
        json.dumps({"id": "parallel_99999", "model_output_decoded": []}),
        json.dumps({"id": "parallel_1"}),
        json.dumps({"id": "parallel_2", "model_output_decoded": "get_weather(city='x')"}),
        "",
        json.dumps(good[1]),
    ]
    src = _write(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    score = score_bfcl_file(src, Q, A, out)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    types = [w["error_type"] for w in written]
    assert types[1:6] == [
        INPUT_ERROR + "bad_json",
        INPUT_ERROR + "not_an_object",
        INPUT_ERROR + "missing_id",
        INPUT_ERROR + "unknown_id",
        INPUT_ERROR + "missing_output",
    ]
    assert written[1]["line"] == 2 and written[1]["id"] is None
    assert types[6] == "ast_decoder:decoder_wrong_output_format"
    assert written[0]["valid"] == good[0]["bfcl_valid"]
    assert written[7]["valid"] == good[1]["bfcl_valid"]
    # Input errors are counted apart; the model-format error is a judged failure.
    assert sum(score.input_errors.values()) == 5
    assert score.input_error_lines == [2, 3, 4, 5, 6]
    assert score.categories["parallel"].n == 3


def test_colliding_input_fields_are_kept_under_a_new_name(tmp_path: Path) -> None:
    row = {**_real_rows("parallel", 1)[0], "valid": "theirs", "error": "theirs too"}
    src = _write(tmp_path / "in.jsonl", [json.dumps(row)])
    out = tmp_path / "out.jsonl"
    score_bfcl_file(src, Q, A, out)
    (written,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert isinstance(written["valid"], bool)
    assert written["input_valid"] == "theirs" and written["input_error"] == "theirs too"


def test_unreadable_files_raise_one_clear_error(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", [json.dumps(_real_rows("parallel", 1)[0])])
    with pytest.raises(InputFileError, match="cannot read"):
        score_bfcl_file(tmp_path / "nope.jsonl", Q, A)
    with pytest.raises(InputFileError, match="cannot read"):
        score_bfcl_file(src, tmp_path / "q.json", A)
    with pytest.raises(InputFileError, match="cannot write"):
        score_bfcl_file(src, Q, A, tmp_path / "no" / "such" / "dir" / "out.jsonl")


def test_malformed_question_or_answer_files_name_the_line(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", [json.dumps(_real_rows("parallel", 1)[0])])
    bad_q = _write(tmp_path / "q.json", [Q.read_text().splitlines()[0], "{not json"])
    with pytest.raises(InputFileError, match=r"q\.json:2: not JSON"):
        score_bfcl_file(src, bad_q, A)
    bad_a = _write(tmp_path / "a.json", [json.dumps({"id": "parallel_0", "ground_truth": [1]})])
    with pytest.raises(InputFileError, match=r"a\.json:1: .*ground-truth call"):
        score_bfcl_file(src, Q, bad_a)
    bad_args = _write(
        tmp_path / "a2.json", [json.dumps({"id": "parallel_0", "ground_truth": [{"f": {"x": 1}}]})]
    )
    with pytest.raises(InputFileError, match="list of acceptable values"):
        score_bfcl_file(src, Q, bad_args)


def test_question_without_possible_answer_is_an_input_error(tmp_path: Path) -> None:
    rows = [r for r in _real_rows("parallel", 30) if r["variant"] == "oracle_full"][:2]
    assert [r["id"] for r in rows] == ["parallel_0", "parallel_1"]
    answers = _write(tmp_path / "a.json", [A.read_text().splitlines()[0]])  # parallel_0 only
    src = _write(tmp_path / "in.jsonl", [json.dumps(r) for r in rows])
    score = score_bfcl_file(src, Q, answers)
    assert score.input_errors == {INPUT_ERROR + "no_possible_answer": 1}
    assert score.categories["parallel"].n == 1


def test_command_prints_a_json_summary_and_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _real_rows("parallel", 60)
    rows.append(
        next(
            r
            for r in _real_rows("parallel", 2000)
            if r["id"] == "parallel_178" and r["variant"] == "reversed_order"
        )
    )
    src = _write(tmp_path / "in.jsonl", [json.dumps(r) for r in rows])
    code = score_outputs_command(src, "bfcl", Q, A, tmp_path / "out.jsonl", as_json=True)
    summary = json.loads(capsys.readouterr().out)
    assert code == 0
    par = summary["categories"]["parallel"]
    assert par["n"] == len(rows)
    assert par["optimal_not_greedy"] == ["parallel_178"]
    assert par["accuracy"] == pytest.approx(par["valid"] / par["n"])
    assert par["greedy_accuracy"] == pytest.approx((par["valid"] - 1) / par["n"])
    assert par["ci95"][0] < par["accuracy"] < par["ci95"][1]


def test_command_table_and_input_error_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = _write(tmp_path / "in.jsonl", [json.dumps(_real_rows("parallel", 1)[0]), "oops"])
    code = score_outputs_command(src, "bfcl", Q, A, None, as_json=False)
    printed = capsys.readouterr().out
    assert code == 1
    assert "parallel" in printed and "bad_json" in printed
