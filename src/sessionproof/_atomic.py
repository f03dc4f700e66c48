"""Output files written whole or not at all: beside the target, then renamed over it.

A write that fails part-way (a full disk, a crash, Ctrl-C) then leaves the earlier file as it
was instead of half a new one. A target that is not a regular file (`/dev/stdout`, a named
pipe) cannot be renamed over and is written in place. Standard library only: the CLI, the
telemetry export and the store all use it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path


def _in_place(target: Path) -> bool:
    return target.exists() and not target.is_file()


def partial_path(target: Path) -> Path:
    """A fresh hidden name beside `target` for its content while it is being written."""
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")


@contextlib.contextmanager
def replaced_on_success(target: str | Path) -> Iterator[Path]:
    """Yield the path to write `target`'s new content to; once the block ends without an
    exception, that file replaces `target` in one rename. On an exception it is removed and
    `target` is left as it was. Raises `OSError` when the rename fails."""
    final = Path(target)
    if _in_place(final):
        yield final
        return
    temp = partial_path(final)
    try:
        yield temp
        os.replace(temp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


def write_atomic(target: str | Path, data: bytes) -> None:
    """Write `data` to `target` whole or not at all (raises `OSError`)."""
    with replaced_on_success(target) as path, open(path, "wb") as handle:
        handle.write(data)
