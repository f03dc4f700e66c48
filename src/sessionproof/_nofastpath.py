"""`SESSIONPROOF_NO_FASTPATH=1`: use only public APIs where sessionproof has a fast path.

Two speed tricks rely on another library's internals, each behind one named module that
falls back to the public API on its own when those internals change: `records._fastpath`
(pydantic's private instance state) and `agents._fastpath` (the openai SDK's private
helpers, under sessionproof's own HTTP/1.1 client). This variable selects both fallbacks,
read once when each module is imported or an agent is made: to rule a fast path out while
chasing a bug, or to compare the two.
"""

from __future__ import annotations

import os

NO_FASTPATH_ENV = "SESSIONPROOF_NO_FASTPATH"
"""The environment variable's name."""


def fastpath_disabled() -> bool:
    """True when the environment sets `SESSIONPROOF_NO_FASTPATH` to 1 (or true, yes, on)."""
    return os.environ.get(NO_FASTPATH_ENV, "").strip().lower() in {"1", "true", "yes", "on"}
