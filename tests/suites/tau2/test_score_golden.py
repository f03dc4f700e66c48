"""`score` + store gives exactly the stored rows, events and verdicts it gave before the
bulk-write speed-ups (issue 13): every column of every `sessions` and `events` row, the
report, and the judged sessions, digested per session and compared with a golden file.

The golden (`golden/score_store.json`) was written by the code before the speed-ups, on
the shared tau2 fixtures and on a retail file edited to hold what the fast paths must not
get wrong: secrets in every place a payload carries text (by shape, by configured value,
base64-encoded, behind a Kelvin sign), a lone surrogate, non-ASCII text, arguments that do
not parse, an unknown tool, an answer to no call, an integer beyond 64 bits (a session the
store refuses by name: that file is then written one session at a time), floats, and a
session id holding a key.

Rewrite it (only when a change of stored output is intended, and say so in the commit):
`SESSIONPROOF_REGEN_GOLDEN=1 pytest tests/suites/tau2/test_score_golden.py`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from sessionproof.suites._score import score_transcripts

from ._data import RETAIL_GPT, TRAJECTORIES, load

GOLDEN = Path(__file__).resolve().parent / "golden" / "score_store.json"
SECRET = "Zq8-configured-secret-41f0"
"""A configured credential (set in the environment), redacted by value wherever it shows."""
_REGEN = os.environ.get("SESSIONPROOF_REGEN_GOLDEN") == "1"


def _digest(value: Any) -> str:
    # The standard encoder: orjson refuses the integer beyond 64 bits a judged session holds.
    blob = json.dumps(value, ensure_ascii=True).encode()
    return hashlib.blake2b(blob, digest_size=12).hexdigest()


def _edit_hostile(data: dict[str, Any], big_int: bool) -> None:
    """Plant, in a few retail simulations, everything a fast path could get wrong; with
    `big_int`, also an integer the store refuses (so the file's batch write is refused and
    every session is written alone)."""
    sims = data["simulations"]
    b64 = base64.b64encode(f"user:{SECRET}".encode()).decode()
    user = next(m for m in sims[0]["messages"] if m["role"] == "user")
    # Key-shaped values built from parts: no key-shaped literal is committed.
    key, token = "sk-" + "abcdefghijklmnop1234", "Bearer " + "abcdefgh12345678"
    user["content"] += (
        f" my key is {key}, Authorization: {token},"
        " see https://bob:pw12345678@host.test/x?token=zzzz1234&id=1"
        " and api_\u212aey=hunter2hunter2"
        f" and also {SECRET.upper()} \ud800 caf\u00e9 \u2014 na\u00efve"
    )
    tool = next(m for m in sims[1]["messages"] if m["role"] == "tool")
    tool["content"] += f' {{"password": "pw-{SECRET}", "basic": "{b64}"}}'
    call_msg = next(m for m in sims[2]["messages"] if m.get("tool_calls"))
    call = call_msg["tool_calls"][0]
    call["arguments"] = {**call["arguments"], "api_key": "k" * 12, "ratio": 0.1, "n": 1e16}
    extra = {"id": "x-unparsed", "name": "get_user_details", "arguments": "{not json"}
    unknown = {"id": "x-unknown", "name": "no_such_tool", "arguments": {"q": "\u00e9t\u00e9"}}
    call_msg["tool_calls"] += [extra, unknown]
    sims[2]["messages"].append(
        {"role": "tool", "id": "x-nobody", "content": "Error: nothing asked", "error": True}
    )
    sims[3]["id"] = f"sim-with-key-{SECRET}"
    if big_int:
        big = next(m for m in sims[4]["messages"] if m.get("tool_calls"))
        big["tool_calls"][0]["arguments"] = {**big["tool_calls"][0]["arguments"], "n": 2**70}


def _files(tmp: Path) -> dict[str, Path]:
    """Each golden input under a fixed relative name (the source path is stored)."""
    out: dict[str, Path] = {}
    for path in TRAJECTORIES:
        shutil.copyfile(path, tmp / path.name)
        out[path.name] = Path(path.name)
    for name, big_int in (("retail_hostile", False), ("retail_hostile_big_int", True)):
        data = load(RETAIL_GPT)
        _edit_hostile(data, big_int)
        hostile = tmp / f"{name}.json"
        # json.dumps: orjson refuses the lone surrogate, which a real file may hold escaped.
        hostile.write_text(json.dumps(data), encoding="utf-8")
        out[name] = Path(hostile.name)
    return out


def _snapshot(path: Path, store: Path) -> dict[str, Any]:
    domain = "retail" if "retail" in str(path) else "airline"
    report = score_transcripts(path, "tau2", domain, store, run_id="golden")
    with duckdb.connect(str(store), read_only=True) as conn:
        rows = conn.execute("SELECT * FROM sessions ORDER BY session_id").fetchall()
        events = conn.execute("SELECT * FROM events ORDER BY session_id, seq").fetchall()
        status = conn.execute("SELECT status FROM runs").fetchall()
    by_session: dict[str, list[Any]] = {}
    for event in events:
        by_session.setdefault(event[1], []).append(list(event))
    judged = {s.session_id: s.model_dump(mode="json") for s in report.judged}
    sessions = {
        row[1]: {
            "row": _digest(list(row)),
            "events": _digest(by_session.get(row[1], [])),
            "n_events": len(by_session.get(row[1], [])),
        }
        for row in rows
    }
    return {
        "status": [s[0] for s in status],
        "summary": report.summary(),
        "scores": _digest([s.model_dump(mode="json") for s in report.scores]),
        "judged": {sid: _digest(value) for sid, value in sorted(judged.items())},
        "sessions": sessions,
    }


@pytest.mark.slow
def test_score_and_store_match_the_golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONPROOF_GOLDEN_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)
    got = {
        name: _snapshot(path, tmp_path / f"{i}.duckdb")
        for i, (name, path) in enumerate(sorted(_files(tmp_path).items()))
    }
    if _REGEN:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(got) == sorted(expected)
    for name in sorted(got):
        mine, gold = got[name], expected[name]
        assert mine["summary"] == gold["summary"], name
        assert mine["status"] == gold["status"], name
        assert mine["scores"] == gold["scores"], name
        assert sorted(mine["sessions"]) == sorted(gold["sessions"]), name
        for sid, digests in gold["sessions"].items():
            assert mine["sessions"][sid] == digests, f"{name}: stored session {sid}"
        for sid, digest in gold["judged"].items():
            assert mine["judged"].get(sid) == digest, f"{name}: judged session {sid}"


@pytest.mark.parametrize("name", ["retail_hostile", "retail_hostile_big_int"])
def test_the_hostile_files_exercise_what_they_should(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The golden is only worth as much as what it covers: the planted cases must still show.
    monkeypatch.setenv("SESSIONPROOF_GOLDEN_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)
    path = _files(tmp_path)[name]
    report = score_transcripts(path, "tau2", "retail", tmp_path / "h.duckdb", run_id="golden")
    messages = " | ".join(str(e) for e in report.errors)
    assert ("not stored" in messages) == name.endswith("big_int")  # beyond 64 bits
    assert "unknown tool 'no_such_tool'" in messages
    assert "not a JSON object" in messages
    assert "answers no earlier call" in messages
    with duckdb.connect(str(tmp_path / "h.duckdb"), read_only=True) as conn:
        text = "\n".join(
            str(r)
            for r in conn.execute(
                "SELECT payload::VARCHAR FROM events UNION ALL SELECT session_id FROM sessions"
            ).fetchall()
        )
    assert "[redacted]" in text
    for leak in (SECRET, SECRET.upper(), "hunter2hunter2", "abcdefghijklmnop1234", "pw12345678"):
        assert leak not in text, leak
    assert base64.b64encode(f"user:{SECRET}".encode()).decode()[8:20] not in text
