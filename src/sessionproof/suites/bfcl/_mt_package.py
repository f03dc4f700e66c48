"""The installed `bfcl-eval` package: BFCL's own multi-turn API classes and data files.

sessionproof copies none of BFCL's multi-turn code or data: the stateful classes (file system,
math, messages, posting, tickets, trading, travel, vehicle) are imported from the package and
the question, possible-answer and function-document files are read from its `data/` folder.
The package is installed without its declared dependencies (they pull in torch, faiss and a
dozen provider SDKs that the multi-turn classes never import); `mpmath` is the one extra the
classes need. `scripts/setup.sh` installs both.
"""

from __future__ import annotations

import importlib
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from ...errors import ConfigError

BFCL_EVAL_VERSION = "2026.3.23"
"""The bfcl-eval release the multi-turn suites and their parity tests are pinned to."""

INSTALL_HINT = (
    f"pip install --no-deps bfcl-eval=={BFCL_EVAL_VERSION} mpmath "
    "(or: bash scripts/setup.sh, which does it)"
)

_BACKEND = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"

CLASS_MODULES: dict[str, str] = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}
"""The multi-turn classes, by BFCL class name: module of `bfcl_eval` that defines each, which
is also the stem of its function-document file in `data/multi_turn_func_doc/`."""

STATELESS_CLASSES = frozenset({"MathAPI"})
"""Classes BFCL builds without loading a scenario (they have no state)."""

MULTI_TURN_CATEGORIES = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
"""BFCL v4 multi-turn categories runnable as `--suite bfcl:<category>`."""


class BfclEvalMissing(ConfigError):
    """`bfcl-eval` (or one of the few modules its multi-turn classes import) is missing."""


def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise BfclEvalMissing(
            f"BFCL multi-turn needs the bfcl-eval package ({exc}); install it with: " + INSTALL_HINT
        ) from None


def api_class(class_name: str) -> type[Any]:
    """BFCL's class `class_name` (e.g. `GorillaFileSystem`), imported from bfcl-eval.

    Raises `ConfigError` for a class outside the multi-turn set, `BfclEvalMissing` when the
    package is not installed.
    """
    module = CLASS_MODULES.get(class_name)
    if module is None:
        raise ConfigError(
            f"unknown BFCL multi-turn class {class_name!r}; known: {', '.join(CLASS_MODULES)}"
        )
    cls: type[Any] = getattr(_import(f"{_BACKEND}.{module}"), class_name)
    return cls


def data_dir() -> Traversable:
    """The `data/` folder of the installed bfcl-eval (`BfclEvalMissing` without it)."""
    _import("bfcl_eval")
    return resources.files("bfcl_eval").joinpath("data")


def additional_function_message() -> str:
    """The user message BFCL sends at a miss_func turn where held-back functions appear."""
    prompts = _import("bfcl_eval.constants.default_prompts")
    return str(prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC)


def installed_version() -> str | None:
    """The installed bfcl-eval version, or None when it is not installed."""
    from importlib import metadata

    try:
        return metadata.version("bfcl-eval")
    except metadata.PackageNotFoundError:
        return None
