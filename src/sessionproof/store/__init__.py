"""The trace store: runs, sessions and their events in one embedded DuckDB file.

Sessions are written whole, once, in one transaction each, with secrets scrubbed first (by
shape, and by value for every configured key: see `register_secret`), so a
killed run resumes from `Store.finished_keys` without losing or duplicating a session.
"""

from .._secrets import register_secret
from ._manifest import (
    RunCommand,
    RunListing,
    RunManifest,
    RunStatus,
    SessionRow,
    new_run_id,
    package_versions,
)
from ._prepare import unstorable
from ._recording import recorded_run
from ._schema import SCHEMA_VERSION
from ._scrub import REDACTED, scrub_argv, scrub_text, scrub_value
from ._store import DEFAULT_STORE_PATH, Store

__all__ = [
    "DEFAULT_STORE_PATH",
    "REDACTED",
    "SCHEMA_VERSION",
    "RunCommand",
    "RunListing",
    "RunManifest",
    "RunStatus",
    "SessionRow",
    "Store",
    "new_run_id",
    "package_versions",
    "recorded_run",
    "register_secret",
    "scrub_argv",
    "scrub_text",
    "scrub_value",
    "unstorable",
]
