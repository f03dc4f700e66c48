"""Without inspect_ai installed, an inspect log is one clear error naming the extra."""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

import pytest

from sessionproof.errors import ConfigError
from sessionproof.importers import detect_format, import_file


def test_without_inspect_ai_the_error_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("header.json", "{}")
    path = tmp_path / "x.eval"
    path.write_bytes(buffer.getvalue())
    assert detect_format(path.read_bytes()) == "inspect"
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # the import fails as if absent
    with pytest.raises(ConfigError, match=r"pip install 'sessionproof\[inspect\]'"):
        import_file(path, "auto", run_id="r")
