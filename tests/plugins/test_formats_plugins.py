"""Transcript formats as plug-ins: entry points, sniffs, task readers, the generic importers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof.errors import ConfigError, InputFileError
from sessionproof.importers import (
    ImportResult,
    Sample,
    TranscriptFormat,
    detect_format,
    format_names,
    import_file,
    register_format,
)
from sessionproof.importers._formats import FORMAT_REGISTRY
from sessionproof.records import Scenario, UserSpec

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "docs" / "examples" / "recipes"
IMPORTERS = ROOT / "src" / "sessionproof" / "importers"

TICKETS = (
    '{"ticket": "T1", "resolved": true, "turns": [{"customer": "Renew L7"}, '
    '{"agent": null, "calls": [{"tool": "get_loan", "args": {"loan_id": "L7"}, '
    '"result": "{}"}]}, {"agent": "Done."}]}\n'
    '{"ticket": "T2", "resolved": false, "turns": [{"customer": "Renew L9"}, '
    '{"agent": "Sorry."}]}\n'
)


@pytest.fixture
def scratch_formats() -> Iterator[list[str]]:
    """Names registered by a test are forgotten afterwards."""
    names: list[str] = []
    yield names
    for name in names:
        FORMAT_REGISTRY.remove(name)


def _empty_reader(raw: bytes, *, source: str, run_id: str, domain: str | None) -> ImportResult:
    return ImportResult(format="probe", source=source, domain=domain)


def test_the_importers_name_no_benchmark_nor_a_higher_layer() -> None:
    for name in ("_formats.py", "_detect.py", "_builtin_formats.py", "_sample.py"):
        path, code = IMPORTERS / name, (IMPORTERS / name).read_text()
        for word in ("sessionproof.suites", "sessionproof.telemetry", '"tau2"', "tau-bench"):
            assert word not in code, f"{path.name} names {word}"


def test_register_format_takes_a_sniff_and_detection_asks_it(
    scratch_formats: list[str], tmp_path: Path
) -> None:
    raw = b"PROBE-LOG v1\nhello\n"
    with pytest.raises(InputFileError, match="cannot tell the format"):
        detect_format(raw)
    register_format(
        "probe-log", _empty_reader, sniff=lambda s: s.raw.startswith(b"PROBE-LOG"), shape="PL"
    )
    scratch_formats.append("probe-log")
    importers = sys.modules["sessionproof.importers"]  # FORMATS is computed on each access
    assert "probe-log" in format_names() and "probe-log" in importers.FORMATS
    assert detect_format(raw) == "probe-log"
    path = tmp_path / "x.log"
    path.write_bytes(raw)
    assert import_file(path, "auto", run_id="r").format == "probe"
    # A shape given joins the error for a file no format recognises.
    with pytest.raises(InputFileError) as unknown:
        detect_format(b"\x00\x01 nothing")
    assert ", PL or OTLP protobuf traces; pass --format" in str(unknown.value)


def test_a_sure_sniff_beats_a_likely_one_and_the_likeliest_wins(
    scratch_formats: list[str],
) -> None:
    register_format("probe-a", _empty_reader, sniff=lambda s: 0.3)
    register_format("probe-b", _empty_reader, sniff=lambda s: 0.6)
    scratch_formats.extend(["probe-a", "probe-b"])
    assert detect_format(b"anything at all") == "probe-b"
    register_format("probe-c", _empty_reader, sniff=lambda s: s.raw == b"sure", order=95)
    scratch_formats.append("probe-c")
    assert detect_format(b"sure") == "probe-c"
    assert detect_format(b"anything at all") == "probe-b"
    # A built-in format that is sure of its file still wins over the likely ones.
    assert detect_format(b'{"messages": [{"role": "system", "content": "x"}]}\n') == "openai"


def test_a_sniff_that_breaks_is_said(scratch_formats: list[str]) -> None:
    def broken(sample: Sample) -> bool:
        raise KeyError("oops")

    register_format("probe-broken", _empty_reader, sniff=broken)
    scratch_formats.append("probe-broken")
    with pytest.raises(ConfigError, match="format 'probe-broken': its sniff failed: KeyError"):
        detect_format(b"whatever")


def test_something_not_a_format_is_said(scratch_formats: list[str]) -> None:
    FORMAT_REGISTRY.add("probe-wrong", "os.path:join")
    scratch_formats.append("probe-wrong")
    with pytest.raises(ConfigError, match="'probe-wrong' is a function, not a TranscriptFormat"):
        import_file(Path(__file__), "probe-wrong", run_id="r")


def _ticket_task(raw: dict[str, object], domain: str) -> Scenario | None:
    if "ticket_goal" not in raw:
        return None
    return Scenario(id=str(raw["ticket"]), domain=domain, user=UserSpec(turns=["Hi"]))


def test_a_format_contributes_the_task_shape_a_jsonl_log_embeds(
    scratch_formats: list[str], tmp_path: Path
) -> None:
    line = {
        "id": "s1",
        "domain": "demo",
        "task": {"ticket": "T9", "ticket_goal": "renew"},
        "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Ok"}],
    }
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps(line) + "\n")
    before = import_file(log, "openai", run_id="r")
    assert not before.sessions and "task" in before.errors[0].field
    FORMAT_REGISTRY.add("ticket", TranscriptFormat(_empty_reader, task_reader=_ticket_task))
    scratch_formats.append("ticket")
    (imported,) = import_file(log, "openai", run_id="r").sessions
    assert imported.scenario is not None and imported.scenario.id == "T9"


def _dist(where: Path, entry_points: str) -> None:
    info = where / "support_tools-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: support-tools\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


def _cli(args: list[str], pythonpath: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [*map(str, pythonpath), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    )
    code = "import sys; from sessionproof.cli import main; sys.argv[0] = 'sessionproof'; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=cwd,
    )


def test_a_format_from_an_entry_point_is_detected_by_import_and_score(tmp_path: Path) -> None:
    plugin = tmp_path / "site"
    _dist(plugin, "[sessionproof.formats]\nsupport-log = support_log_format:SUPPORT_LOG\n")
    log = tmp_path / "tickets.jsonl"
    log.write_text(TICKETS)
    store = tmp_path / "store.duckdb"
    without = _cli(["import", str(log), "--store", str(store)], [RECIPES], tmp_path)
    assert without.returncode == 2 and "cannot tell the format" in without.stderr
    imported = _cli(
        ["import", str(log), "--store", str(store), "--json"], [plugin, RECIPES], tmp_path
    )
    assert imported.returncode == 0, imported.stderr
    report = json.loads(imported.stdout)
    assert report["format"] == "support-log" and report["sessions"] == 2
    scored = _cli(["score", str(log), "--json"], [plugin, RECIPES], tmp_path)
    assert scored.returncode == 0, scored.stderr
    summary = json.loads(scored.stdout)
    # Read, and said unjudged: the tickets name no task, so nothing says what success is.
    assert summary["sessions"] == 2 and summary["not_judged"] == 2
