"""Who hears about a provider request's retries: the hooks called as each one is scheduled.

The transport retries (`agents._retry`, on tenacity) call every hook set here once per retry,
before its wait, with a `RetryDetails`. By default one warning is logged on the
`sessionproof.retry` logger (the error's type, never its text: a provider's error may echo
request headers); the CLI replaces that with one scrubbed line on stderr. This module imports
nothing heavy, so the CLI can set its hook at start-up for free.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryDetails:
    """One scheduled retry of a provider request."""

    retry_num: int
    """The attempt that failed and is being retried (1 for the first)."""
    wait_for: float
    """Seconds until the retry."""
    waited_so_far: float
    """Seconds already waited before this retry's wait (the backoffs, not the 429 waits)."""
    caused_by: BaseException
    """The error that made the attempt fail."""


RetryHook = Callable[[RetryDetails], None]
"""Called once per scheduled retry."""


def log_retry(details: RetryDetails) -> None:
    """The default hook: one warning on the `sessionproof.retry` logger."""
    import logging  # here: the CLI, which replaces this hook, never pays for the import

    logging.getLogger("sessionproof.retry").warning(
        "retry %d in %.1f s: %s",
        details.retry_num,
        details.wait_for,
        type(details.caused_by).__name__,
    )


_hooks: tuple[RetryHook, ...] = (log_retry,)


def set_on_retry_hooks(hooks: Iterable[RetryHook] | None) -> None:
    """Set the hooks called for each scheduled retry; None restores the default (`log_retry`),
    an empty iterable silences retries."""
    global _hooks
    _hooks = (log_retry,) if hooks is None else tuple(hooks)


def on_retry(details: RetryDetails) -> None:
    """Tell every hook about one scheduled retry."""
    for hook in _hooks:
        hook(details)
