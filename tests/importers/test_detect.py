"""Format detection and the file-level errors of `import_file`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionproof.errors import ConfigError, InputFileError
from sessionproof.importers import detect_format, import_file

from ..suites.tau2._data import AIRLINE_GPT, anthropic_messages, load, openai_messages


def test_each_format_is_recognised() -> None:
    sim = load(AIRLINE_GPT)["simulations"][0]
    raw = AIRLINE_GPT.read_bytes()
    assert detect_format(raw) == "tau2"
    assert detect_format(raw[: len(raw) // 3]) == "tau2"  # cut short, still recognisable
    tb = json.dumps([{"task_id": 0, "info": {}, "traj": openai_messages(sim["messages"])}])
    assert detect_format(tb.encode()) == "tau-bench"
    assert (
        detect_format(json.dumps({"messages": openai_messages(sim["messages"])}).encode())
        == "openai"
    )
    assert (
        detect_format(json.dumps({"messages": anthropic_messages(sim["messages"])}).encode())
        == "anthropic"
    )


@pytest.mark.parametrize("content", [b"not json at all", b'{"hello": 1}', b"[1, 2, 3]", b"42"])
def test_unknown_content_needs_an_explicit_format(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(InputFileError, match="cannot tell the format"):
        import_file(path, "auto", run_id="r")


def test_file_level_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"  \n")
    with pytest.raises(InputFileError, match="empty"):
        import_file(empty, "tau2", run_id="r")
    with pytest.raises(InputFileError, match="cannot read"):
        import_file(tmp_path / "missing.json", "tau2", run_id="r")
    with pytest.raises(ConfigError, match="unknown format"):
        import_file(AIRLINE_GPT, "csv", run_id="r")


@pytest.mark.parametrize("kind", [{"a": 1}, ["tool_use"], None, 3])
def test_a_block_type_of_any_json_value_does_not_break_detection(kind: object) -> None:
    block = {"type": kind, "text": "hi"}
    line = {"messages": [{"role": "user", "content": [block]}]}
    assert detect_format(json.dumps(line).encode() + b"\n") == "openai"
    with_system = {**line, "system": "be brief"}
    assert detect_format(json.dumps(with_system).encode() + b"\n") == "anthropic"
