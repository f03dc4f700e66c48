"""`import` (and every reader of `--format auto`) tells an OTLP protobuf trace file by its
wire structure: the project's own `export --format otlp-proto` reads back without --format
(issue 41.6), and text or random bytes are not taken for one."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from sessionproof.errors import InputFileError
from sessionproof.importers import detect_format
from sessionproof.runs import export_traces, import_traces


def _chat_log(path: Path, count: int) -> Path:
    lines = [
        json.dumps(
            {
                "id": f"chat-{i}",
                "messages": [
                    {"role": "user", "content": f"hello {i}"},
                    {"role": "assistant", "content": "hi"},
                ],
            }
        )
        for i in range(count)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def proto_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three sessions imported, then exported by the project as OTLP protobuf."""
    tmp = tmp_path_factory.mktemp("proto")
    store = tmp / "s.duckdb"
    run = import_traces(_chat_log(tmp / "log.jsonl", 3), store=store)
    out = tmp / "run.otlp"
    export_traces(run.run_id, store=store, fmt="otlp-proto", output=out)
    return out


@pytest.mark.slow
def test_our_protobuf_export_is_detected_and_imported(proto_file: Path, tmp_path: Path) -> None:
    assert detect_format(proto_file.read_bytes()) == "otlp-proto"
    back = import_traces(proto_file, store=tmp_path / "back.duckdb")
    assert back.format == "otlp-proto" and back.summary.sessions == 3 and back.errors == []
    cli = Path(sys.executable).with_name("sessionproof")
    done = subprocess.run(
        [str(cli), "import", str(proto_file), "--store", str(tmp_path / "cli.duckdb"), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["format"] == "otlp-proto"


def test_text_and_random_bytes_are_not_taken_for_protobuf(proto_file: Path) -> None:
    rng = random.Random(41_6)
    raw = proto_file.read_bytes()
    samples = [
        b"\n" + json.dumps({"resourceSpans": []}).encode(),
        b"\nhello\n",
        raw[: len(raw) - 7],  # cut short: its last field runs past the end
        raw + b"\x12\x00",  # a field the request does not have, after the spans
    ]
    samples += [b"\n" + rng.randbytes(rng.randint(1, 300)) for _ in range(200)]
    for sample in samples:
        try:
            fmt = detect_format(sample)
        except InputFileError as exc:
            assert "cannot tell the format" in str(exc) and "OTLP protobuf" in str(exc)
            continue
        assert fmt != "otlp-proto", sample[:40]
