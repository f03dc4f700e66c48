"""The CLI reference, written from the CLI itself.

`cli_reference()` walks the typer application's click commands and renders every command with
its help text and every option, argument, default and choice as Markdown. The MkDocs hook
(`docs/hooks.py`) puts it into `cli.md` at build time, so the page cannot fall behind the code;
`tests/docs/test_cli_reference.py` checks that every command and option appears in it.
"""

from __future__ import annotations

from typing import Any

import typer

_MARKER = "<!-- cli-reference -->"


# typer carries its own copy of click (typer >= 0.22), so the objects are read by their
# attributes (click's documented ones) rather than checked against an imported click class.


def _root() -> Any:
    from sessionproof.cli._internal import app

    return typer.main.get_command(app)


def _context(command: Any, name: str, parent: Any = None) -> Any:
    return command.context_class(command, info_name=name, parent=parent)


def _plain(text: str) -> str:
    """`text` with its brackets escaped outside code spans, so `[@TURN]` is no link."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("[", "\\[").replace("]", "\\]").replace("*", "\\*")
    return "`".join(parts)


def _cell(text: str) -> str:
    """One Markdown table cell: no newlines, pipes escaped."""
    return _plain(" ".join(text.split())).replace("|", "\\|")


def _param_row(param: Any, ctx: Any) -> str:
    """One table row: the option's names (or the argument's), its help, its value and default."""
    is_option = param.param_type_name == "option"
    if is_option:
        names = ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
    else:
        names = f"`{param.name.upper()}` (argument)"
    detail = []
    if not (is_option and param.is_flag):
        detail.append(f"`{param.display_type(ctx).strip('<>')}`")
    if param.required:
        detail.append("required")
    if param.multiple:
        detail.append("repeatable")
    default = param.get_default(ctx)
    if param.show_default is not False and default not in (None, (), [], False):
        detail.append(f"default `{default}`")
    return f"| {names} | {_cell(param.help or '')} | {_cell('; '.join(detail))} |"


def _command_section(name: str, command: Any, parent: Any) -> list[str]:
    ctx = _context(command, name, parent)
    arguments = [p.name.upper() for p in command.get_params(ctx) if p.param_type_name != "option"]
    usage = " ".join(["[OPTIONS]", *arguments])
    out = [f"## `sessionproof {name}`", "", f"`sessionproof {name} {usage}`", ""]
    if command.help:
        out += [_plain(command.help.strip()), ""]
    params = [p for p in command.get_params(ctx) if p.name != "help" and not p.hidden]
    if params:
        out += ["| option | what it does | value |", "|---|---|---|"]
        out += [_param_row(p, ctx) for p in params]
        out.append("")
    return out


def commands() -> dict[str, Any]:
    """Every command of the CLI by name, in the order `--help` lists them."""
    root = _root()
    ctx = _context(root, "sessionproof")
    return {name: root.commands[name] for name in sorted(root.list_commands(ctx))}


def cli_reference() -> str:
    """The whole reference as Markdown: one section per command, a table of its parameters."""
    root = _root()
    ctx = _context(root, "sessionproof")
    lines = [
        "Generated from the CLI at build time (`docs/gen_cli.py`); `sessionproof COMMAND --help`",
        "prints the same.",
        "",
    ]
    for name, command in commands().items():
        lines += _command_section(name, command, ctx)
    return "\n".join(lines)


def fill(markdown: str) -> str:
    """`markdown` with the reference marker replaced by the generated reference."""
    return markdown.replace(_MARKER, cli_reference()) if _MARKER in markdown else markdown
