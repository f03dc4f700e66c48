"""Cost of sessions: tokens and USD per session and per *successful* session, split into the
agent, the simulated user and the NL judge.

Pure computation over recorded model calls (`ModelCall.role` says whose each was) and a
`PriceTable`. Every session counts toward the cost, judged or not (its calls were paid
for); "per success" divides the whole cost by the judged successes, and is undefined (None,
with the reason) when there are none. A role with any call of a model the table has no price
for gets tokens only (its USD is None, the model named in `unpriced_models`), never a guess.
Give it one arm's sessions: arms and runs are never pooled here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..records import Session
from ..store._internal import scrub_text
from ._prices import Price, PriceTable
from ._trace import TraceCache, made_once

CostRole = Literal["agent", "user", "judge"]
ROLES: tuple[CostRole, ...] = ("agent", "user", "judge")
"""Who made a model call: the agent under test, the simulated user, the NL judge."""

COST_DEFINITIONS = {
    "cost": "tokens and USD of every model call, split into agent, simulated user and judge "
    "(retried calls included); all sessions count, judged or not",
    "cost_per_session": "total cost / sessions",
    "cost_per_success": "total cost / successful sessions (undefined with no success)",
    "unpriced_models": "models the price table has no price for: their tokens are counted, "
    "their cost is not (USD is none wherever they count), never guessed",
}
"""One line per cost figure, for `--metrics` definitions."""


class RoleTokens(BaseModel):
    """Tokens and calls of one role over some sessions."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    """Model calls recorded."""
    attempts: int = 0
    """HTTP attempts those calls took, retries included."""
    input_tokens: int = 0
    """Input tokens, cached ones included."""
    output_tokens: int = 0
    cached_tokens: int = 0
    """Input tokens served from the prompt cache."""

    @property
    def total(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


class PerUnit(BaseModel):
    """Tokens and USD divided by a count of sessions."""

    model_config = ConfigDict(extra="forbid")

    tokens: float | None
    """Input plus output tokens per unit (None when undefined)."""
    usd: float | None
    """USD per unit; None when undefined or when some call has no price."""
    undefined: str | None = None
    """Why the figure is undefined (e.g. no successful session), else None."""


class CostSummary(BaseModel):
    """The cost of one arm's sessions (JSON-able with `model_dump(mode="json")`)."""

    model_config = ConfigDict(extra="forbid")

    sessions: int
    successes: int
    tokens: dict[str, RoleTokens]
    """By role: agent, user, judge."""
    usd: dict[str, float | None]
    """By role; None when some call of that role has no price."""
    total_usd: float | None
    """All roles; None when some call has no price."""
    per_session: PerUnit
    per_success: PerUnit
    unpriced_models: list[str] = Field(default_factory=list)
    """"provider:model" of every model called that the table has no price for."""
    prices_as_of: str | None = None
    """The date of the shipped price table used."""
    prices_overridden_by: list[str] = Field(default_factory=list)

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens of every role."""
        return sum(t.total for t in self.tokens.values())

    def notes(self) -> list[str]:
        """One sentence per model without a price ("no price for X: tokens only")."""
        return [f"no price for {m}: tokens only" for m in self.unpriced_models]


Tally = dict[tuple[str, str, str], list[int]]
"""One session's model calls summed per (role, provider, model): calls, attempts, input
tokens, output tokens, cached tokens as recorded, and cached tokens as billed (each call's at
most its input)."""


def session_tally(session: Session) -> Tally:
    """`session`'s model calls, summed per (role, provider, model) (`Tally`)."""
    out: Tally = {}
    for call in session.model_calls():
        u = call.usage
        key = (call.role, call.provider, call.model)
        c = out.get(key)
        if c is None:
            c = out[key] = [0, 0, 0, 0, 0, 0]
        c[0] += 1
        c[1] += call.attempts
        c[2] += u.input_tokens
        c[3] += u.output_tokens
        c[4] += u.cached_tokens
        c[5] += min(max(u.cached_tokens, 0), u.input_tokens)
    return out


def tally_made(session: Session, traces: TraceCache | None = None) -> Tally:
    """`session_tally(session)`, made once through `traces` when given (a run makes each
    session's as it ends, for the cost summary after its last session)."""
    return made_once(traces, "cost_tally", (session,), session_tally)


