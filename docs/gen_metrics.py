"""The metric definitions, written from the definitions the code prints with the numbers.

`show RUN_ID --metrics`, `--json` and the report carry each metric's definition from
`sessionproof.scoring.ALL_METRIC_DEFINITIONS`, where every built-in metric of the metric
registry takes its own; the MkDocs hook puts the same text into `concepts.md`, so the page and
the program cannot say different things. A registered metric of a user's carries its own
definition into the same outputs.
"""

from __future__ import annotations

_MARKER = "<!-- metric-definitions -->"


def metric_table() -> str:
    """Every metric's name and definition as a Markdown table."""
    from sessionproof.scoring import ALL_METRIC_DEFINITIONS

    rows = ["| metric | definition |", "|---|---|"]
    for name, text in ALL_METRIC_DEFINITIONS.items():
        cell = " ".join(text.split()).replace("|", "\\|")
        rows.append(f"| `{name}` | {cell} |")
    return "\n".join(rows)


def fill(markdown: str) -> str:
    """`markdown` with the definitions marker replaced by the table."""
    return markdown.replace(_MARKER, metric_table()) if _MARKER in markdown else markdown
