"""Reaching a Ray cluster: the optional import, and a local cluster kept on loopback."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from typing import Any

from ..errors import ConfigError

RAY_EXTRA = "sessionproof[ray]"
"""The optional extra that installs Ray."""

_LOOPBACK = "127.0.0.1"


def import_ray() -> Any:
    """The `ray` module, or a `ConfigError` naming the extra that installs it."""
    # Ray reads this when it is first imported: with cluster mode off a node advertises and
    # binds its servers on loopback only, so a local cluster listens on nothing outside.
    # A real cluster is joined by address, where the value does not matter.
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError:
        raise ConfigError(
            f"--executor ray needs Ray: pip install '{RAY_EXTRA}' (or pip install ray)"
        ) from None
    return ray


def _notices_to_stderr() -> contextlib.AbstractContextManager[object]:
    # Ray prints its raylet's notices (a worker died, ...) on the driver's stdout, from a
    # thread, where a run's stdout carries its JSON report: during the run they go to
    # stderr with the progress lines.
    return contextlib.redirect_stdout(sys.stderr)


def _cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


@contextlib.contextmanager
def connect(address: str | None) -> Iterator[int]:
    """Use a Ray cluster for the block; yields its CPU count.

    An already-initialised Ray (a test's cluster, a trainer's) is used as it is and left
    running. Else `address` (or `RAY_ADDRESS`) is joined, or a local cluster of this
    machine's cores is started on 127.0.0.1 with no dashboard, and shut down afterwards.
    """
    ray = import_ray()
    if ray.is_initialized():
        with _notices_to_stderr():
            yield _cpus(ray)
        return
    quiet: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    try:
        if address or os.environ.get("RAY_ADDRESS"):
            ray.init(address=address, **quiet)
        else:
            ray.init(
                num_cpus=os.cpu_count() or 1,
                include_dashboard=False,
                _node_ip_address=_LOOPBACK,
                **quiet,
            )
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise ConfigError(f"cannot reach the Ray cluster at {address}: {exc}") from None
    try:
        with _notices_to_stderr():
            yield _cpus(ray)
    finally:
        ray.shutdown()
