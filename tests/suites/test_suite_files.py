"""Reading a user's suite file: hostile YAML/JSON is refused fast, with the file and place."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sessionproof.errors import InputFileError
from sessionproof.suites import load_suite

ROOT = Path(__file__).resolve().parents[2]

HEAD = "- id: s1\n  domain: demo\n  user: {turns: [hi]}\n"


def _bomb(indent: str, levels: int = 9, width: int = 9) -> str:
    """`levels` anchors, each a list of `width` aliases of the one before: width**levels
    leaves once expanded, from a few hundred bytes."""
    lines = [f"{indent}a0: &a0 [{', '.join(['x'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"{indent}a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def _write(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _error(path: Path) -> str:
    with pytest.raises(InputFileError) as caught:
        load_suite(str(path))
    message = str(caught.value)
    assert str(path) in message
    assert "\n" not in message
    return message


# The load runs in a child with a memory cap and a timeout, so a missing fix costs a
# MemoryError (a failed test), not 10 GB of this machine's memory.
_CHILD = textwrap.dedent(
    """
    import resource, sys
    cap = 2_500_000_000
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    from sessionproof.errors import InputFileError
    from sessionproof.suites import load_suite
    try:
        suite = load_suite(sys.argv[1])
        suite.content_hash()
    except InputFileError as exc:
        print("REFUSED", exc)
    else:
        print("LOADED")
    """
)


@pytest.mark.parametrize(
    "text",
    [
        HEAD + "  metadata:\n" + _bomb("    "),
        "- id: s1\n  domain: demo\n  user: {turns: [hi]}\n  criteria:\n    gold_actions:\n"
        "      - tool: get_order\n        args:\n" + _bomb("          "),
    ],
    ids=["metadata", "gold-args"],
)
def test_an_alias_bomb_is_refused_without_expanding_it(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, text)
    assert path.stat().st_size < 1000
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("REFUSED"), proc.stdout + proc.stderr[-2000:]
    assert str(path) in proc.stdout and "alias" in proc.stdout


def test_a_few_aliases_still_work(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + "  metadata:\n" + _bomb("    ", levels=3, width=3))
    (scenario,) = load_suite(str(path)).scenarios
    assert scenario.metadata["a2"] == [[["x"] * 3] * 3] * 3


def test_a_recursive_alias_names_the_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + "  metadata: &m {a: [1, *m]}\n")
    message = _error(path)
    assert "recursive" in message and "line 4" in message


def test_deep_yaml_names_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + "  metadata: {a: " + "[" * 5000 + "]" * 5000 + "}\n")
    assert "nested deeper" in _error(path)


def test_deep_yaml_through_aliases_names_the_file(tmp_path: Path) -> None:
    chain = "".join(f"    b{i}: &b{i} [*b{i - 1}]\n" for i in range(1, 400))
    path = _write(tmp_path, HEAD + "  metadata:\n    b0: &b0 [x]\n" + chain)
    assert "nested deeper" in _error(path)


@pytest.mark.parametrize("depth", [600, 5000])
def test_deep_json_names_the_file(tmp_path: Path, depth: int) -> None:
    inner = "[" * depth + "]" * depth
    text = '[{"id": "s1", "domain": "demo", "user": {"turns": ["hi"]}, "metadata": {"a": '
    path = _write(tmp_path, text + inner + "}}]", "suite.json")
    assert "nested deeper" in _error(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- id: s1\n\tdomain: demo\n", "line 2"),
        ("- id: s1\n  domain: demo\n  user: {turns: [hi]\n", "line 4"),
        ("- id: s1\n  domain: demo\n---\n- id: s2\n", "line 3"),
    ],
    ids=["tab", "unclosed", "two-documents"],
)
def test_malformed_yaml_names_the_line(tmp_path: Path, text: str, expected: str) -> None:
    message = _error(_write(tmp_path, text))
    assert "not valid YAML" in message and expected in message


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, '[{"id": "s1",\n "domain": }]', "suite.json")
    message = _error(path)
    assert "not valid JSON" in message and "line 2" in message


def test_an_unknown_top_level_field_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, "scenarios:\n" + HEAD + "nmae: x\n")
    message = _error(path)
    assert "'nmae'" in message and "scenarios" in message


def test_a_mapping_without_scenarios_is_refused(tmp_path: Path) -> None:
    message = _error(_write(tmp_path, "name: mine\n"))
    assert "scenarios" in message


def test_wrong_type_names_scenario_field_and_line(tmp_path: Path) -> None:
    text = HEAD + "- id: s2\n  domain: demo\n  user: {turns: [hi]}\n  max_steps: lots\n"
    message = _error(_write(tmp_path, text))
    assert "scenario #1 (s2)" in message and "max_steps" in message and "line 4" in message


def test_json_wrong_type_names_scenario_and_field(tmp_path: Path) -> None:
    data = [{"id": "s1", "domain": "demo", "user": {"turns": "hi"}}]
    message = _error(_write(tmp_path, json.dumps(data), "suite.json"))
    assert "scenario #0 (s1)" in message and "user.turns" in message


@pytest.mark.parametrize(
    ("scalar", "tag"),
    [
        ("!!timestamp not-a-date", "timestamp"),
        ("!!int 12abc", "int"),
        ("!!float one", "float"),
        ("!!int 0x", "int"),
    ],
)
def test_a_tagged_scalar_that_does_not_parse_names_its_line(
    tmp_path: Path, scalar: str, tag: str
) -> None:
    message = _error(_write(tmp_path, HEAD + "  description: ok\n  metadata:\n    x: " + scalar))
    assert "not valid YAML" in message and "line 6" in message and tag in message


@pytest.mark.parametrize("char", ["\x12", "\x00", "\x7f", "\ufffe"])
def test_a_control_character_names_its_position(tmp_path: Path, char: str) -> None:
    path = tmp_path / "suite.yaml"
    path.write_bytes((HEAD + "  description: a" + char + "b\n").encode("utf-8"))
    message = _error(path)
    assert "not valid YAML" in message and "line 4" in message


def test_bytes_that_are_not_utf8_are_a_yaml_error(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_bytes(HEAD.encode() + b"  description: \xff\xfe\xfd\n")
    assert "not valid YAML" in _error(path)
