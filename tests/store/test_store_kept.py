"""A store asked to keep what it writes (a run's, for its own report) reads back exactly what
a fresh reader of the file gets: same sessions, same order, secrets scrubbed, filters kept."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import sessionproof.store._store as store_module
from sessionproof.errors import StoreError
from sessionproof.records import (
    Session,
    TerminationReason,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
)
from sessionproof.store import Store
from sessionproof.store._kept import KeptSessions
from sessionproof.store._prepare import prepare_batch

from .factory import manifest, session

# Built from parts so no scanner mistakes it for a real key.
OPENAI = "sk-" + "proj-" + "Q3xv9TzLm2Pq8Rw4Ys7UaBcDeFgH"


def _edit(s: Session, kind: type[Any], **update: Any) -> Session:
    """`s` with the first `kind` event's payload changed by `update`."""
    events = list(s.events)
    i = next(i for i, e in enumerate(events) if isinstance(e, kind))
    payload = events[i].payload.model_copy(update=update)
    events[i] = events[i].model_copy(update={"payload": payload})
    return s.model_copy(update={"events": events})


def _with_secret(run_id: str, scenario_id: str) -> Session:
    s = _edit(session(run_id, scenario_id), ToolResultEvent, output=f"key is {OPENAI}.")
    return s.model_copy(update={"metadata": {"note": f"token {OPENAI}"}})


def _mixed(run_id: str) -> list[Session]:
    shuffled = session(run_id, "b-shuffled", trial=1)
    order = random.Random(5).sample(shuffled.events, k=len(shuffled.events))
    bare = Session(
        run_id=run_id,
        session_id="c-bare",
        scenario_id="c-bare",
        trial=0,
        termination=TerminationReason.infra_error,
        termination_detail="provider returned 503 five times",
    )
    return [
        session(run_id, "a-every", arm="faults:timeout"),
        shuffled.model_copy(update={"events": order}),
        bare,
        _with_secret(run_id, "d-secret"),
        session(run_id, "a-every", trial=1, success=False),
    ]


def _fresh(path: Path, run_id: str, **kw: Any) -> list[Session]:
    with Store.open(path, read_only=True) as reader:
        return reader.load_sessions(run_id, **kw)


def test_kept_sessions_read_back_as_the_file_holds_them(store_path: Path) -> None:
    ids = ["a-every", "b-shuffled", "c-bare", "d-secret"]
    with Store.open(store_path) as db:
        db.keep_written()
        db.create_run(manifest("r1", ids, trials=2))
        sessions = _mixed("r1")
        db.write_session(sessions[0])  # one at a time, and in a batch
        db.write_sessions(sessions[1:])
        kept = db.load_sessions("r1")
        one = db.load_sessions("r1", session_id="d-secret.t0.baseline")
        arm = db.load_sessions("r1", arm="faults:timeout")
    assert kept == _fresh(store_path, "r1")
    by_key = sorted(sessions, key=lambda s: (s.scenario_id, s.trial, s.arm))
    assert [s.session_id for s in kept] == [s.session_id for s in by_key]
    assert [e.seq for e in kept[1].events] == sorted(e.seq for e in kept[1].events)
    assert one == _fresh(store_path, "r1", session_id="d-secret.t0.baseline")
    assert arm == _fresh(store_path, "r1", arm="faults:timeout") and len(arm) == 1
    # The copy is of what was stored: the key is scrubbed there too.
    assert OPENAI not in one[0].model_dump_json() and OPENAI in sessions[3].model_dump_json()


def test_kept_sessions_are_not_decoded_again(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(store_path) as db:
        db.keep_written()
        db.create_run(manifest("r1", ["a-every", "b-shuffled", "c-bare", "d-secret"], trials=2))
        db.write_sessions(_mixed("r1"))

        def refuse(*args: object) -> Session:
            raise AssertionError("decoded again")

        monkeypatch.setattr(store_module, "session_from_rows", refuse)
        assert len(db.load_sessions("r1")) == 5
        assert [s.session_id for s in db.load_sessions("r1", session_id="c-bare")] == ["c-bare"]
        with pytest.raises(StoreError, match="no session 'nope'"):
            db.load_sessions("r1", session_id="nope")
    # A new object kept nothing: it decodes.
    with Store.open(store_path) as reader, pytest.raises(AssertionError, match="again"):
        reader.load_sessions("r1")


def test_sessions_another_writer_stored_are_read_from_the_file(store_path: Path) -> None:
    with Store.open(store_path) as first:
        first.create_run(manifest("r1", ["a", "b"]))
        first.write_session(session("r1", "a"))
    with Store.open(store_path) as db:
        db.keep_written()
        db.write_session(session("r1", "b"))
        both = db.load_sessions("r1")
    assert [s.scenario_id for s in both] == ["a", "b"]
    assert both == _fresh(store_path, "r1")


def _odd(run_id: str) -> dict[str, Session]:
    """Sessions whose values JSON does not carry back as they were."""
    base = session(run_id, "plain")
    return {
        "tuple": _edit(session(run_id, "tuple"), ToolCallEvent, arguments={"ids": (1, 2)}),
        "nan": session(run_id, "nan").model_copy(update={"metadata": {"x": float("nan")}}),
        "inf": _edit(session(run_id, "inf"), ToolCallEvent, arguments={"x": float("inf")}),
        "int key": session(run_id, "intkey").model_copy(update={"metadata": {1: "one"}}),
        "surrogate": _edit(session(run_id, "sur"), UserMessageEvent, content="half \ud83d"),
        "secret": _with_secret(run_id, "secret"),
        "plain": base,
    }


def test_a_session_json_changes_is_kept_as_read_back_not_as_written(
    store_path: Path,
) -> None:
    odd = _odd("r1")
    with Store.open(store_path) as db:
        db.keep_written()
        db.create_run(manifest("r1", [s.scenario_id for s in odd.values()]))
        db.write_sessions(list(odd.values()))
        kept = {s.scenario_id: s for s in db.load_sessions("r1")}
    fresh = {s.scenario_id: s for s in _fresh(store_path, "r1")}
    for name, written in odd.items():
        got, want = kept[written.scenario_id], fresh[written.scenario_id]
        assert got.model_dump_json() == want.model_dump_json(), name
        # Only the plain session is kept as the very object written.
        assert (got is written) == (name == "plain"), name


def test_past_the_limit_nothing_is_kept_and_reads_still_work() -> None:
    kept = KeptSessions(limit=1)
    assert kept.active
    a, b = session("r1", "a"), session("r1", "b")
    kept.add([a], prepare_batch([a]))
    assert kept.get("r1", ["a.t0.baseline"]) is not None
    kept.add([b], prepare_batch([b]))
    assert not kept.active and kept.get("r1", ["a.t0.baseline"]) is None
