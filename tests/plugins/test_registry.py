"""The plug-in registry: run-time entries, installed entry points, the one resolver."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sessionproof._plugins import Registry, forget_entry_points, resolve
from sessionproof.errors import ConfigError


def _install_dist(tmp_path: Path, group: str, lines: list[str]) -> None:
    """A distribution with entry points on sys.path, as `pip install` leaves one."""
    info = tmp_path / "acme_probe-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-probe\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n" + "\n".join(lines) + "\n")
    (tmp_path / "acme_probe.py").write_text("VALUE = 41\nBROKEN = None\n")


@pytest.fixture
def scratch_path(tmp_path: Path):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(tmp_path))
    forget_entry_points()
    yield tmp_path
    sys.path.remove(str(tmp_path))
    sys.modules.pop("acme_probe", None)
    forget_entry_points()


def test_resolve_names_module_and_attribute() -> None:
    assert resolve("os.path:join") is __import__("os").path.join
    with pytest.raises(ConfigError, match="expected 'module:attribute'"):
        resolve("os.path.join")
    with pytest.raises(ConfigError, match="cannot import"):
        resolve("no_such_module_xyz:thing")
    with pytest.raises(ConfigError, match="has no 'nothing'"):
        resolve("os:nothing")


def test_runtime_entries_resolve_lazily_and_list_origin() -> None:
    reg: Registry[object] = Registry("probe-kind")
    reg.add("joiner", "os.path:join")
    reg.add("direct", 7)
    assert reg.names() == ["direct", "joiner"]
    assert [e.origin for e in reg.entries()] == ["runtime", "runtime"]
    assert reg.get("direct") == 7
    assert reg.get("missing") is None
    with pytest.raises(ConfigError, match="unknown probe-kind 'missing'; known: direct, joiner"):
        reg.require("missing")
    reg.remove("direct")
    assert "direct" not in reg


def test_entry_points_of_an_installed_distribution_are_found(scratch_path: Path) -> None:
    _install_dist(scratch_path, "sessionproof.probe-kind", ["answer = acme_probe:VALUE"])
    reg: Registry[int] = Registry("probe-kind")
    assert "answer" in reg.names()
    (entry,) = [e for e in reg.entries() if e.name == "answer"]
    assert entry.origin == "acme-probe" and entry.ref == "acme_probe:VALUE"
    assert reg.require("answer") == 41


def test_check_refuses_a_wrong_object_with_its_name(scratch_path: Path) -> None:
    _install_dist(scratch_path, "sessionproof.probe-kind", ["bad = acme_probe:BROKEN"])

    def must_be_int(name: str, obj: object) -> int:
        if not isinstance(obj, int):
            raise ConfigError(f"probe {name!r} is not an int")
        return obj

    reg = Registry("probe-kind", check=must_be_int)
    with pytest.raises(ConfigError, match="probe 'bad' is not an int"):
        reg.get("bad")
