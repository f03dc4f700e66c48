"""No file the repository tracks holds a credential-shaped literal: test keys are built from
parts at run time (see `tests/security/keys.py`), so a secret scanner finds nothing and a
real key pasted into a fixture fails here before it is pushed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SHAPES = re.compile(
    "|".join(
        (
            # OpenAI and Anthropic keys
            r"(?<![A-Za-z0-9_-])sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{12,}",
            r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])",  # AWS access key id
            r"(?<![A-Za-z0-9_])(?:ghp|gho|ghs|ghu)_[A-Za-z0-9]{30,}",  # GitHub tokens
            r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{20,}",
            r"(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}",  # Slack
            r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{30,}",  # Google API key
            r"(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}",  # GitLab
            r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}",  # Hugging Face
            r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{8,}",  # a JWT
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
        )
    )
)
"""Credential shapes common secret scanners flag (written so this file matches none)."""


def _tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.decode().split("\0") if name]


@pytest.mark.slow
def test_no_tracked_file_holds_a_key_shaped_literal() -> None:
    found = []
    files = _tracked_text_files()
    assert len(files) > 100  # the scan did see the repository
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary (images, compressed fixtures): checked below
        for number, line in enumerate(text.splitlines(), 1):
            if SHAPES.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}")
    assert not found, f"key-shaped literals (build them from parts): {found[:20]}"


def test_compressed_fixtures_hold_no_key_shaped_literal() -> None:
    import gzip

    fixtures = [p for p in _tracked_text_files() if p.suffix == ".gz"]
    assert fixtures
    for path in fixtures:
        text = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        assert not SHAPES.search(text), path


def test_the_scan_catches_each_shape() -> None:
    # Built from parts here too: the test proves the patterns bite without committing keys.
    samples = [
        "sk-" + "proj-" + "Q3xv9TzLm2Pq8Rw4",
        "AKIA" + "IOSFODNN7EXAMPLE",
        "ghp_" + "a" * 36,
        "eyJ" + "hbGciOiJIUzI1NiJ9." + "eyJ" + "zdWIiOiIxIn0." + "c2lnbmF0dXJl",
        "-----BEGIN " + "RSA PRIVATE KEY-----",
    ]
    for sample in samples:
        assert SHAPES.search(f"x = '{sample}'"), sample
    assert not SHAPES.search("task-0123456789abcdef and risk-assessment-2024")
