"""`sessionproof init DIR`: scaffold a project that runs out of the box.

An example toolkit, its domain file, three scenarios, an MCP variant of the same tools and a
README; `sessionproof run --suite DIR --model oracle` passes on it unchanged.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ..errors import ConfigError
from ._app import app, err_console

SCAFFOLD: dict[str, str] = {
    "README.md": "README.md.tmpl",
    "domains.yaml": "domains.yaml.tmpl",
    "scenarios.yaml": "scenarios.yaml.tmpl",
    "shop_tools.py": "shop_tools.py.tmpl",
    "shop_mcp.py": "shop_mcp.py.tmpl",
    "data/state.json": "state.json.tmpl",
    "variants/mcp.yaml": "variants_mcp.yaml.tmpl",
}
"""Project file -> template in `sessionproof/cli/scaffold`."""


def scaffold(directory: Path, *, force: bool = False) -> list[Path]:
    """Write the project files into `directory`; the files written.

    Refuses (`ConfigError`) to overwrite an existing file unless `force`, before writing any.
    """
    targets = {directory / name: template for name, template in SCAFFOLD.items()}
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        raise ConfigError(
            f"{directory}: would overwrite {', '.join(existing)}; use --force or another DIR"
        )
    templates = resources.files("sessionproof.cli").joinpath("scaffold")
    for path, template in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(templates.joinpath(template).read_text(encoding="utf-8"), encoding="utf-8")
    return list(targets)


@app.command("init")
def init(
    directory: Annotated[Path, typer.Argument(help="Where to create the project.")],
    force: Annotated[bool, typer.Option(help="Overwrite files that already exist.")] = False,
) -> None:
    """Scaffold a project: an example toolkit, three scenarios, an MCP variant, a README."""
    try:
        written = scaffold(directory, force=force)
    except OSError as exc:
        raise ConfigError(f"{directory}: cannot write: {exc.strerror}") from None
    for path in written:
        err_console.print(f"  wrote {escape(str(path))}", highlight=False)
    err_console.print(
        f"next: sessionproof run --suite {escape(str(directory))} --model oracle", highlight=False
    )
