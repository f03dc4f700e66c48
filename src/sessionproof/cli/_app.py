"""The typer application and the error boundary: known errors print as one line."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import SessionproofError

app = typer.Typer(
    name="sessionproof",
    help="Prove whether a tool-calling agent survives whole multi-turn sessions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

err_console = Console(stderr=True)
out_console = Console()


def main() -> None:
    """Console entry point."""
    try:
        app()
    except SessionproofError as exc:
        err_console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(2)