def cost_summary(
    sessions: Sequence[Session], prices: PriceTable, traces: TraceCache | None = None
) -> CostSummary:
    """Tokens and USD of `sessions` (one arm of one run), by role, per session and per
    successful session, priced by `prices`; each session's calls summed once through
    `traces` when given (`tally_made`).

    Tokens are summed per (role, model) first and each sum priced once: a price is linear
    in the tokens of each call (cached tokens capped at the call's input before summing),
    so this is the sum of every call's cost, in one order whoever computes it."""
    totals: Tally = {}
    for session in sessions:
        for key, c in tally_made(session, traces).items():
            t = totals.get(key)
            if t is None:
                totals[key] = list(c)
            else:
                for i, v in enumerate(c):
                    t[i] += v
    counts: dict[str, list[int]] = {role: [0, 0, 0, 0, 0] for role in ROLES}
    usd: dict[str, float | None] = dict.fromkeys(ROLES, 0.0)
    unpriced: set[str] = set()
    looked_up: dict[tuple[str, str], Price | None] = {}
    for (role, provider, model), t in totals.items():
        c = counts[role]
        for i in range(5):
            c[i] += t[i]
        called = (provider, model)
        if called not in looked_up:
            looked_up[called] = prices.price_for(*called)
            if looked_up[called] is None:
                # Scrubbed like the store: a spec's name may hold what it was given.
                unpriced.add(scrub_text(f"{provider}:{model}"))
        price = looked_up[called]
        spent = usd[role]
        if price is None:
            usd[role] = None
        elif spent is not None:
            usd[role] = spent + price.usd(t[2], t[3], t[5])
    tokens = {
        role: RoleTokens(
            calls=c[0], attempts=c[1], input_tokens=c[2], output_tokens=c[3], cached_tokens=c[4]
        )
        for role, c in counts.items()
    }
    roles_usd = list(usd.values())
    total_usd = None if any(v is None for v in roles_usd) else sum(v or 0.0 for v in roles_usd)
    n = len(sessions)
    successes = sum(1 for s in sessions if s.success)
    total_tokens = sum(t.total for t in tokens.values())
    return CostSummary(
        sessions=n,
        successes=successes,
        tokens=dict(tokens),
        usd=usd,
        total_usd=total_usd,
        per_session=_per(total_tokens, total_usd, n, "no session"),
        per_success=_per(total_tokens, total_usd, successes, "no successful session"),
        unpriced_models=sorted(unpriced),
        prices_as_of=prices.as_of,
        prices_overridden_by=list(prices.overridden_by),
    )


def _per(tokens: int, usd: float | None, count: int, none: str) -> PerUnit:
    if count == 0:
        return PerUnit(tokens=None, usd=None, undefined=f"undefined ({none})")
    return PerUnit(tokens=tokens / count, usd=None if usd is None else usd / count)


def compare_cost(baseline: CostSummary, candidate: CostSummary) -> str:
    """One sentence comparing the candidate's cost per successful session with the
    baseline's: "38% cheaper per successful session" (USD when both are priced, else
    tokens), or why the two cannot be compared."""
    b, c = baseline.per_success, candidate.per_success
    if b.undefined or c.undefined:
        which = "the baseline" if b.undefined else "the candidate"
        return f"cost per successful session not comparable: {which} has no successful session"
    if b.usd is not None and c.usd is not None:
        return _relative(b.usd, c.usd, "cheaper", "more expensive", "costs the same")
    if b.tokens is None or c.tokens is None:  # defined per-unit figures always have tokens
        return "cost per successful session not comparable"
    unpriced = sorted({*baseline.unpriced_models, *candidate.unpriced_models})
    said = _relative(b.tokens, c.tokens, "fewer tokens", "more tokens", "the same tokens")
    return f"{said} (no price for {', '.join(unpriced)}: tokens only)"


def _relative(base: float, cand: float, less: str, more: str, same: str) -> str:
    if base == 0:
        if cand == 0:
            return f"{same} per successful session"
        return f"{more} per successful session (the baseline's was zero)"
    change = (cand - base) / base
    percent = round(abs(change) * 100)
    if percent == 0:
        return f"{same} per successful session (within 1%)"
    return f"{percent}% {less if change < 0 else more} per successful session"
