"""Seeded fault plans for the agent's own provider requests: faults at the model boundary.

Spec grammar (the `--model-faults` flag and the `model_faults=` part of an arm)::

    SPEC  := ENTRY ("," ENTRY)*
    ENTRY := KIND ["x" N] ":" RATE        RATE := a percentage, e.g. 2% or 0.5%
    KIND  := 429 | 5xx | timeout | cut_stream | bad_args

e.g. `429:5%,5xx:2%,timeout:1%,cut_stream:1%,bad_args:2%`. Each attempt of each model call
draws once, keyed by (seed, scenario, trial, model call, attempt) with the tool faults'
scheme (`sessionproof._draws`), so a run's model faults repeat exactly with its seed and are
paired across arms and models. `KINDxN` (a burst, for the four transport kinds) makes a drawn
fault last N attempts in a row: `429x3:2%` answers three 429s running to 2% of the attempts
it lands on. `bad_args` takes no burst: it damages one reply, which is never retried.

What each kind does (`_model_faults_sdk` serves it in the adapter's own SDK errors):

- `429`, `5xx`, `timeout`: the request is not sent; the adapter meets the SDK error a real
  answer of that kind raises (an HTTP 429; 500, 502 or 503; a read timeout);
- `cut_stream`: the request is sent and answered, and the answer is lost mid-body (the SDK's
  connection error, as when a server closes the connection early);
- `bad_args`: the answer arrives whole with one tool call's arguments truncated or turned
  into invalid JSON (an answer without a tool call is left alone, and nothing is recorded).

The transport's retries meet the first four as they would real ones; `bad_args` is the
model's malformed output and reaches the agent's record as such.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from .._draws import unit_draw
from ..errors import ConfigError
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

_ORDER = tuple(ProviderFaultKind)
_KIND = re.compile(r"^(?P<kind>[A-Za-z0-9_]+?)(?:x(?P<burst>\d+))?$")
_MAX_BURST = 20


def _rate(text: str, spec: str) -> float:
    number = text.strip().removesuffix("%").strip()
    if not text.strip().endswith("%") or not number.replace(".", "", 1).isdigit():
        raise ConfigError(
            f"model-fault spec {spec!r}: {text.strip()!r} is not a rate; write a percentage like 2%"
        )
    value = float(number) / 100
    if value > 1:
        raise ConfigError(f"model-fault spec {spec!r}: rate {text.strip()} is above 100%")
    return value


def _kind(text: str, spec: str) -> tuple[ProviderFaultKind, int]:
    """The kind and burst length of `KIND[xN]`."""
    match = _KIND.match(text)
    names = [k.value for k in ProviderFaultKind]
    name = match.group("kind") if match else text
    if match is None or name not in names:
        close = difflib.get_close_matches(text, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(
            f"model-fault spec {spec!r}: unknown kind {text!r}{hint}; kinds: {', '.join(names)}"
        )
    kind = ProviderFaultKind(name)
    burst = int(match.group("burst") or 1)
    if match.group("burst") is not None:
        if kind not in TRANSPORT_KINDS:
            raise ConfigError(
                f"model-fault spec {spec!r}: {name} takes no burst (a damaged reply is not "
                "retried); bursts are for 429, 5xx, timeout and cut_stream"
            )
        if not 1 <= burst <= _MAX_BURST:
            raise ConfigError(
                f"model-fault spec {spec!r}: a burst is 1 to {_MAX_BURST} attempts, not {burst}"
            )
    return kind, burst


class ModelFaultPlan(BaseModel):
    """Which faults the agent's provider requests meet, and how often. Build with `parse`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str
    """The spec string it was parsed from (its name in reports)."""
    rates: dict[ProviderFaultKind, float]
    """Probability per attempt of each kind drawing (fractions; they sum to at most 1)."""
    bursts: dict[ProviderFaultKind, int]
    """Attempts in a row a drawn fault of each kind lasts (1 unless the spec says `xN`)."""

    @classmethod
    def parse(cls, spec: str) -> ModelFaultPlan:
        """Parse `429:5%,5xx:2%`, `429x3:2%`...; raises `ConfigError` on anything else."""
        text = spec.strip()
        if not text:
            raise ConfigError("empty model-fault spec; write e.g. 429:5%,5xx:2%,bad_args:2%")
        rates: dict[ProviderFaultKind, float] = {}
        bursts: dict[ProviderFaultKind, int] = {}
        for raw in text.split(","):
            entry = raw.strip()
            name, colon, rate = entry.partition(":")
            if not colon:
                raise ConfigError(
                    f"model-fault spec {spec!r}: {entry!r} needs KIND:RATE, e.g. 429:5%"
                )
            kind, burst = _kind(name.strip(), spec)
            if kind in rates:
                raise ConfigError(f"model-fault spec {spec!r}: {kind.value} is given twice")
            rates[kind] = _rate(rate, spec)
            bursts[kind] = burst
        if sum(rates.values()) > 1 + 1e-9:
            raise ConfigError(f"model-fault spec {spec!r}: the rates add up to more than 100%")
        return cls(spec=",".join(p.strip() for p in text.split(",")), rates=rates, bursts=bursts)

    def _drawn(
        self, seed: int, scenario_id: str, trial: int, model_call: int, attempt: int
    ) -> ProviderFaultKind | None:
        """The kind attempt `attempt` itself draws, if any."""
        u = unit_draw("model_fault", seed, scenario_id, trial, model_call, attempt)
        edge = 0.0
        for kind in _ORDER:
            edge += self.rates.get(kind, 0.0)
            if u < edge:
                return kind
        return None

    def fault_at(
        self, seed: int, scenario_id: str, trial: int, model_call: int, attempt: int
    ) -> ProviderFaultKind | None:
        """The fault attempt `attempt` of model call `model_call` meets: its own draw, else a
        burst drawn by one of the attempts just before it that lasts this long."""
        longest = max(self.bursts.values(), default=1)
        for back in range(min(longest, attempt + 1)):
            kind = self._drawn(seed, scenario_id, trial, model_call, attempt - back)
            if kind is not None and self.bursts.get(kind, 1) > back:
                return kind
        return None


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

    def __init__(self, plan: ModelFaultPlan, seed: int, scenario_id: str, trial: int) -> None:
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


def current_model_call() -> ModelCallFaults | None:
    """The model call whose requests meet a fault plan now, if any (the adapters ask)."""
    return _CURRENT.get()
