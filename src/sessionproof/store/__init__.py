"""The trace store: runs, sessions and their events in one embedded DuckDB file.

Sessions are written whole, once, in one transaction each, with secrets scrubbed first (by
shape, and by value for every configured key: see `register_secret`), so a
killed run resumes from `Store.finished_keys` without losing or duplicating a session.
"""

from .._secrets import register_secret
from ._manifest import RunManifest
from ._store import Store

__all__ = [
    "RunManifest",
    "Store",
    "register_secret",
]
