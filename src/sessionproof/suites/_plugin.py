"""Suite plug-ins: what a package registers under the `sessionproof.suites` entry-point group.

A suite plug-in is a `SuitePlugin`: a one-line description for `run --help` and a factory
that builds the suite for the name the user gave. It is registered under the suite's name or,
for a family of suites (`NAME:PART`), under the prefix before the first ":"; the factory then
receives the whole name. sessionproof's own benchmarks are declared this way in its
`pyproject.toml`, exactly as a third party's package declares its own:

    [project.entry-points."sessionproof.suites"]
    acme = "acme_plugin:SUITE"

A suite is *built in* when sessionproof itself provides it (the demo suites in code, or an
entry point of the `sessionproof` distribution). Any other suite is treated as a user's suite
file is: it is code, so a stored run or a trace that merely names it never loads it again
(only runs made by `run` or `serve`, where the user named it, do).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._plugins import Registry
from ..errors import ConfigError

if TYPE_CHECKING:
    from ._suite import Suite

OWN_DISTRIBUTION = "sessionproof"
"""The distribution whose entry points count as built in."""


@dataclass(frozen=True)
class SuitePlugin:
    """A suite (or a family of suites `NAME:PART`) that a package provides."""

    describe: str
    """One line for `run --help`."""
    load: Callable[[str], Suite]
    """Builds the suite for the full name the user gave (e.g. `acme:smoke`)."""
    usage: str = ""
    """How the name is written in help, e.g. `acme[:SPLIT]`; empty: the registered name."""


def _check(name: str, obj: Any) -> SuitePlugin:
    if not isinstance(obj, SuitePlugin):
        raise ConfigError(f"suite plug-in {name!r} is a {type(obj).__name__}, not a SuitePlugin")
    return obj


SUITES: Registry[SuitePlugin] = Registry("suites", check=_check)
"""Every suite plug-in: the demo suites in code, the rest from entry points."""

IN_CODE: set[str] = set()
"""Names registered by sessionproof's own code (built in, like its own entry points)."""


def register_suite(name: str, plugin: SuitePlugin) -> None:
    """Make `plugin` available as suite `name` (and `name:PART`) in this process."""
    SUITES.add(name, plugin)


def plugin_key(name: str) -> str | None:
    """The registered name that serves suite `name` (itself, or its prefix before ":")."""
    known = SUITES.names()
    if name in known:
        return name
    prefix, sep, _ = name.partition(":")
    if sep and prefix in known:
        return prefix
    return None


def origin_of(key: str) -> str | None:
    """Who registered `key`: a distribution's name, `runtime`, or None when nobody did."""
    for entry in SUITES.entries():
        if entry.name == key:
            return entry.origin
    return None


def is_own(key: str) -> bool:
    """True when sessionproof itself provides the suite plug-in `key`."""
    origin = origin_of(key)
    if origin == "runtime":
        return key in IN_CODE
    return origin == OWN_DISTRIBUTION


def suite_help() -> dict[str, str]:
    """Each registered suite as written in help → its description (imports each plug-in)."""
    out: dict[str, str] = {}
    for entry in SUITES.entries():
        try:
            plugin = SUITES.get(entry.name)
        except ConfigError as exc:  # a broken plug-in is said, and the rest still listed
            out[entry.name] = f"cannot be loaded: {exc}"
            continue
        if plugin is None:
            continue
        text = plugin.describe
        if not is_own(entry.name):
            text += f" (from {entry.origin})"
        out[plugin.usage or entry.name] = text
    return out
