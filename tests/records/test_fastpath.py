"""`records._fastpath`: the private-state writer and its public fallback give the same
records and the same store rows, and the fallback is chosen when the layout is not the one
checked (or when `SESSIONPROOF_NO_FASTPATH=1`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from sessionproof.records import Message, ToolCall, _fastpath, _trusted

from ._rows import snapshot

ROOT = Path(__file__).resolve().parents[2]


def test_the_public_path_gives_the_same_records_and_store_rows(tmp_path: Path) -> None:
    fast = snapshot(tmp_path / "fast.db")
    assert fast["fast"] is True, "pydantic's instance layout changed: re-check records._fastpath"
    out = tmp_path / "public.json"
    env = {
        **os.environ,
        "SESSIONPROOF_NO_FASTPATH": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
    }
    subprocess.run(
        [sys.executable, "-m", "tests.records._rows", str(tmp_path / "public.db"), str(out)],
        cwd=ROOT,
        env=env,
        check=True,
    )
    public = json.loads(out.read_text(encoding="utf-8"))
    assert public["fast"] is False  # the fresh interpreter chose the public path at import
    assert len(fast["sessions"]) == len(public["sessions"]) > 100  # type: ignore[arg-type]
    assert fast["sessions"] == public["sessions"]
    assert set(fast["tables"]) == set(public["tables"])  # type: ignore[call-overload]
    for name, rows in fast["tables"].items():  # type: ignore[attr-defined]
        assert rows == public["tables"][name], name
    assert sum(len(rows) for rows in public["tables"].values()) > 1000


def test_the_public_path_in_process_builds_through_pydantics_api(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[type[BaseModel]] = []
    real = BaseModel.model_construct.__func__  # type: ignore[attr-defined]

    def spy(cls: type[BaseModel], *args: Any, **kwargs: Any) -> Any:
        seen.append(cls)
        return real(cls, *args, **kwargs)

    fields = {"role": "user", "content": "x", "tool_calls": [], "tool_call_id": None, "name": None}
    fast = _fastpath.instance(Message, dict(fields), {"role", "content"})
    monkeypatch.setattr(BaseModel, "model_construct", classmethod(spy))
    assert _fastpath.instance(Message, dict(fields), {"role", "content"}) is not fast
    assert seen == []  # the fast path does not call it
    monkeypatch.setattr(_fastpath, "ACTIVE", False)
    public = _fastpath.instance(Message, dict(fields), {"role", "content"})
    assert seen == [Message]
    assert public == fast and list(public.__dict__) == list(fast.__dict__)
    assert public.model_fields_set == fast.model_fields_set == {"role", "content"}


def test_the_inlined_writer_is_the_checked_one() -> None:
    fields = {"id": "c", "name": "n", "arguments": {"a": 1}}
    a = _fastpath.instance(ToolCall, dict(fields), {"id", "name"})
    b = _fastpath._write(ToolCall, dict(fields), {"id", "name"})
    assert a == b and a.__dict__ == b.__dict__ and a.model_fields_set == b.model_fields_set
    assert (a.__pydantic_extra__, a.__pydantic_private__) == (b.__pydantic_extra__, None)


def test_a_changed_layout_selects_the_public_path() -> None:
    assert _fastpath.layout_holds()

    def misses_fields_set(cls: Any, fields: dict[str, Any], fields_set: set[str]) -> Any:
        obj = object.__new__(cls)
        object.__setattr__(obj, "__dict__", fields)
        object.__setattr__(obj, "__pydantic_fields_set__", set(fields))  # not what was set
        object.__setattr__(obj, "__pydantic_extra__", None)
        object.__setattr__(obj, "__pydantic_private__", None)
        return obj

    def reordered(cls: Any, fields: dict[str, Any], fields_set: set[str]) -> Any:
        return _fastpath._write(cls, dict(reversed(list(fields.items()))), fields_set)

    def renamed_slot(cls: Any, fields: dict[str, Any], fields_set: set[str]) -> Any:
        obj = object.__new__(cls)
        object.__setattr__(obj, "__dict__", fields)
        object.__setattr__(obj, "__pydantic_fields_set_v3__", fields_set)
        return obj

    for write in (misses_fields_set, reordered, renamed_slot):
        assert not _fastpath.layout_holds(write), write.__name__


def test_the_environment_variable_turns_the_fast_path_off(tmp_path: Path) -> None:
    code = (
        "from sessionproof.records import _fastpath, _trusted, Message;"
        "print(_fastpath.ACTIVE, _trusted.ENABLED, _trusted.usable(Message))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for value, expect in (("1", "False False False"), ("", "True True True")):
        env["SESSIONPROOF_NO_FASTPATH"] = value
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.split() == expect.split(), value
    assert _trusted.ENABLED is True
