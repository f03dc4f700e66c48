"""An import is written to the store a batch of sessions at a time (issue 41.25, scale): a
large file's sessions never become rows all at once, and a session the store cannot hold
still costs only itself, whichever batch it is in."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from sessionproof.importers import _storing
from sessionproof.records import Session
from sessionproof.runs import import_traces
from sessionproof.store import Store

from .test_unstorable_records import POISONS, _conversation, _otlp, _stored


def test_sessions_are_written_in_batches_and_a_bad_one_costs_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_storing, "WRITE_BATCH", 2)
    sizes: list[int] = []
    write = Store.write_sessions

    def counted(self: Store, sessions: Sequence[Session]) -> None:
        sizes.append(len(sessions))
        write(self, sessions)

    monkeypatch.setattr(Store, "write_sessions", counted)
    conversations = [_conversation(i) for i in range(5)]
    POISONS["tool arguments"](conversations[3])
    store = tmp_path / "s.duckdb"
    report = import_traces(_otlp(tmp_path / "t.json", conversations), store=store)
    assert _stored(store, report.run_id) == ["conv-0", "conv-1", "conv-2", "conv-4"]
    assert report.summary.sessions == 4
    (skipped,) = [e for e in report.errors if e.fatal]
    assert skipped.record_id == "conv-3" and "cannot be stored" in skipped.message
    # 2 + 2 (refused: conv-3) + 1 (conv-2 alone) + 1: never more than a batch at once.
    assert sizes == [2, 2, 1, 1]
