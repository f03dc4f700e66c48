"""The generated parts of the site (docs/gen_cli.py, docs/gen_metrics.py through the MkDocs hook):
every command and option of the CLI, each under its own command, and every metric definition."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import typer

from sessionproof.cli._internal import app

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _load(stem: str) -> ModuleType:
    """docs/STEM.py as a module of its own (a private name: nothing else imports it)."""
    name = f"_sessionproof_docs_{stem}"
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{stem}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _sections(markdown: str) -> dict[str, str]:
    """Each `## \\`sessionproof NAME\\`` section's text, by command name."""
    parts = re.split(r"^## `sessionproof ([\w-]+)`$", markdown, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_command_and_option_is_in_the_reference() -> None:
    gen_cli = _load("gen_cli")
    sections = _sections(gen_cli.cli_reference())
    root: Any = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="sessionproof")
    names = root.list_commands(ctx)
    assert len(names) >= 12  # run, runs, show, export, import, score, rerun, patterns, ...
    assert set(sections) == set(names)
    for name in names:
        command = root.commands[name]
        sub = command.context_class(command, info_name=name, parent=ctx)
        params = [p for p in command.get_params(sub) if p.name != "help" and not p.hidden]
        for param in params:
            if param.param_type_name == "option":
                for opt in [*param.opts, *param.secondary_opts]:
                    assert f"`{opt}`" in sections[name], (name, opt)
            else:
                assert f"`{param.name.upper()}` (argument)" in sections[name], (name, param.name)
        if command.help:
            first_words = " ".join(command.help.split()[:4])
            assert gen_cli._plain(first_words) in " ".join(sections[name].split()), name


def test_the_hook_fills_the_cli_page() -> None:
    hooks = _load("hooks")
    page = (DOCS / "cli.md").read_text()
    assert "<!-- cli-reference -->" in page
    filled = hooks.on_page_markdown(page, page=None, config=None, files=None)
    assert "<!-- cli-reference -->" not in filled
    assert "## `sessionproof run`" in filled and "`--agent-timeout`" in filled


def test_pipes_in_table_code_spans_read_the_same_on_the_site() -> None:
    hooks = _load("hooks")
    row = "| `score PATH [--format auto\\|tau2]` | a \\| b |"
    assert hooks._unescape_pipes(row) == "| `score PATH [--format auto|tau2]` | a \\| b |"
    assert hooks._unescape_pipes("text `a\\|b`") == "text `a\\|b`"


def test_the_hook_fills_the_metric_definitions() -> None:
    from sessionproof.scoring import ALL_METRIC_DEFINITIONS

    hooks = _load("hooks")
    page = (DOCS / "concepts.md").read_text()
    assert "<!-- metric-definitions -->" in page
    filled = hooks.on_page_markdown(page, page=None, config=None, files=None)
    assert "<!-- metric-definitions -->" not in filled
    assert len(ALL_METRIC_DEFINITIONS) >= 10
    for name, text in ALL_METRIC_DEFINITIONS.items():
        row = next(line for line in filled.splitlines() if line.startswith(f"| `{name}` |"))
        assert " ".join(text.split()) in row.replace("\\|", "|")
