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
model's malformed output and reaches the agent's record as such. The plan is drawn here;
it is served by `sessionproof.agents` (its `ModelFaultSession`, opened by the engine around
each agent decision, and the adapters' SDK errors).
"""

from __future__ import annotations

import difflib
import re

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigError
from ..records._internal import ProviderFaultKind
from ._hash import unit_draw

_ORDER = tuple(ProviderFaultKind)
_BURSTS = frozenset(ProviderFaultKind) - {ProviderFaultKind.bad_args}
"""The kinds a burst applies to: a damaged reply (`bad_args`) is never retried."""
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
        if kind not in _BURSTS:
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
