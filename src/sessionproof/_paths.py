"""Whether two paths name the same file, as the file system sees them. Standard library only:
the CLI's output guard and the BFCL verdict writer both ask it."""

from __future__ import annotations

import os
from pathlib import Path


def same_file(a: Path, b: Path) -> bool:
    """True when `a` and `b` are one file: through symbolic links, relative paths and `..`,
    hard links, and a name spelled in another case on a file system that ignores case. Paths
    that do not exist yet are compared resolved; a symbolic-link loop, as given."""
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # a symlink loop: compare the names as given
        return a.absolute() == b.absolute()
