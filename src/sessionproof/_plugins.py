"""The extension points: one registry per kind of plug-in, fed by the built-ins and by entry points.

Every seam a package may extend (suites, domains, transcript formats, call-matching rules,
metrics, model providers, tool-source kinds, judges) is a `Registry` named after its entry-point
group, `sessionproof.<kind>`. An entry is found three ways, in this order of precedence:

1. registered at run time (`Registry.add`, what the `register_*` functions call);
2. an entry point of the group in any installed distribution — sessionproof's own benchmarks
   (tau2, BFCL, wild) are declared this way in its `pyproject.toml`, exactly as a third party's
   package would declare its own;
3. nothing else: a generic package never names a benchmark.

An entry is a `"module:attribute"` reference until it is first used, so asking what is
registered imports nothing but the entry-point metadata (read once per process, on first use).
`resolve` is the one resolver of `module:attr` references in sessionproof.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from .errors import ConfigError

T = TypeVar("T")

GROUP_PREFIX = "sessionproof."
"""Entry-point groups are `sessionproof.<kind>`, e.g. `sessionproof.suites`."""


def resolve(ref: str, *, what: str = "reference") -> Any:
    """The object `ref` names: `"package.module:attribute"` (attribute may be dotted).

    Raises `ConfigError` naming `what` when the reference is malformed, the module cannot be
    imported, or the attribute is missing; an error raised while importing the module itself
    (a bug in the plug-in) is chained, not hidden.
    """
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"{what} {ref!r}: expected 'module:attribute'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise ConfigError(f"{what} {ref!r}: cannot import {module_name!r} ({exc})") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"{what} {ref!r}: {module_name!r} has no {attr!r}") from None
    return obj


_GROUPS: dict[str, dict[str, EntryPoint]] = {}
_ALL: list[EntryPoint] | None = None
_GROUPS_LOCK = threading.Lock()


def _ours() -> list[EntryPoint]:
    """Every `sessionproof.*` entry point of every installed distribution, read in one pass.

    `entry_points()` walks each distribution's `entry_points.txt` once and tells a
    distribution found twice on sys.path by its folder's name (parsing no METADATA file:
    half the cost of asking each distribution its name); its groups are then selected.
    """
    found = entry_points()
    return [
        ep
        for group in sorted(found.groups)
        if group.startswith(GROUP_PREFIX)
        for ep in found.select(group=group)
    ]


def group_entry_points(group: str) -> dict[str, EntryPoint]:
    """The entry points of `group` in every installed distribution, by name (read once)."""
    global _ALL
    with _GROUPS_LOCK:
        found = _GROUPS.get(group)
        if found is None:
            # Every distribution's metadata is read once per process (~15 ms with 160
            # distributions), then each group is selected from it: a second group costs
            # microseconds, not another scan.
            if _ALL is None:
                _ALL = _ours()
            found = {}
            for ep in (e for e in _ALL if e.group == group):
                # Two distributions declaring one name: the first found wins, as importlib's
                # own order (sys.path order) decides; the same for every look-up.
                found.setdefault(ep.name, ep)
            _GROUPS[group] = found
        return found


def forget_entry_points() -> None:
    """Read the entry points again on next use (after installing a plug-in in this process)."""
    global _ALL
    with _GROUPS_LOCK:
        _GROUPS.clear()
        _ALL = None


@dataclass(frozen=True)
class Entry:
    """One registered name: where it comes from and what it refers to."""

    name: str
    ref: str
    """`module:attribute`, or `<object>` for an object registered directly."""
    origin: str
    """`runtime`, or the distribution that declared the entry point (e.g. `sessionproof`)."""


class Registry(Generic[T]):
    """The plug-ins of one kind: name → object, resolved lazily and cached.

    `kind` is the entry-point group's suffix (`suites` → group `sessionproof.suites`). `check`
    (optional) validates a resolved object and returns it (typed), raising `ConfigError` with
    a plain reason when it is not a `T`.
    """

    def __init__(self, kind: str, *, check: Callable[[str, Any], T] | None = None) -> None:
        self.kind = kind
        self.group = GROUP_PREFIX + kind
        self._check = check
        self._refs: dict[str, str] = {}
        self._objects: dict[str, T] = {}
        self._lock = threading.RLock()

    # -- registering ---------------------------------------------------------------------

    def add(self, name: str, target: str | T, *, replace: bool = True) -> None:
        """Register `target` (an object, or a lazily imported `module:attribute`) as `name`."""
        with self._lock:
            if not replace and name in self.names():
                raise ConfigError(f"{self.kind}: {name!r} is already registered")
            self._objects.pop(name, None)
            if isinstance(target, str):
                self._refs[name] = target
            else:
                self._refs[name] = "<object>"
                self._objects[name] = target

    def remove(self, name: str) -> None:
        """Forget a run-time registration (entry points stay)."""
        with self._lock:
            self._refs.pop(name, None)
            self._objects.pop(name, None)

    # -- looking up ----------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """Every registered name with its reference and origin, sorted by name."""
        out: dict[str, Entry] = {}
        for name, ep in group_entry_points(self.group).items():
            dist = ep.dist.name if ep.dist is not None else "?"
            out[name] = Entry(name, ep.value, dist)
        with self._lock:
            for name, ref in self._refs.items():
                out[name] = Entry(name, ref, "runtime")
        return [out[n] for n in sorted(out)]

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        with self._lock:
            return sorted({*group_entry_points(self.group), *self._refs})

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> T | None:
        """The object registered as `name`, imported on first use; None when none is."""
        with self._lock:
            if name in self._objects:
                return self._objects[name]
            ref = self._refs.get(name)
        if ref is None:
            ep = group_entry_points(self.group).get(name)
            if ep is None:
                return None
            ref = ep.value
        obj = resolve(ref, what=f"{self.kind} plug-in {name!r}")
        if self._check is not None:
            obj = self._check(name, obj)
        with self._lock:
            self._objects[name] = obj
        result: T = obj
        return result

    def require(self, name: str) -> T:
        """The object registered as `name`; `ConfigError` listing the known names if none."""
        found = self.get(name)
        if found is None:
            known = ", ".join(self.names()) or "none"
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {known}")
        return found

    def loaded(self) -> dict[str, T]:
        """Every entry, each imported (for look-ups that must see all, e.g. format sniffing)."""
        out: dict[str, T] = {}
        for name in self.names():
            obj = self.get(name)
            if obj is not None:
                out[name] = obj
        return out
