"""The one foreign-JSON reader on what the fuzzer found: a key nested past the decoder's
recursion limit, trailing content after the document (a file concatenated with itself), and
lone-surrogate escapes no store can encode."""

from __future__ import annotations

import json

from sessionproof.importers._internal import load_salvaging
from sessionproof.suites.tau2._internal import import_tau2, import_taubench

from ..suites.tau2._data import AIRLINE_GPT, load
from .test_taubench import _records as taubench_records

DEEP = "[" * 5000 + "]" * 5000  # past orjson's limit and the standard decoder's recursion


def test_a_key_nested_past_the_decoders_limit_is_a_problem_not_a_traceback() -> None:
    doc = load_salvaging(('{"a": 1, ' + DEEP + ": 2}").encode())
    assert doc.value == {"a": 1}
    assert doc.problem is not None and "deep" in doc.problem


def test_trailing_content_after_the_document_is_noted_with_its_offset() -> None:
    one = '{"a": [1, 2]}'
    doc = load_salvaging((one + "\n" + one).encode())
    assert doc.value == {"a": [1, 2]} and doc.problem is None
    (note,) = doc.notes
    assert "trailing" in note and "line 2 column 1" in note and f"offset {len(one) + 1}" in note
    listed = load_salvaging(b"[1, 2] [3]")
    assert listed.value == [1, 2] and listed.problem is None
    assert len(listed.notes) == 1 and "offset 7" in listed.notes[0]
    assert load_salvaging(b'{"a": 1}  \n\t').notes == []


def test_a_tau2_file_concatenated_with_itself_is_warned_about() -> None:
    raw = AIRLINE_GPT.read_bytes().rstrip()
    result = import_tau2(raw + b"\n" + raw, source="f", run_id="r")
    assert len(result.sessions) == len(load(AIRLINE_GPT)["simulations"])
    (warning,) = [e for e in result.errors if "trailing" in e.message]
    assert warning.fatal is False and warning.index is None
    assert f"offset {len(raw.decode()) + 1}" in warning.message


def test_a_taubench_file_concatenated_with_itself_is_warned_about() -> None:
    raw = json.dumps(taubench_records()).encode()
    result = import_taubench(raw + raw, source="f", run_id="r")
    assert len(result.sessions) == len(taubench_records())
    (warning,) = [e for e in result.errors if "trailing" in e.message]
    assert warning.fatal is False and f"offset {len(raw)}" in warning.message


def test_lone_surrogate_escapes_are_replaced_and_noted() -> None:
    text = '{"a": "x\\udfffy", "\\ud800": ["\\ud83d\\ude00", "\\udc00"]}'
    doc = load_salvaging(text.encode())
    assert doc.problem is None
    assert doc.value == {"a": "x\ufffdy", "\ufffd": ["\U0001f600", "\ufffd"]}
    (note,) = doc.notes
    assert "surrogate" in note and "3" in note
    json.dumps(doc.value).encode("utf-8")  # every string now encodes


def test_a_lone_surrogate_task_id_still_imports_with_a_warning() -> None:
    records = taubench_records()
    records[1]["task_id"] = "t\udfff"
    result = import_taubench(json.dumps(records).encode(), source="f", run_id="r")
    assert len(result.sessions) == len(records)
    ids = [s.session.scenario_id for s in result.sessions]
    assert "t\ufffd" in ids
    assert any("surrogate" in e.message and not e.fatal for e in result.errors)
