"""Command-line interface (typer). Nothing imports this package."""

# Each module registers its commands.
from . import (  # noqa: F401
    _audit,
    _gate,
    _import,
    _init,
    _inspect,
    _patterns,
    _report,
    _rerun,
    _run,
    _schema,
    _score,
    _serve,
)
from ._app import main

__all__ = [
    "main",
]
