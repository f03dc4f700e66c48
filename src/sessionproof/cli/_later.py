"""Help texts computed when a command's help is shown, not when the command is declared.

Every command is declared on every start-up (`sessionproof --help` lists them all), so a help
text that reads a registry (the suites, the model providers, the transcript formats, the
metrics) would load that registry, and what it imports, for every command. A command declared
with `cls=help_later(texts)` calls `texts()` only when its own `--help` is printed: `texts()`
maps "" to the command's help and a parameter's name to that parameter's help. Such a command
whose own help is deferred needs `short_help` for the listing of `sessionproof --help`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from typer.core import TyperCommand

if TYPE_CHECKING:
    from typer._click import Context


def help_later(texts: Callable[[], Mapping[str, str]]) -> type[TyperCommand]:
    """A typer command class whose help texts `texts()` gives, read when help is printed."""

    class _LaterHelp(TyperCommand):
        def get_help(self, ctx: Context) -> str:
            given = texts()
            self.help = given.get("", self.help)
            for param in self.params:
                text = given.get(param.name or "")
                if text is not None and hasattr(param, "help"):
                    param.help = text
            return super().get_help(ctx)

    return _LaterHelp
