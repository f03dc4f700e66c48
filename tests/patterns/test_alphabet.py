"""The event alphabet: `user:correction` by its fixed rule, and the same tokens for a live
session and for the same session read back from an exported chat log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionproof.agents._openai import to_openai_messages
from sessionproof.importers import import_file
from sessionproof.patterns._alphabet import is_correction
from sessionproof.patterns._internal import tokenize
from sessionproof.runs import RunConfig, run
from sessionproof.store import Store

COMPARABLE = ("user:", "agent:", "call:", "call_wrong_args:", "result:")
"""Token kinds a chat log carries; guard decisions, drift and the engine's termination reason
are not in an exported log."""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Actually, make it two suitcases.", True),
        ("  “No, the other order please", True),
        ("wait — I gave you the wrong zip code", True),
        ("Instead of a refund I want store credit", True),
        ("I meant the blue one", True),
        ("No, that's all. Thanks.", False),
        ("no thanks", False),
        ("Nothing else, thank you", False),
        ("Waiting for the confirmation", False),
        ("Actuallyyy", False),
        ("Please cancel it.", False),
        ("", False),
        (None, False),
    ],
)
def test_correction_rule(text: str | None, expected: bool) -> None:
    assert is_correction(text) is expected


def _log_line(messages: list[dict[str, object]], sid: str) -> str:
    return json.dumps({"id": sid, "messages": messages})


def _chat(*turns: tuple[str, str]) -> list[dict[str, object]]:
    return [{"role": role, "content": text} for role, text in turns]


def test_only_a_later_user_message_is_a_correction(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    first = _chat(("user", "Actually I need a refund"), ("assistant", "Sure."))
    later = _chat(
        ("user", "I need a refund"),
        ("assistant", "Which order?"),
        ("user", "Actually, cancel it instead"),
        ("assistant", "Done."),
        ("user", "No, that's all, thanks"),
    )
    path.write_text(_log_line(first, "a") + "\n" + _log_line(later, "b") + "\n")
    imported = import_file(path, "openai", run_id="imp")
    tokens = {s.session.session_id: tokenize(s.session).tokens for s in imported.sessions}
    users = {sid: [t for t in ts if t.startswith("user:")] for sid, ts in tokens.items()}
    assert sorted(users.values()) == [
        ["user:text"],
        ["user:text", "user:correction", "user:text"],
    ]


def test_a_stored_run_and_its_exported_log_read_the_same(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    report = run(RunConfig(suite="demo", model="oracle", limit=4, store=store))
    with Store.open(store, read_only=True) as db:
        live = db.load_sessions(report.run_id)
    assert live
    path = tmp_path / "export.jsonl"
    path.write_text(
        "".join(_log_line(to_openai_messages(s.messages()), s.session_id) + "\n" for s in live)
    )
    imported = import_file(path, "openai", run_id="imp")
    assert len(imported.sessions) == len(live) and not imported.errors
    for before, after in zip(live, (s.session for s in imported.sessions), strict=True):
        want = [t for t in tokenize(before).tokens if t.startswith(COMPARABLE)]
        got = [t for t in tokenize(after).tokens if t.startswith(COMPARABLE)]
        assert got == want and any(t.startswith("call:") for t in want)


def test_a_trace_out_of_seq_order_reads_as_its_seq_order(tmp_path: Path) -> None:
    # Tokens follow `seq`, not the list's order: a session whose events come shuffled (as a
    # hand-built or merged trace may) reads as the same session in order.
    store = tmp_path / "s.duckdb"
    report = run(RunConfig(suite="demo", model="oracle", limit=2, store=store))
    with Store.open(store, read_only=True) as db:
        sessions = db.load_sessions(report.run_id)
    for session in sessions:
        shuffled = session.model_copy(update={"events": list(reversed(session.events))})
        want = tokenize(session)
        assert any(t.startswith("call:") for t in want.tokens)
        assert tokenize(shuffled) == want
