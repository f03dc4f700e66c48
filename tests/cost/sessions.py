"""Sessions made of recorded model calls, for the cost computations."""

from __future__ import annotations

from sessionproof.records import EventKind, Outcome, Session, TerminationReason
from sessionproof.records._internal import ModelCall, Usage, make_event


def call(
    role: str, model: str, inp: int, out: int, cached: int = 0, provider: str = "openai"
) -> ModelCall:
    """One recorded model call."""
    usage = Usage(input_tokens=inp, output_tokens=out, cached_tokens=cached)
    return ModelCall.model_validate(
        {"provider": provider, "model": model, "usage": usage.model_dump(), "role": role}
    )


def session(calls: list[ModelCall], success: bool | None, sid: str = "s") -> Session:
    """A session of `calls` with a verdict (`success` None: ended in infra_error)."""
    events = [
        make_event(
            EventKind.model_call,
            c,
            run_id="r",
            session_id=sid,
            seq=i,
            turn=0,
            step=0,
            t_wall=1.0 + i,
            t_mono=1.0 + i,
        )
        for i, c in enumerate(calls)
    ]
    if success is None:
        return Session(
            run_id="r",
            session_id=sid,
            scenario_id="x",
            trial=0,
            events=events,
            termination=TerminationReason.infra_error,
        )
    return Session(
        run_id="r",
        session_id=sid,
        scenario_id="x",
        trial=0,
        events=events,
        termination=TerminationReason.agent_stop,
        outcome=Outcome(success=success, reward=1.0 if success else 0.0),
    )
