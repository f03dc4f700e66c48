"""The gate's cost block: model tokens per session and per successful session, per side.

One seam on purpose: the tokens come from the sessions' own model-call records
(`ModelCallEvent` usage); a priced split (agent, simulated user, judge) replaces
`gate_cost` when one exists. No price is ever guessed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from ..records import Session


class SideCost(BaseModel):
    """What one side of a gate spent, in tokens, over the sessions the decision used."""

    model_config = ConfigDict(extra="forbid")

    sessions: int
    successes: int
    input_tokens: int
    output_tokens: int
    tokens: int
    """Input plus output tokens of every model call the sessions recorded (retries in)."""
    tokens_per_session: float | None
    """None when there was no session."""
    tokens_per_successful_session: float | None
    """All the side's tokens over its successful sessions; None when none succeeded."""


def side_cost(sessions: Sequence[Session]) -> SideCost:
    """The tokens `sessions` recorded in their model calls, per session and per success."""
    inputs = outputs = 0
    for session in sessions:
        for call in session.model_calls():
            inputs += call.usage.input_tokens
            outputs += call.usage.output_tokens
    total = inputs + outputs
    wins = sum(1 for s in sessions if s.verdict is True)
    return SideCost(
        sessions=len(sessions),
        successes=wins,
        input_tokens=inputs,
        output_tokens=outputs,
        tokens=total,
        tokens_per_session=total / len(sessions) if sessions else None,
        tokens_per_successful_session=total / wins if wins else None,
    )


def gate_cost(sides: Mapping[str, Sequence[Session]]) -> dict[str, SideCost]:
    """Side name (`baseline`, `candidate`) → its `SideCost`."""
    return {name: side_cost(sessions) for name, sessions in sides.items()}


def cost_sentence(cost: Mapping[str, SideCost]) -> str:
    """One line comparing the sides' tokens per successful session (or saying why not)."""
    base, cand = cost.get("baseline"), cost.get("candidate")
    if base is None or cand is None:
        return "cost: not measured"
    if base.tokens == 0 and cand.tokens == 0:
        return "cost: no model tokens were recorded on either side (reference or Python agents)"
    b, c = base.tokens_per_successful_session, cand.tokens_per_successful_session
    if b is None or c is None:
        who = "baseline" if b is None else "candidate"
        return f"cost: the {who} had no successful session, so no tokens per successful session"
    if base.tokens == 0 or cand.tokens == 0:
        who = "baseline" if base.tokens == 0 else "candidate"
        return (
            f"cost: candidate {c:,.0f} vs baseline {b:,.0f} tokens per successful session "
            f"(the {who} recorded no model tokens: no ratio)"
        )
    change = (c - b) / b
    how = "cheaper" if change < 0 else "dearer"
    return (
        f"cost: candidate {c:,.0f} vs baseline {b:,.0f} tokens per successful session "
        f"({abs(change):.0%} {how}; tokens only, no prices)"
    )
