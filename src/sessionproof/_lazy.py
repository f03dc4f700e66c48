"""Lazy package exports (PEP 562): a package names its public names and the submodule of
each, and each is imported on first use, so importing the package costs nothing more."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, module_of: Mapping[str, str], *, submodules: bool = False
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`, whose names live in the submodules
    `module_of` gives (relative, e.g. "._suite"). With `submodules`, a private submodule
    (`package._x`) is imported on first access too, as an eager package's would be there."""

    def __getattr__(name: str) -> Any:
        if submodules and name.startswith("_") and not name.startswith("__"):
            try:
                return importlib.import_module(f".{name}", package)
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        vars(sys.modules[package])[name] = value  # later look-ups skip the hook
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *module_of})

    return __getattr__, __dir__
