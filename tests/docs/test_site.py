"""The documentation's shape: a README of at most 120 lines that keeps the two set-up commands
and links only to pages that exist, every page in the site's navigation, the architecture
diagram equal to the import contracts, every measurement dated on the results page, and the
README's examples real (its Python runs, its commands use options the CLI has)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

from sessionproof.cli._internal import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_readme_is_short_and_keeps_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 120
    assert "bash scripts/setup.sh && .venv/bin/sessionproof run --suite quickstart" in readme
    assert "\nbash scripts/test.sh\n" in readme
    links = re.findall(r"\]\(([^)#]+\.md)\)", readme)
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).is_file(), link


def _nav_pages(items: list[Any] | None = None) -> list[str]:
    """Every page the navigation lists, sections opened."""
    if items is None:
        items = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    pages: list[str] = []
    for item in items:
        (value,) = item.values()
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_navigation() -> None:
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert sorted(_nav_pages()) == pages
    for kept in ("byo.md", "projects.md", "telemetry.md", "extending.md", "cli.md", "api.md"):
        assert kept in pages


def test_the_layer_diagram_matches_the_import_contracts() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (layers,) = [
        c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"
    ]
    page = (DOCS / "architecture.md").read_text()
    diagram = page.split("```text\ncli\n", 1)[1].split("```", 1)[0]
    drawn = ["cli"] + [
        line.split("───")[0].strip() for line in diagram.splitlines() if line.strip() != "│"
    ]
    drawn = [d for d in drawn if d]
    assert drawn == [layer.strip() for layer in layers]


def test_every_measurement_on_the_results_page_has_a_date_and_a_machine() -> None:
    rows = 0
    for table in re.split(r"\n\n", (DOCS / "results.md").read_text()):
        lines = [line for line in table.splitlines() if line.startswith("|")]
        if not lines or "date" not in lines[0] or "machine" not in lines[0]:
            continue
        header = [c.strip() for c in lines[0].strip("|").split("|")]
        date_at, machine_at = header.index("date"), header.index("machine")
        for line in lines[2:]:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip("|"))]
            assert re.search(r"2026-\d\d-\d\d|before|earlier", cells[date_at]), line
            assert "machine" in cells[machine_at], line
            rows += 1
    assert rows >= 30


def test_no_other_page_quotes_a_dated_figure() -> None:
    for page in DOCS.glob("*.md"):
        if page.name != "results.md":
            assert not re.search(r"\b2026-\d\d-\d\d\b", page.read_text()), page.name


def _readme_blocks(language: str) -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return re.findall(rf"```{language}\n(.*?)```", readme, flags=re.S)


def test_the_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    (code,) = _readme_blocks("python")
    exec(compile(code, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" 1.0 ")[0] for line in lines] == ["baseline", "faults=3% guard"]


def test_the_readme_commands_use_real_options() -> None:
    root: Any = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="sessionproof")
    used = 0
    for block in _readme_blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            if ".venv/bin/sessionproof " not in line:
                continue
            words = line.split("#")[0].split(".venv/bin/sessionproof ", 1)[1].split()
            command = root.commands[words[0]]
            sub = command.context_class(command, info_name=words[0], parent=ctx)
            options = {o for p in command.get_params(sub) for o in getattr(p, "opts", [])}
            for word in words[1:]:
                if word.startswith("--"):
                    assert word in options, (words[0], word)
                    used += 1
    assert used >= 10


def test_every_page_names_only_options_the_cli_has() -> None:
    root: Any = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="sessionproof")
    options: dict[str, set[str]] = {}
    for name, command in root.commands.items():
        sub = command.context_class(command, info_name=name, parent=ctx)
        params = command.get_params(sub)
        options[name] = {o for p in params for o in [*p.opts, *getattr(p, "secondary_opts", [])]}
    checked = 0
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for match in re.finditer(r"sessionproof ([a-z]+)\b([^\n`|]*)", page.read_text()):
            if match.group(1) not in options:
                continue
            for option in re.findall(r"--[a-z][a-z-]*", match.group(2)):
                assert option in options[match.group(1)], (page.name, match.group(0))
                checked += 1
    assert checked >= 100
