"""Reading a session's trace for scoring: each tool call joined with its result and what
reached the domain, schema drift, and replays of recorded or gold calls on fresh DBs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ..domains import Domain, DomainSpec
from ..records import (
    ErrorClass,
    Scenario,
    Session,
    ToolCall,
    ToolCallEvent,
    ToolResult,
    ToolResultEvent,
    ToolSpec,
)
from ..records._internal import (
    UNCOMMITTED_KINDS,
    DriftAppliedEvent,
    FaultInjectedEvent,
    GuardDecisionEvent,
    ImplicitFaultEvent,
    ImplicitFaultKind,
)
from ._identity import ByIdentity

V = TypeVar("V")


@dataclass(frozen=True)
class TracedCall:
    """One tool call of a session with its result and how often the domain ran it."""

    position: int
    """Index of the call among the session's tool calls."""
    step: int
    turn: int
    call: ToolCall
    result: ToolResult | None
    """The final result the agent saw (None when the session ended before it came)."""
    executions: int
    """Times the call took effect in the domain: once per injected fault that committed (the
    write landed, the agent saw an error), plus once when the final result came from the
    domain itself. It did not when the result is an injected fault, the guard never sent the
    call (repair hints, an open breaker), or a backend failure (a natural timeout,
    server_error, unavailable or rate_limited: the domain's own logic raises none of them, so
    the request is taken not to have run)."""
    injected_attempts: int
    """Injected faults met by this call, retries included."""

    @property
    def failed(self) -> bool:
        """True when the agent saw an error (or no result at all)."""
        return self.result is None or not self.result.ok


_BACKEND_FAILURES = frozenset(
    {ErrorClass.timeout, ErrorClass.server_error, ErrorClass.unavailable, ErrorClass.rate_limited}
)
_NOT_SENT = frozenset({"repair", "breaker_open"})
"""Guard decisions after which the call's final answer is the guard's own."""


def _reached_domain(result: ToolResult | None, guard_refused: bool) -> bool:
    if result is None or result.injected:
        return False
    if result.ok:
        return True
    return not guard_refused and result.error_class not in _BACKEND_FAILURES


def traced_calls(session: Session) -> list[TracedCall]:
    """The session's tool calls in order, each joined with its final result and how many times
    it took effect (implicit faults included: see `UNCOMMITTED_KINDS` and duplicate_write)."""
    results: dict[str, ToolResult] = {}
    committed: Counter[str] = Counter()
    injected: Counter[str] = Counter()
    refused: set[str] = set()
    uncommitted: set[str] = set()
    calls: list[ToolCallEvent] = []
    for event in session.events:
        if isinstance(event, ToolCallEvent):
            calls.append(event)
        elif isinstance(event, ToolResultEvent):
            results[event.payload.call_id] = event.payload
        elif isinstance(event, FaultInjectedEvent) and event.payload.side == "agent":
            call_id = event.payload.call_id
            injected[call_id] += 1
            committed[call_id] += event.payload.committed
        elif isinstance(event, GuardDecisionEvent) and event.payload.decision in _NOT_SENT:
            refused.add(str(event.payload.call_id))
        elif isinstance(event, ImplicitFaultEvent) and event.payload.side == "agent":
            fault = event.payload
            if fault.fault in UNCOMMITTED_KINDS:
                uncommitted.add(fault.call_id)
            elif fault.fault is ImplicitFaultKind.duplicate_write and fault.change.get("second_ok"):
                committed[fault.call_id] += 1  # the write was applied a second time
    out: list[TracedCall] = []
    for event in calls:
        call = event.payload
        result = results.get(call.id)
        ran = committed[call.id] + _reached_domain(result, call.id in refused)
        if call.id in uncommitted:
            ran = 0  # an implicit fault kept the write from taking effect
        out.append(
            TracedCall(
                position=len(out),
                step=event.step,
                turn=event.turn,
                call=call,
                result=result,
                executions=ran,
                injected_attempts=injected[call.id],
            )
        )
    return out


