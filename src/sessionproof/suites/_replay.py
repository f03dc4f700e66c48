"""Replaying a recorded session's tool calls into a fresh domain (any domain).

Only tools that can write are run (a read cannot move the state), in the order they were
made, each with its recorded arguments; calls that failed are run too, because a failing
write may have changed the state before failing, exactly as it did in the recording. A call
with no recorded reply, or arguments that never parsed, is skipped: the domain never ran it.
Implicit faults say what the domain really did: a write under `silent_noop` or
`error_in_body` committed nothing (skipped), one under `duplicate_write` ran twice.
A benchmark may replay faster into its own domains (passing its own `writes` and `run`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..domains import Domain, DomainSpec
from ..errors import ToolError
from ..records import Session, ToolCall, ToolCallEvent, ToolResultEvent
from ..records._internal import UNCOMMITTED_KINDS, ImplicitFaultEvent, ImplicitFaultKind


def replayed_calls(session: Session) -> list[ToolCall]:
    """The session's tool calls that reached the domain (they have a recorded reply that the
    domain gave: an injected fault's reply means the call never got there), each as many
    times as it took effect (see the module docstring for implicit faults)."""
    answered: set[str] = set()
    calls: list[ToolCall] = []
    uncommitted: set[str] = set()
    twice: set[str] = set()
    for event in session.events:  # one pass, not one per kind
        if isinstance(event, ToolResultEvent):
            if not event.payload.injected:
                answered.add(event.payload.call_id)
        elif isinstance(event, ToolCallEvent):
            calls.append(event.payload)
        elif isinstance(event, ImplicitFaultEvent):
            fault = event.payload
            if fault.fault in UNCOMMITTED_KINDS:
                uncommitted.add(fault.call_id)
            elif fault.fault is ImplicitFaultKind.duplicate_write and fault.change.get("second_ok"):
                twice.add(fault.call_id)
    out: list[ToolCall] = []
    for c in calls:
        if c.id in answered and c.id not in uncommitted and c.arguments is not None:
            out.extend([c, c] if c.id in twice else [c])
    return out


def _writes(domain: Domain[Any]) -> Callable[[str], bool]:
    def writes(name: str) -> bool:
        spec = next((t for t in domain.tools() if t.name == name), None)
        return spec is None or spec.write

    return writes


def replay_into(
    domain: Domain[Any],
    calls: Iterable[tuple[str, dict[str, Any]]],
    *,
    writes: Callable[[str], bool] | None = None,
    run: Callable[[str, dict[str, Any]], Any] | None = None,
) -> list[str]:
    """Run the write calls of `calls` on `domain`; the failures met on the way. `writes`
    tells a write tool (default: the domain's tool specs), `run` runs one (`domain.call`)."""
    is_write = writes or _writes(domain)
    call = run or domain.call
    failures: list[str] = []
    for name, args in calls:
        if not is_write(name):
            continue
        try:
            call(name, dict(args))
        except ToolError as exc:
            failures.append(f"{name}: {exc}")
        except Exception as exc:  # a domain's tool may raise anything
            failures.append(f"{name}: {type(exc).__name__}: {exc}")
    return failures


def replay(
    spec: DomainSpec, calls: Iterable[tuple[str, dict[str, Any]]]
) -> tuple[Domain[Any], list[str]]:
    """A fresh domain after running the write calls; the failures met on the way."""
    domain = spec.create()
    return domain, replay_into(domain, calls)
