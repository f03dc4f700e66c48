"""Faults at both boundaries of a session, absorbed or surfaced: the tool boundary (a fault
plan's injected tool failures) and the model boundary (a model-fault plan's faults on the
agent's own provider requests), counted apart.

- Model boundary (`provider_fault` events): absorbed when the transport's retries still got
  the model's reply; surfaced when they ran out (the session ended as `infra_error`, excluded
  from accuracy) or the reply itself was damaged (`bad_args`: the agent's malformed output).
- Tool boundary (`fault_injected` events): surfaced when the failure reached the agent as a
  tool result (`injected`); absorbed when it did not (the guard retried past it).

`boundary_rows` is the one table `run` and `show` print and the HTML report shows, per arm
(only when an arm met a fault at either boundary: a run without faults shows nothing new).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..records import EventKind, Session


@dataclass
class BoundaryCounts:
    """One session's faults at one boundary, by kind."""

    absorbed: Counter[str] = field(default_factory=Counter)
    surfaced: Counter[str] = field(default_factory=Counter)

    @property
    def served(self) -> int:
        """Every fault at this boundary."""
        return sum(self.absorbed.values()) + sum(self.surfaced.values())

    def add(self, other: BoundaryCounts) -> None:
        """Count `other`'s faults in too."""
        self.absorbed.update(other.absorbed)
        self.surfaced.update(other.surfaced)


def model_boundary(session: Session) -> BoundaryCounts:
    """The session's faults at the model boundary, by kind (`429`, `5xx`, ...)."""
    counts = BoundaryCounts()
    for event in session.events:
        if event.kind is EventKind.provider_fault:
            fault = event.payload
            (counts.absorbed if fault.absorbed else counts.surfaced)[fault.fault.value] += 1
    return counts


def tool_boundary(session: Session) -> BoundaryCounts:
    """The session's injected tool faults, by error class: those that reached the agent as
    a tool result, and the rest (absorbed by the guard's retries)."""
    injected: Counter[str] = Counter()
    reached: Counter[str] = Counter()
    for event in session.events:
        if event.kind is EventKind.fault_injected:
            if event.payload.side == "user":
                continue  # the user's own tools: no boundary of the agent's
            injected[event.payload.error_class.value] += 1
        elif event.kind is EventKind.tool_result and event.payload.injected:
            error_class = event.payload.error_class
            reached[error_class.value if error_class is not None else "unknown"] += 1
    surfaced = Counter({k: min(v, injected[k]) for k, v in reached.items() if injected[k]})
    return BoundaryCounts(absorbed=injected - surfaced, surfaced=surfaced)


_BOUNDARY_FAULTS = frozenset({EventKind.fault_injected, EventKind.provider_fault})


def _arm_counts(sessions: Sequence[Session]) -> tuple[BoundaryCounts, BoundaryCounts, int]:
    """One arm's tool and model boundaries, and its sessions that ended as infra_error."""
    tool, model = BoundaryCounts(), BoundaryCounts()
    for session in sessions:
        # A tool result counts as surfaced only beside its `fault_injected` event, so a
        # session with neither kind adds nothing at either boundary.
        if not any(e.kind in _BOUNDARY_FAULTS for e in session.events):
            continue
        tool.add(tool_boundary(session))
        model.add(model_boundary(session))
    return tool, model, sum(1 for s in sessions if s.infra_error)


def boundary_rows(by_arm: Mapping[str, Sequence[Session]]) -> list[list[str]]:
    """One row per arm with a fault at either boundary: the arm, tool faults absorbed and
    surfaced, model faults absorbed and surfaced (with their kinds), and the sessions that
    ended as infra_error."""
    rows: list[list[str]] = []
    for arm, sessions in by_arm.items():
        tool, model, infra = _arm_counts(sessions)
        if not tool.served and not model.served:
            continue
        rows.append(
            [
                arm,
                str(sum(tool.absorbed.values())),
                str(sum(tool.surfaced.values())),
                _with_kinds(model.absorbed),
                _with_kinds(model.surfaced),
                str(infra),
            ]
        )
    return rows


def boundaries_json(by_arm: Mapping[str, Sequence[Session]]) -> dict[str, dict[str, object]]:
    """The same counts as `boundary_rows`, by arm, boundary, fate and kind (only arms that met
    a fault at either boundary), for `--json`."""
    out: dict[str, dict[str, object]] = {}
    for arm, sessions in by_arm.items():
        tool, model, infra = _arm_counts(sessions)
        if tool.served or model.served:
            out[arm] = {
                side: {
                    "absorbed": dict(sorted(c.absorbed.items())),
                    "surfaced": dict(sorted(c.surfaced.items())),
                }
                for side, c in (("tool", tool), ("model", model))
            } | {"infra_errors": infra}
    return out


BOUNDARY_COLUMNS = [
    "arm",
    "tool faults absorbed",
    "tool faults surfaced",
    "model faults absorbed",
    "model faults surfaced",
    "infra",
]
"""The header of `boundary_rows`."""


def _with_kinds(counts: Counter[str]) -> str:
    total = sum(counts.values())
    if not total:
        return "0"
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    return f"{total} ({kinds})"