class TraceCache:
    """What the metrics read off each session, made once: its `traced_calls` (survival,
    call accuracy and attribution all read them: three walks of every trace otherwise), and
    each metric's own per-session result (`made`), so that one cache filled as a run's
    sessions end (`MetricsWarmer`) leaves its report only the sums. Keyed by the session
    object (and what it was judged against): sessions must not change while it is used."""

    def __init__(self, keep_made: bool = True) -> None:
        """`keep_made` False: `made` makes its value every time, keeping nothing (the
        traced calls are kept either way), for metrics computed once, whose per-session
        values would only add to their peak memory."""
        self._found: ByIdentity[list[TracedCall]] = ByIdentity()
        self._made: dict[str, ByIdentity[Any]] = {}
        self._keep_made = keep_made

    def calls(self, session: Session) -> list[TracedCall]:
        """`traced_calls(session)`, computed the first time."""
        return self._found.get((session,), lambda: traced_calls(session))

    def made(
        self, what: str, key: tuple[object, ...], make: Callable[..., V], *helpers: object
    ) -> V:
        """`make(*key, *helpers)`, the metric `what` of the objects of `key` (the session,
        then what it is judged against), computed the first time. `helpers` (caches) do not
        change the value, so they are no part of the key."""
        if not self._keep_made:
            return make(*key, *helpers)
        found = self._made.setdefault(what, ByIdentity())
        return cast(V, found.get(key, lambda: make(*key, *helpers)))


def made_once(
    traces: TraceCache | None,
    what: str,
    key: tuple[object, ...],
    make: Callable[..., V],
    *helpers: object,
) -> V:
    """`make(*key, *helpers)`: through `traces` when given (`TraceCache.made`), else now.
    Each per-session metric calls it with its own `what`, so a value is found under one name
    whoever asks for it (the metrics, or a run's warmer as its sessions end)."""
    if traces is None:
        return make(*key, *helpers)
    return traces.made(what, key, make, *helpers)


def calls_of(session: Session, traces: TraceCache | None) -> list[TracedCall]:
    """The session's traced calls, through `traces` when given."""
    return traced_calls(session) if traces is None else traces.calls(session)


def drifted_tools(session: Session) -> tuple[int, frozenset[str]] | None:
    """(first 0-based turn of the drift, tool names involved) when a drift was applied."""
    for event in session.events_of(DriftAppliedEvent):
        drift = event.payload
        if not drift.applied:
            continue
        names = {name for name in (drift.tool, drift.new_tool) if name}
        return drift.turn, frozenset(names)
    return None


def under_drift(traced: TracedCall, drift: tuple[int, frozenset[str]] | None) -> bool:
    """True when the agent made this call against a drifted schema."""
    return drift is not None and traced.turn >= drift[0] and traced.call.name in drift[1]


def apply_quietly(domain: Domain[Any], name: str, args: dict[str, Any]) -> None:
    """Run one recorded call on `domain`; its failure is ignored (only the state matters)."""
    try:
        domain.call(name, dict(args))
    except Exception:
        # A failed call is part of the recording; only its effect on the state matters here.
        return


class GoldStates:
    """State hashes of replaying subsets of the gold writes, in gold order (cached)."""

    def __init__(self, spec: DomainSpec, scenario: Scenario, writes: Sequence[int]) -> None:
        self._spec = spec
        self._actions = scenario.criteria.gold_actions
        self._cache: dict[frozenset[int], str] = {}
        self.all = frozenset(writes)

    def hash(self, used: frozenset[int]) -> str:
        """The state hash after replaying the gold actions numbered in `used`."""
        found = self._cache.get(used)
        if found is None:
            domain = self._spec.create()
            for i in sorted(used):
                apply_quietly(domain, self._actions[i].tool, self._actions[i].args)
            found = self._cache[used] = domain.state_hash()
        return found


@dataclass(frozen=True)
class DomainFacts:
    """What every fresh domain of one spec has alike: its tools, its transfer tools and the
    hash of its untouched state."""

    tools: dict[str, ToolSpec]
    transfers: frozenset[str]
    start: str
    """`state_hash()` of a domain nothing was done to yet."""

    @classmethod
    def of(cls, domain: Domain[Any]) -> DomainFacts:
        """The facts, read off a fresh domain."""
        tools = {t.name: t for t in domain.tools()}
        return cls(tools, domain.transfer_tools, domain.state_hash())


class GoldReplays:
    """Each scenario's `GoldStates`, shared by every session judged against the same
    scenario object and domain spec: the trials of a scenario replay its gold path once
    between them, not once each (a 600-session run of 50 scenarios: 50 replays, not 600)."""

    def __init__(self) -> None:
        self._states: ByIdentity[GoldStates] = ByIdentity()
        self._facts: ByIdentity[DomainFacts] = ByIdentity()

    def facts(self, spec: DomainSpec) -> DomainFacts:
        """`spec`'s domain facts, read off one fresh domain for every session judged with
        it (a walk that replays no write then needs no domain of its own)."""
        return self._facts.get((spec,), lambda: DomainFacts.of(spec.create()))

    def states(self, spec: DomainSpec, scenario: Scenario, writes: Sequence[int]) -> GoldStates:
        """The cache of `scenario` under `spec` (its `writes` follow from the two)."""
        return self._states.get((scenario, spec), lambda: GoldStates(spec, scenario, writes))
