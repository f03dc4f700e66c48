"""MkDocs hooks (`hooks:` in mkdocs.yml): the CLI reference is filled from the CLI itself and the
metric definitions from the code's own; table cells written for GitHub's renderer read the same
on the site."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import gen_cli
import gen_metrics

_CODE_SPAN = re.compile(r"`[^`\n]*`")


def _unescape_pipes(line: str) -> str:
    """GitHub needs `\\|` for a pipe inside a code span in a table; Python-Markdown keeps
    code spans whole and would show the backslash."""
    if not line.lstrip().startswith("|"):
        return line
    return _CODE_SPAN.sub(lambda m: m.group(0).replace("\\|", "|"), line)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill the generated parts' markers; unescape pipes in tables' code spans."""
    # This checkout's own code before any installed copy, so the site documents what it is
    # built from (set here: MkDocs restores sys.path after loading a hook module).
    own = str(Path(__file__).parents[1] / "src")
    if sys.path[0] != own:
        sys.path.insert(0, own)
    filled = gen_metrics.fill(gen_cli.fill(markdown))
    return "\n".join(_unescape_pipes(line) for line in filled.split("\n"))
