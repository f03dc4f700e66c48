"""Environments: any suite as a Gymnasium environment (`SessionEnv`, the optional extra
`sessionproof[gym]`), one agent decision per step, run by the engine as `run` runs it.

Imported on first use (PEP 562): importing the package needs no Gymnasium; using
`SessionEnv` without it raises `ConfigError` saying what to install.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._env import SessionEnv

_MODULE_OF: dict[str, str] = {
    "SessionEnv": "._env",
}
__all__ = ["SessionEnv"]

__getattr__, __dir__ = lazy_exports(__name__, _MODULE_OF, submodules=True)
