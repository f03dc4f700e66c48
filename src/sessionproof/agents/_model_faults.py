"""The model-fault scope of a session: which of the agent's provider requests meet a
model-fault plan (`sessionproof.faults.ModelFaultPlan`), attempt by attempt, and what each
met.

The engine opens `ModelFaultSession.model_call()` around each agent decision; the adapters
ask `current_model_call()` before each request they send (`_model_faults_sdk` serves the
fault in their SDK's own types). A request outside such a scope (a simulated user's, a
judge's) meets no fault.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

from ..records._internal import ProviderFault, ProviderFaultKind

TRANSPORT_KINDS: frozenset[ProviderFaultKind] = frozenset(
    {
        ProviderFaultKind.rate_limited,
        ProviderFaultKind.server_error,
        ProviderFaultKind.timeout,
        ProviderFaultKind.cut_stream,
    }
)
"""The kinds the transport's retries can absorb (everything but `bad_args`)."""


class FaultDraws(Protocol):
    """A model-fault plan as the scope reads it (`faults.ModelFaultPlan` is one)."""

    def fault_at(
        self, seed: int, scenario_id: str, trial: int, model_call: int, attempt: int
    ) -> ProviderFaultKind | None:
        """The fault this attempt of this model call meets, if any."""
        ...


@dataclass
class _Served:
    attempt: int
    fault: ProviderFaultKind
    detail: str


@dataclass
class ModelCallFaults:
    """The faults of one model call (one agent decision): its draws, attempt by attempt."""

    session: ModelFaultSession
    index: int
    """0-based index of this model call in the session."""
    attempts: int = 0
    """Requests the adapter has sent (or tried to) for this call so far."""
    served: list[_Served] = field(default_factory=list)

    def draw(self) -> tuple[int, ProviderFaultKind | None]:
        """The next attempt's index and the fault it meets (None: it goes through)."""
        attempt = self.attempts
        self.attempts += 1
        s = self.session
        kind = s.plan.fault_at(s.seed, s.scenario_id, s.trial, self.index, attempt)
        return attempt, kind

    def record(self, attempt: int, fault: ProviderFaultKind, detail: str) -> None:
        """Note a fault served on `attempt` (what the trace will say)."""
        self.served.append(_Served(attempt, fault, detail))

    def events(self, replied: bool) -> list[ProviderFault]:
        """The payloads of the faults served, once the call is over: a transport fault is
        absorbed when the call still got its reply (`replied`); a damaged reply never is."""
        return [
            ProviderFault(
                model_call=self.index,
                attempt=s.attempt,
                fault=s.fault,
                absorbed=replied and s.fault in TRANSPORT_KINDS,
                detail=s.detail,
            )
            for s in self.served
        ]


_CURRENT: ContextVar[ModelCallFaults | None] = ContextVar("sessionproof_model_faults", default=None)


class ModelFaultSession:
    """The model-fault draws of one session: the plan, the session's key, and its count of
    model calls. The engine opens `model_call()` around each agent decision; the adapters'
    requests inside it meet the plan (`current_model_call`), and no other request does (a
    simulated user's, a judge's)."""

    def __init__(self, plan: FaultDraws, seed: int, scenario_id: str, trial: int) -> None:
        self.plan = plan
        self.seed = seed
        self.scenario_id = scenario_id
        self.trial = trial
        self.calls = 0

    @contextlib.contextmanager
    def model_call(self) -> Iterator[ModelCallFaults]:
        """The scope of the session's next model call (numbered in the order they start)."""
        call = ModelCallFaults(self, self.calls)
        self.calls += 1
        token = _CURRENT.set(call)
        try:
            yield call
        finally:
            _CURRENT.reset(token)


def serves_model_faults(agent: object) -> bool:
    """Whether `agent` sends its decisions through an adapter that serves model faults (the
    provider adapters say `serves_model_faults = True`); a reference agent, a `python:` or an
    external agent sends no provider request a plan could fault."""
    return getattr(agent, "serves_model_faults", False) is True


def current_model_call() -> ModelCallFaults | None:
    """The model call whose requests meet a fault plan now, if any (the adapters ask)."""
    return _CURRENT.get()
