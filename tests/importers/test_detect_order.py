"""Detection by sniffs keeps the precedence the formats had when it was written by hand: a
sure answer asked earlier wins, a likely one loses to any sure one, and a broken plug-in is said."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessionproof._plugins import forget_entry_points
from sessionproof.errors import ConfigError
from sessionproof.importers import detect_format
from sessionproof.importers._formats import FORMAT_REGISTRY

CHAT = {"messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "hi"}]}
ATIF = {"schema_version": "ATIF-v1.2", "steps": []}


def test_otlp_at_the_start_beats_a_chat_record_and_a_chat_record_beats_otlp_further_in() -> None:
    first = json.dumps({"resourceSpans": [], **CHAT}).encode()
    assert detect_format(first) == "otlp-json"
    later = json.dumps({**CHAT, "resourceSpans": []}).encode()
    assert detect_format(later) == "openai"
    assert detect_format(json.dumps({"x": 1, "resourceSpans": []}).encode()) == "otlp-json"


def test_a_results_file_key_beats_a_trajectory_shape() -> None:
    assert detect_format(json.dumps({**ATIF, "simulations": []}).encode()) == "tau2"
    assert detect_format(json.dumps(ATIF).encode()) == "atif"
    assert detect_format(json.dumps([{"traj": []}, ATIF]).encode()) == "tau-bench"
    assert detect_format(json.dumps([ATIF]).encode()) == "atif"


def test_an_inspect_zip_is_told_by_its_first_bytes() -> None:
    assert detect_format(b"PK\x03\x04" + b"\x00" * 40) == "inspect"


@pytest.fixture
def broken_plugin(tmp_path: Path) -> Iterator[None]:
    info = tmp_path / "broken_fmt-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-fmt\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[sessionproof.formats]\nbroken = no_such_fmt_mod:F\n")
    sys.path.insert(0, str(tmp_path))
    forget_entry_points()
    yield
    sys.path.remove(str(tmp_path))
    FORMAT_REGISTRY.remove("broken")
    forget_entry_points()


def test_a_format_plugin_that_cannot_be_imported_is_said_not_skipped(broken_plugin: None) -> None:
    with pytest.raises(ConfigError, match=r"formats plug-in 'broken'.*cannot import 'no_such_fmt"):
        detect_format(json.dumps(CHAT).encode())
