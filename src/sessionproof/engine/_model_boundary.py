"""The model boundary of a session: its model-fault plan, and the trace of what it served.

A session's hooks may carry a model-fault plan (`model_faults`, a `faults.ModelFaultPlan`:
the `model_faults=` part of an arm). Around each agent decision the engine opens one model
call of the session's `ModelFaultSession`; the agent's provider requests inside it meet the
plan, and when the decision is over each fault served is recorded as a `provider_fault`
event — absorbed when the transport's retries still got the reply, surfaced otherwise.
A simulated user's requests run outside these scopes and never meet the plan.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..agents._internal import ModelFaultSession
from ..records import EventKind

if TYPE_CHECKING:
    from ._loop import SessionPlan
    from ._recorder import Recorder


class ModelCallOutcome:
    """What the engine learnt of one model call: whether the agent's reply came."""

    replied = False


class ProviderFaults:
    """One session's model-boundary faults (none when its hooks carry no plan)."""

    def __init__(self, session: ModelFaultSession | None, rec: Recorder) -> None:
        self.session = session
        self.rec = rec

    @classmethod
    def of(cls, plan: SessionPlan, rec: Recorder) -> ProviderFaults:
        """The faults of the session `plan` describes, recorded by `rec`."""
        found = getattr(plan.hooks, "model_faults", None)
        if found is None or not callable(getattr(found, "fault_at", None)):
            return cls(None, rec)
        return cls(ModelFaultSession(found, plan.seed, plan.scenario.id, plan.trial), rec)

    @contextlib.contextmanager
    def model_call(self) -> Iterator[ModelCallOutcome]:
        """The scope of one agent decision; set `replied` on what it yields when the reply
        came. On leaving, every fault served in it becomes a `provider_fault` event."""
        outcome = ModelCallOutcome()
        if self.session is None:
            yield outcome
            return
        with self.session.model_call() as call:
            try:
                yield outcome
            finally:
                for fault in call.events(outcome.replied):
                    self.rec.emit(EventKind.provider_fault, fault)
