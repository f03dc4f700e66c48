"""`score --format bfcl` on hostile input: the output path is an input, a crash mid-write,
outputs nested deep, malformed function documents, byte-order marks, an empty file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sessionproof.suites.bfcl as bfcl
import sessionproof.suites.bfcl._score as score_module
from sessionproof.errors import ConfigError, InputFileError
from sessionproof.suites.bfcl._internal import INPUT_ERROR, bfcl_summary, score_bfcl_file

DATA = Path(bfcl.__file__).parent / "data"
Q = DATA / "BFCL_v4_simple_python.json"
A = DATA / "possible_answer" / "BFCL_v4_simple_python.json"
BOM = b"\xef\xbb\xbf"


def _rows(path: Path, n: int) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()[:n]]


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _oracle_outputs(n: int) -> list[dict[str, Any]]:
    """Outputs that give the first acceptable value of every argument of the first n answers."""
    out = []
    for answer in _rows(A, n):
        ((name, args),) = answer["ground_truth"][0].items()
        given = {k: v[0] for k, v in args.items() if v and v[0] != ""}
        out.append({"id": answer["id"], "model_output_decoded": [{name: given}]})
    return out


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )


@pytest.mark.slow
def test_output_that_is_an_input_file_is_refused_and_the_input_kept(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", _oracle_outputs(4))
    before = src.read_bytes()
    q = tmp_path / "q.json"
    q.write_bytes(Q.read_bytes())
    link = tmp_path / "link.jsonl"
    link.symlink_to(src)
    for target in (src, tmp_path / "." / "in.jsonl", link, q):
        with pytest.raises(ConfigError, match="is an input file"):
            score_bfcl_file(src, q, A, target)
    assert src.read_bytes() == before and q.read_bytes() == Q.read_bytes()
    done = _cli(
        "score", str(src), "--format", "bfcl", "--questions", str(q), "--answers", str(A),
        "-o", str(src),
    )  # fmt: skip
    assert done.returncode == 2, done.stdout
    assert "error:" in done.stderr and "Traceback" not in done.stderr
    assert src.read_bytes() == before


def test_a_crash_mid_write_leaves_the_old_output_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _write(tmp_path / "in.jsonl", _oracle_outputs(4))
    out = tmp_path / "out.jsonl"
    out.write_text("previous verdicts\n")
    real = score_module._out_line
    calls = 0

    def failing(*args: Any) -> bytes:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise RuntimeError("disk on fire")
        return real(*args)

    monkeypatch.setattr(score_module, "_out_line", failing)
    with pytest.raises(RuntimeError):
        score_bfcl_file(src, Q, A, out)
    assert out.read_text() == "previous verdicts\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]
    monkeypatch.setattr(score_module, "_out_line", real)
    score_bfcl_file(src, Q, A, out)
    assert [json.loads(line)["valid"] for line in out.read_text().splitlines()] == [True] * 4


def test_an_output_nested_deep_is_an_input_error_and_the_rest_written(tmp_path: Path) -> None:
    rows = _oracle_outputs(3)
    deep = '{"id": "simple_python_1", "model_output_decoded": ' + "[" * 900 + "]" * 900 + "}"
    src = tmp_path / "in.jsonl"
    src.write_text(f"{json.dumps(rows[0])}\n{deep}\n{json.dumps(rows[2])}\n")
    out = tmp_path / "out.jsonl"
    score = score_bfcl_file(src, Q, A, out)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [w["valid"] for w in written] == [True, False, True]
    assert written[1]["error_type"].startswith(INPUT_ERROR) and "deep" in written[1]["error"]
    assert score.input_error_lines == [2] and score.categories["simple_python"].n == 2


def test_malformed_parameters_cost_only_their_question(tmp_path: Path) -> None:
    questions = _rows(Q, 5)
    questions[1]["function"][0]["parameters"] = ["number"]
    questions[2]["function"][0]["parameters"]["properties"] = "x, y"
    questions[3]["function"][0]["parameters"]["required"] = "length"
    q = _write(tmp_path / "q.json", questions)
    src = _write(tmp_path / "in.jsonl", _oracle_outputs(5))
    score = score_bfcl_file(src, q, A)
    assert score.input_errors == {INPUT_ERROR + "bad_question": 3}
    assert score.input_error_lines == [2, 3, 4]
    assert score.categories["simple_python"].n == 2
    assert score.categories["simple_python"].valid == 2
    broken = bfcl_summary(score)["broken_questions"]
    assert set(broken) == {"simple_python_1", "simple_python_2", "simple_python_3"}
    assert "parameters" in broken["simple_python_1"] and "list" in broken["simple_python_1"]
    assert "properties" in broken["simple_python_2"]
    assert "required" in broken["simple_python_3"]


def test_byte_order_marks_are_accepted_in_every_bfcl_file(tmp_path: Path) -> None:
    src = _write(tmp_path / "in.jsonl", _oracle_outputs(4))
    plain = score_bfcl_file(src, Q, A)
    for name in ("in.jsonl", "q.json", "a.json"):
        original = {"in.jsonl": src, "q.json": Q, "a.json": A}[name]
        (tmp_path / f"bom-{name}").write_bytes(BOM + original.read_bytes())
    marked = score_bfcl_file(
        tmp_path / "bom-in.jsonl", tmp_path / "bom-q.json", tmp_path / "bom-a.json"
    )
    assert marked.input_errors == {}
    assert marked == plain and plain.categories["simple_python"].valid == 4


@pytest.mark.slow
def test_an_empty_outputs_file_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n  \n")
    out = tmp_path / "out.jsonl"
    with pytest.raises(InputFileError, match="no model outputs in"):
        score_bfcl_file(empty, Q, A, out)
    assert not out.exists()
    done = _cli("score", str(empty), "--format", "bfcl", "--questions", str(Q), "--answers", str(A))
    assert done.returncode == 2
    assert "no model outputs in" in done.stderr and "Traceback" not in done.stderr
