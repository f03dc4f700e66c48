"""The `-o` outputs of `report`, `export` and `score`: never written over what they read.

An output path that names the DuckDB store (or its write-ahead log) would replace every run
in it with a report or a trace; one that names an input would destroy what was to be read.
Both are refused before anything is opened. Paths are compared as the file system sees
them: through symbolic links, relative paths and `..`, hard links, and (on a file system
that ignores case) a name spelled in another case.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import ConfigError


def _same(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # a symlink loop: compare the names as given
        return a.absolute() == b.absolute()


def refuse_clobber(
    output: Path | None, *, store: Path | None = None, inputs: Iterable[Path | None] = ()
) -> None:
    """Raise `ConfigError` when `output` is the store `store`, its `.wal`, or one of `inputs`.

    Called by the CLI before a command reads or writes anything; `None` outputs pass.
    """
    if output is None:
        return
    out = Path(output)
    if store is not None:
        base = Path(store)
        for guarded in (base, base.with_name(base.name + ".wal")):
            if _same(out, guarded):
                raise ConfigError(
                    f"-o {output} is the store {store} (writing there would destroy every run "
                    "in it); write the output somewhere else"
                )
    for given in inputs:
        if given is not None and _same(out, Path(given)):
            raise ConfigError(
                f"-o {output} is an input file ({given}); write the output somewhere else"
            )
