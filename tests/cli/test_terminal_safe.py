"""Control sequences from a suite, an agent or a transcript never reach the console raw
(issue 41.27): `run`'s progress lines and `show` escape them; rich's own styling stays."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sessionproof.cli._safe import SafeConsole, plain_safe, terminal_safe

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "src" / "sessionproof" / "domains" / "demo" / "scenarios.yaml"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""What must not be printed: C0 but newline and tab, DEL, C1."""
HOSTILE_ID = "order\x1b]0;pwned\x07-\x1b[2K\x9b31m\x1b]52;c;aGk=\x07"


def _suite(folder: Path) -> Path:
    """The first demo scenario, its id full of terminal control sequences."""
    text = DEMO.read_text(encoding="utf-8")
    first = text[text.index("- id: order-status-shipped") : text.index("- id: cancel-pending")]
    escaped = HOSTILE_ID.encode("unicode_escape").decode().replace("\\x1b", "\\e")
    path = folder / "suite.yaml"
    path.write_text(first.replace("order-status-shipped", f'"{escaped}"', 1), encoding="utf-8")
    return path


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sessionproof.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}", "COLUMNS": "200"},
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_run_and_show_print_no_raw_control_characters(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    done = _cli("run", "--suite", str(suite), "--model", "oracle", "--store", "s.duckdb",
                "--no-report", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_id = done.stderr.split()[1].rstrip(":")
    listed = _cli("show", run_id, "--store", "s.duckdb", cwd=tmp_path)
    session = _cli("show", run_id, "--store", "s.duckdb", "--session", f"{HOSTILE_ID}.t0",
                   cwd=tmp_path)  # fmt: skip
    for out in (done, listed, session):
        assert out.returncode == 0, out.stderr
        # Before: the ids went out raw (OSC 0 set the window title, OSC 52 the clipboard).
        assert RAW.search(out.stdout + out.stderr) is None, out.stdout + out.stderr
    assert "order\\x1b]0;pwned\\x07-\\x1b[2K\\x9b31m" in done.stderr  # progress line, shown
    assert "\\x1b]52;c;aGk=" in listed.stdout + session.stdout


def test_terminal_safe_escapes_every_control_character_but_newline_and_tab() -> None:
    rng = random.Random(41)
    alphabet = [chr(c) for c in range(0x00, 0x200)] + ["é", "→", "\u2028"]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        safe = terminal_safe(text)
        assert RAW.search(safe) is None
        assert safe.count("\n") == text.count("\n") and safe.count("\t") == text.count("\t")
        kept = RAW.sub("", text)
        # Each control character becomes the four characters \xNN; everything else stays.
        assert len(safe) == len(kept) + 4 * (len(text) - len(kept))
        assert safe == "".join(terminal_safe(ch) for ch in text)
    assert terminal_safe("plain text\n") == "plain text\n"


def test_rich_styles_survive_on_a_terminal() -> None:
    out = io.StringIO()
    console = SafeConsole(file=out, force_terminal=True, color_system="standard", width=120)
    console.print(f"[bold red]verdict[/] {HOSTILE_ID}", markup=True, highlight=False)
    text = out.getvalue()
    assert "\x1b[1;31m" in text  # rich's own escape code for the style, kept
    assert "\x1b]" not in text and "\x07" not in text and "\x9b" not in text
    assert "\\x1b]0;pwned" in text  # (rich itself drops the BEL)


def test_plain_lines_written_to_the_progress_file_are_escaped() -> None:
    out = io.StringIO()
    console = plain_safe(SafeConsole(file=out, width=100))
    console.file.write(f"[1/1] {HOSTILE_ID}.t0 pass\n")
    assert RAW.search(out.getvalue()) is None and "\\x1b]52" in out.getvalue()


@pytest.mark.slow
def test_score_warnings_about_a_transcript_print_no_raw_control_characters(
    tmp_path: Path,
) -> None:
    record = {
        "id": "s\x1b]0;pwned\x07",
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get\x1b[2Korder", "arguments": "{}"},
                    }
                ],
            },
        ],
        "success": True,
    }
    (tmp_path / "chat.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    done = _cli("score", "chat.jsonl", "--format", "openai", "--domain", "demo",
                "--store", "s.duckdb", "--no-report", cwd=tmp_path)  # fmt: skip
    assert "unknown tool" in done.stderr, done.stderr
    # Before: the record's id and tool name went out raw in the warning line.
    assert RAW.search(done.stdout + done.stderr) is None
    assert "get\\x1b[2Korder" in done.stderr
