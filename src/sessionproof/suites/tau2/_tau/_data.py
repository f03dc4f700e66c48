"""Reading the tau domains' package data (DBs, task files) once per process."""

from __future__ import annotations

from importlib import resources
from typing import Any

import orjson

from ....errors import InputFileError


def read_package_json(package: str, name: str) -> Any:
    """Parse `data/<name>` of a package; a broken or missing file is an `InputFileError`."""
    ref = resources.files(package) / "data" / name
    try:
        raw = ref.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{package} data/{name}: cannot read: {exc}") from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputFileError(f"{package} data/{name}: not valid JSON: {exc}") from None
