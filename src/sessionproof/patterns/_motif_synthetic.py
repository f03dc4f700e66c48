"""Synthetic sessions where one motif causes failure inside confounded tasks.

Each session is a real `Session` (user and agent messages, tool calls with results) of one
unique scenario — the production shape: no repeated scenarios. A share of tasks is **hard**:
three writes instead of one, a reading step of three tools, and failure at `hard_fail`
instead of `easy_fail`. Three motifs are planted at task-dependent rates (hard tasks hold
them far more often, so pooled every one of them looks like a cause):

- `write_without_confirmation` (the **cause**: a session holding it fails with its task's
  rate raised by `effect` — 1 - (1 - base)(1 - effect));
- `read_loop` and `ungrounded_argument` (**confounded only**: they change nothing).

On `null` sets the cause has no effect either. `CAUSE` and `CONFOUNDED` name the truth the
benchmark scores against.
"""

from __future__ import annotations

import random
from typing import Any

from ..records import (
    AssistantMessageEvent,
    Message,
    Outcome,
    Session,
    TerminationReason,
    ToolCall,
    ToolCallEvent,
    ToolResult,
    ToolResultEvent,
    UserMessageEvent,
)

CAUSE = "write_without_confirmation"
CONFOUNDED = ("read_loop", "ungrounded_argument")
_RATES = {"easy": (0.1, 0.1, 0.1), "hard": (0.5, 0.6, 0.45)}
"""Per task kind: the rate of (cause, read_loop, ungrounded_argument)."""


class _Builder:
    def __init__(self, sid: str) -> None:
        self.sid = sid
        self.events: list[Any] = []
        self.step = 0

    def _base(self) -> dict[str, Any]:
        self.step += 1
        return {
            "run_id": "synthetic",
            "session_id": self.sid,
            "seq": len(self.events),
            "turn": 0,
            "step": self.step,
            "t_wall": 0.0,
            "t_mono": 0.0,
        }

    def user(self, text: str) -> None:
        self.events.append(
            UserMessageEvent(**self._base(), payload=Message(role="user", content=text))
        )

    def agent(self, text: str) -> None:
        self.events.append(
            AssistantMessageEvent(**self._base(), payload=Message(role="assistant", content=text))
        )

    def call(self, name: str, args: dict[str, Any], output: str) -> None:
        base = self._base()
        cid = f"c{len(self.events)}"
        tc = ToolCall(id=cid, name=name, arguments=args)
        self.events.append(
            AssistantMessageEvent(
                **base, payload=Message(role="assistant", content=None, tool_calls=[tc])
            )
        )
        base["seq"] = len(self.events)
        self.events.append(ToolCallEvent(**base, payload=tc))
        base["seq"] = len(self.events)
        result = ToolResult(call_id=cid, name=name, output=output)
        self.events.append(ToolResultEvent(**base, payload=result))


def synthetic_session(
    k: int,
    rng: random.Random,
    hard: bool,
    null: bool = False,
    effect: float = 0.5,
    easy_fail: float = 0.15,
    hard_fail: float = 0.5,
) -> Session:
    """One synthetic session (rules: the module docstring)."""
    kind = "hard" if hard else "easy"
    p_cause, p_loop, p_ungrounded = _RATES[kind]
    cause, loop, ungrounded = (rng.random() < p for p in (p_cause, p_loop, p_ungrounded))
    b = _Builder(f"syn-{k}")
    n_writes = 3 if hard else 1
    ids = [f"#R{k:05d}{i}" for i in range(n_writes)]
    what = "rebook all my trips" if hard else "change my seat"
    b.user(f"I am u{k:05d}x. Please {what}: " + " ".join(ids))
    reads = ["get_user_details", "get_reservation", "search_flights"] if hard else ["get_user"]
    for name in reads:
        b.call(name, {"user_id": f"u{k:05d}x"}, '{"reservations": "' + " ".join(ids) + '"}')
    if loop:
        for d in range(5):
            b.call("search_flights", {"origin": "JFK", "page": d}, '{"flights": []}')
    for i, rid in enumerate(ids):
        if not cause:
            b.agent(f"I will update {rid}. Shall I go ahead?")
            b.user("Yes, please go ahead.")
        args: dict[str, Any] = {"reservation_id": rid}
        if ungrounded and i == 0:
            args["payment_id"] = f"gift_{k:05d}9"  # mentioned nowhere earlier
        b.call("update_reservation", args, '{"status": "ok"}')
    b.agent("Done.")
    base = hard_fail if hard else easy_fail
    p_fail = base if (null or not cause) else 1 - (1 - base) * (1 - effect)
    failed = rng.random() < p_fail
    return Session(
        run_id="synthetic",
        session_id=b.sid,
        scenario_id=f"task-{k}",
        trial=0,
        events=b.events,
        termination=TerminationReason.user_stop,
        outcome=Outcome(success=not failed, reward=float(not failed)),
    )


def confounded_sessions(
    n: int, seed: int = 0, *, hard_share: float = 0.3, null: bool = False, effect: float = 0.5
) -> list[Session]:
    """`n` synthetic sessions, a `hard_share` of them hard (the module docstring)."""
    rng = random.Random(seed)
    return [synthetic_session(k, rng, rng.random() < hard_share, null, effect) for k in range(n)]
