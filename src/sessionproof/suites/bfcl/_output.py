"""Writing the verdict file: never over an input, never half a file.

The verdicts go to a temporary file beside the target, renamed over it once complete, so a
crash (or a Ctrl-C) mid-write leaves the old file as it was. A target that is not a regular
file (`/dev/stdout`, a pipe) cannot be renamed over and is written in place.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from ..._paths import same_file
from ...errors import ConfigError, InputFileError


def refuse_input_as_output(output: Path, inputs: Iterable[Path | str | None]) -> None:
    """Raise `ConfigError` when `output` is (a path, link or hard link to) one of `inputs`.

    Checked before anything is opened: writing the verdicts over the outputs they judge (or
    the questions) would destroy what was to be read.
    """
    for given in inputs:
        if given is not None and same_file(Path(output), Path(given)):
            raise ConfigError(
                f"-o {output} is an input file ({given}); write the verdicts somewhere else"
            )


class AtomicOutput:
    """A binary file written whole or not at all: `write`, then `commit` (or `discard`)."""

    def __init__(self, target: Path) -> None:
        self.target = Path(target)
        self._temp: Path | None = None
        try:
            in_place = self.target.exists() and not self.target.is_file()
            if in_place:
                self._handle: BinaryIO = self.target.open("wb")
            else:
                self._temp = self.target.with_name(
                    f".{self.target.name}.{secrets.token_hex(4)}.tmp"
                )
                # O_EXCL: never reuse a file someone else made; 0o666 leaves modes to the umask,
                # as a plain open() would.
                fd = os.open(self._temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                self._handle = os.fdopen(fd, "wb")
        except OSError as exc:
            raise InputFileError(f"{self.target}: cannot write: {exc.strerror or exc}") from None

    def write(self, data: bytes) -> None:
        """Append `data`."""
        try:
            self._handle.write(data)
        except OSError as exc:
            raise InputFileError(f"{self.target}: write failed: {exc.strerror or exc}") from None

    def commit(self) -> None:
        """Finish: the target now holds everything written."""
        try:
            self._handle.close()
            if self._temp is not None:
                os.replace(self._temp, self.target)
                self._temp = None
        except OSError as exc:
            self.discard()
            raise InputFileError(f"{self.target}: cannot write: {exc.strerror or exc}") from None

    def discard(self) -> None:
        """Abandon: the target is left as it was (the temporary file is removed)."""
        with contextlib.suppress(OSError):
            self._handle.close()
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)
            self._temp = None
