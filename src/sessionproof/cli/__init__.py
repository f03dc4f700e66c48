"""Command-line interface (typer). Nothing imports this package."""

from . import _inspect, _patterns, _rerun, _run, _score  # noqa: F401  (each module registers its commands)
from ._app import app, main

__all__ = ["app", "main"]
