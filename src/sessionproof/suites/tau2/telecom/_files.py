"""Where the telecom domain's files come from: the package's own (tau2's small task set, our
policy), or a tau2-bench checkout's data directory (its full task set, its policy texts).

The checkout is named by `--tau2-data DIR` or the `SESSIONPROOF_TAU2_DATA` environment
variable: DIR is tau2-bench's `data` directory (it holds `tau2/domains/telecom/`); the
checkout's root, or the telecom folder itself, are accepted too.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from ....errors import InputFileError

PACKAGE = "sessionproof.suites.tau2.telecom"
DATA_ENV = "SESSIONPROOF_TAU2_DATA"
"""The environment variable naming a tau2-bench data directory (`--tau2-data` sets it)."""
_NEEDED = ("db.toml", "user_db.toml", "split_tasks.json")


@dataclass(frozen=True)
class TelecomFiles:
    """One source of the telecom files: `folder` None is the package's own."""

    folder: Path | None = None

    @property
    def where(self) -> str:
        """How errors name this source."""
        return "telecom data/" if self.folder is None else f"{self.folder}/"

    def _bytes(self, name: str) -> bytes:
        try:
            if self.folder is None:
                return (resources.files(PACKAGE) / "data" / name).read_bytes()
            return (self.folder / name).read_bytes()
        except OSError as exc:
            raise InputFileError(
                f"{self.where}{name}: cannot read: {exc.strerror or exc}"
            ) from None

    def toml(self, name: str) -> dict[str, Any]:
        """A TOML file, parsed; a broken one is an `InputFileError`."""
        try:
            return tomllib.loads(self._bytes(name).decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InputFileError(f"{self.where}{name}: not valid TOML: {exc}") from None

    def json(self, name: str) -> Any:
        """A JSON file, parsed; a broken one is an `InputFileError`."""
        try:
            return orjson.loads(self._bytes(name))
        except orjson.JSONDecodeError as exc:
            raise InputFileError(f"{self.where}{name}: not valid JSON: {exc}") from None

    @property
    def task_file(self) -> str:
        """The task file: the package ships tau2's small set; a checkout has the full one."""
        return "tasks_small.json" if self.folder is None else "tasks.json"

    def policy(self) -> str:
        """The agent's policy: ours, or tau2's main policy and tech-support manual."""
        if self.folder is None:
            return (resources.files(PACKAGE) / "policy.md").read_text(encoding="utf-8")
        main = self._bytes("main_policy.md").decode("utf-8")
        manual = self._bytes("tech_support_manual.md").decode("utf-8")
        return (
            f"<main_policy>\n{main}\n</main_policy>\n"
            f"<tech_support_policy>\n{manual}\n</tech_support_policy>"
        )


def _telecom_folder(given: Path) -> Path:
    for candidate in (
        given / "tau2" / "domains" / "telecom",
        given / "data" / "tau2" / "domains" / "telecom",
        given,
    ):
        if all((candidate / name).is_file() for name in _NEEDED):
            return candidate
    raise InputFileError(
        f"{DATA_ENV} / --tau2-data {given}: not a tau2-bench data directory (no "
        f"tau2/domains/telecom/ with {', '.join(_NEEDED)} under it)"
    )


def _files_at(folder: str | None) -> TelecomFiles:
    if folder is None:
        return TelecomFiles()
    given = Path(folder).expanduser()
    if not given.is_dir():
        raise InputFileError(f"{DATA_ENV} / --tau2-data {folder}: no such directory")
    found = _telecom_folder(given)
    for name in ("tasks.json", "main_policy.md", "tech_support_manual.md"):
        if not (found / name).is_file():
            raise InputFileError(f"{found}: {name} is missing (a tau2-bench checkout has it)")
    return TelecomFiles(found.resolve())


def telecom_files(folder: str | None = None) -> TelecomFiles:
    """The files of `folder` (a tau2-bench data directory), else of `SESSIONPROOF_TAU2_DATA`
    when it is set, else the package's own. Raises `InputFileError` for a folder that is
    not laid out like tau2's."""
    chosen = folder if folder is not None else os.environ.get(DATA_ENV) or None
    return _files_at(chosen)
