"""A chat log's `outcome` field: the obvious spellings read as a verdict (the README's "an
outcome of success" was refused), and any other value keeps the session unjudged with a
warning naming the accepted values, never as a failure (issue 34.15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionproof.importers import import_file

MESSAGES = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]

READS: list[tuple[object, bool, float | None]] = [
    ("success", True, 1.0),
    ("Success", True, 1.0),
    ("pass", True, 1.0),
    ("PASSED", True, 1.0),
    ("true", True, 1.0),
    ("1", True, 1.0),
    (" yes ", True, 1.0),
    ("failure", False, 0.0),
    ("fail", False, 0.0),
    ("false", False, 0.0),
    ("0", False, 0.0),
    ("0.5", False, 0.5),
    (True, True, 1.0),
    (False, False, 0.0),
    (1, True, 1.0),
    (0, False, 0.0),
    (0.25, False, 0.25),
    ({"success": "pass"}, True, None),  # an object's reward is its own, if it has one
    ({"success": "failure", "reward": 0.0}, False, 0.0),
    ({"reward": 1}, True, 1.0),
]

UNJUDGED: list[object] = ["maybe", "", "nan", [1], {"success": "perhaps"}, {"success": [1]}]


def _log(tmp_path: Path, outcomes: list[object]) -> Path:
    path = tmp_path / "log.jsonl"
    lines = [
        json.dumps({"id": f"s{i}", "messages": MESSAGES, "outcome": o})
        for i, o in enumerate(outcomes)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_obvious_spellings_read_as_a_verdict(tmp_path: Path) -> None:
    result = import_file(_log(tmp_path, [v for v, _, _ in READS]), "openai", run_id="r")
    assert result.errors == []
    got = [(i.reported.success, i.reported.reward) for i in result.sessions if i.reported]
    assert got == [(success, reward) for _, success, reward in READS]


@pytest.mark.parametrize("value", UNJUDGED, ids=repr)
def test_any_other_value_is_kept_unjudged_and_named(value: object, tmp_path: Path) -> None:
    result = import_file(_log(tmp_path, ["success", value]), "openai", run_id="r")
    assert [i.session.session_id for i in result.sessions] == ["s0", "s1"]
    judged, unjudged = result.sessions
    assert judged.reported is not None and judged.reported.success is True
    assert unjudged.reported is None and unjudged.session.outcome is None  # never a failure
    (warned,) = result.errors
    assert not warned.fatal and warned.index == 1 and warned.field == "outcome"
    assert warned.record_id == "s1" and "kept, not judged" in warned.message
    if not isinstance(value, dict):
        assert "success/failure" in warned.message  # the accepted values are named
