"""The `-o` outputs of `report`, `export` and `score`: never written over what they read.

An output path that names the DuckDB store (or its write-ahead log) would replace every run
in it with a report or a trace; one that names an input would destroy what was to be read.
Both are refused before anything is opened. Paths are compared as the file system sees
them: through symbolic links, relative paths and `..`, hard links, and (on a file system
that ignores case) a name spelled in another case.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .._paths import same_file
from ..errors import ConfigError


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
            if same_file(out, guarded):
                raise ConfigError(
                    f"-o {output} is the store {store} (writing there would destroy every run "
                    "in it); write the output somewhere else"
                )
    for given in inputs:
        if given is not None and same_file(out, Path(given)):
            raise ConfigError(
                f"-o {output} is an input file ({given}); write the output somewhere else"
            )
