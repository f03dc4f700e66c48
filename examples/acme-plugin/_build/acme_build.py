"""A minimal PEP 517 build backend: a pure-Python wheel of `src/<package>` with the project's
metadata and entry points. It exists so the example installs offline; use any real backend
(hatchling, setuptools) in a package of your own."""

from __future__ import annotations

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict[str, object]:
    project: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project


def _dist_info(project: dict[str, object]) -> tuple[str, dict[str, str]]:
    name = str(project["name"])
    version = str(project["version"])
    stem = f"{name.replace('-', '_')}-{version}"
    requires = "".join(f"Requires-Dist: {r}\n" for r in project.get("dependencies", []))  # type: ignore[attr-defined]
    groups = project.get("entry-points", {})
    entry_points = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
        for group, entries in groups.items()  # type: ignore[attr-defined]
    )
    files = {
        "METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{requires}",
        "WHEEL": "Wheel-Version: 1.0\nGenerator: acme_build\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
        "entry_points.txt": entry_points,
    }
    return f"{stem}.dist-info", files


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def get_requires_for_build_wheel(config_settings: object = None) -> list[str]:
    """Nothing beyond the standard library."""
    return []


def build_wheel(
    wheel_directory: str, config_settings: object = None, metadata_directory: object = None
) -> str:
    """Write the wheel into `wheel_directory`; its file name."""
    project = _project()
    info, meta = _dist_info(project)
    wheel = f"{info.removesuffix('.dist-info')}-py3-none-any.whl"
    record = ""
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as out:
        for path in sorted((ROOT / "src").rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                arcname = path.relative_to(ROOT / "src").as_posix()
                data = path.read_bytes()
                out.writestr(arcname, data)
                record += _record_line(arcname, data)
        for name, text in meta.items():
            data = text.encode()
            out.writestr(f"{info}/{name}", data)
            record += _record_line(f"{info}/{name}", data)
        out.writestr(f"{info}/RECORD", record + f"{info}/RECORD,,\n")
    return wheel
