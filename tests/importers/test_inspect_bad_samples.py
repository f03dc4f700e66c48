"""One bad sample costs itself, not the inspect_ai log: a `.eval` archive with a garbled
sample member, a sample of the wrong shape or a stray file, and a `.json` log with a sample
of the wrong type keep their readable samples and name the others (issue 41.3). The logs are
inspect's own (made by inspect_ai's `mockllm`), rewritten member by member."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from sessionproof.importers import import_file

from .test_inspect import _eval_log

pytest.importorskip("inspect_ai")

pytestmark = pytest.mark.slow  # inspect_ai takes seconds to import and run

S2 = "samples/s2_epoch_1.json"


@pytest.fixture(scope="module")
def eval_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real `.eval` log of two samples (s1, s2) written by inspect_ai."""
    return _eval_log(tmp_path_factory.mktemp("inspect-bad"))


def _rewrite(
    src: Path, out: Path, change: Callable[[str, bytes], bytes | None], extra: dict[str, bytes]
) -> Path:
    """A copy of the archive with each member through `change` (None drops it) and `extra`
    members added, compressed as inspect writes them (its import adds zstd to zipfile)."""
    import inspect_ai.log  # noqa: F401

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info, data)
        for name, data in extra.items():
            zout.writestr(name, data)
    return out


CASES: dict[str, tuple[Callable[[str, bytes], bytes | None], dict[str, bytes], str, str]] = {
    "garbled member": (
        lambda n, d: d[: len(d) // 2] if n == S2 else d,
        {},
        S2,
        "JSONDecodeError",
    ),
    "sample of the wrong type": (lambda n, d: b"[1, 2]" if n == S2 else d, {}, S2, "dictionary"),
    "sample field of the wrong type": (
        lambda n, d: json.dumps({**json.loads(d), "messages": 5}).encode() if n == S2 else d,
        {},
        S2,
        "messages: Input should be a valid list",
    ),
    "stray sample-like file": (
        lambda n, d: d,
        {"samples/notes_epoch_1.json": b"not json"},
        "samples/notes_epoch_1.json",
        "unreadable sample",
    ),
    "stray file with another name": (
        lambda n, d: d,
        {"samples/README.json": b"{}"},
        "samples/README.json",
        "not a sample of the log",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_member_costs_itself(case: str, eval_file: Path, tmp_path: Path) -> None:
    change, extra, member, words = CASES[case]
    bad = _rewrite(eval_file, tmp_path / "bad.eval", change, extra)
    result = import_file(bad, "auto", run_id="r")
    kept = sorted(i.session.session_id for i in result.sessions)
    assert kept == (["s1"] if member == S2 else ["s1", "s2"])
    (skipped,) = result.skipped
    assert skipped.record_id == member and words in skipped.message
    assert "\n" not in str(skipped)
    assert result.sessions[0].session.outcome is not None  # the kept sample keeps its score


def test_a_json_log_with_a_sample_of_the_wrong_type_keeps_the_others(
    eval_file: Path, tmp_path: Path
) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    path = tmp_path / "log.json"
    write_eval_log(read_eval_log(str(eval_file)), str(path), format="json")
    doc = json.loads(path.read_text())
    doc["samples"].insert(1, 7)
    doc["samples"][2]["messages"] = "no list"
    path.write_text(json.dumps(doc))
    result = import_file(path, "auto", run_id="r")
    assert [i.session.session_id for i in result.sessions] == ["s1"]
    assert [(e.index, e.record_id) for e in result.skipped] == [(1, None), (2, "s2")]


def test_the_cli_stores_the_readable_samples_and_names_the_bad_one(
    eval_file: Path, tmp_path: Path
) -> None:
    bad = _rewrite(eval_file, tmp_path / "bad.eval", CASES["garbled member"][0], {})
    cli = Path(sys.executable).with_name("sessionproof")
    done = subprocess.run(
        [str(cli), "import", str(bad), "--store", str(tmp_path / "s.duckdb"), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 2 and lines[0].startswith("skipped: ") and S2 in lines[0]
    assert lines[1] == "1 record skipped, 0 kept with a warning; the rest stored"
    out = json.loads(done.stdout)
    assert out["sessions"] == 1 and len(out["skipped"]) == 1 and S2 in out["skipped"][0]
