"""What the guard costs per call when nothing goes wrong.

Run: `.venv/bin/python benchmarks/guard_overhead.py [--calls 20000] [--repeat 5]`

Every variant calls the same tiny tool (a dict lookup), so the difference is the guard:
- `bare sync` / `bare async`: the tool called directly (`fn(**args)`, `await fn(**args)`);
- `guard`: `await guarded(args)` with no schemas — parse arguments, breaker check, one
  attempt under tenacity's retry loop, classify the answer, report the decision;
- `guard+validation`: the same with an argument schema and an output schema checked
  (jsonschema validators compiled once, at wrap time);
- `harness bare` / `harness guard`: a `ToolSource` returning a `ToolResult`, alone and
  wrapped by `guard_source` (the harness path, schemas from the listed ToolSpec).

Targets: overhead (guarded minus bare, same run) ≤ 50 µs per call without validation and
≤ 200 µs with. The best of `--repeat` runs is kept, to measure the code, not the neighbours.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sessionproof.domains import ToolContext
from sessionproof.guard import Guard, VirtualClock, guard_source
from sessionproof.records import ToolCall, ToolResult, ToolSpec

ORDERS = {"1042": {"order_id": "1042", "status": "pending", "total": "54.20"}}
ARGS_SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string", "pattern": "^[0-9]+$"}},
    "required": ["order_id"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string"},
        "status": {"enum": ["pending", "shipped", "delivered"]},
        "total": {"type": "string"},
    },
    "required": ["order_id", "status", "total"],
}
ARGS = {"order_id": "1042"}


def get_order(order_id: str) -> dict[str, str]:
    """The tool under test: as cheap as a tool can be, so the guard's cost shows."""
    return ORDERS[order_id]


async def get_order_async(order_id: str) -> dict[str, str]:
    """Async twin of `get_order`."""
    return ORDERS[order_id]


async def _per_call(calls: int, repeat: int, body: Callable[[], Awaitable[Any]]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            await body()
        best = min(best, time.perf_counter() - start)
    return best / calls


async def _sync_per_call(calls: int, repeat: int, body: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            body()
        best = min(best, time.perf_counter() - start)
    return best / calls


async def main(calls: int, repeat: int) -> None:
    guard = Guard(clock=VirtualClock())
    plain = guard.wrap(get_order, name="plain")
    validated = guard.wrap(
        get_order, name="validated", schema=ARGS_SCHEMA, output_schema=OUTPUT_SCHEMA
    )
    spec = ToolSpec(
        name="get_order",
        description="Get an order.",
        parameters=ARGS_SCHEMA,
        output_schema=OUTPUT_SCHEMA,
    )
    call = ToolCall(id="c1", name="get_order", arguments=ARGS)
    output = '{"order_id":"1042","status":"pending","total":"54.20"}'

    class _Source:
        """The tiniest tool source: one tool, one canned answer."""

        async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
            return [spec]

        async def call_tool(self, c: ToolCall, ctx: ToolContext) -> ToolResult:
            return ToolResult(call_id=c.id, name=c.name, output=output)

        async def aclose(self) -> None:
            return None

        def state_hash(self) -> str | None:
            return None

    emitted: list[Any] = []
    ctx = ToolContext(
        run_id="bench",
        session_id="s",
        scenario_id="sc",
        trial=0,
        arm="guard",
        turn=0,
        step=0,
        seed=0,
        emit=lambda kind, payload: emitted.append(payload),
    )
    bare = _Source()
    harness = guard_source(Guard(clock=VirtualClock()), bare)
    await harness.list_tools(ctx)  # as the engine does before the agent decides

    # Sanity: every variant really answers, so no path times a failure.
    assert (await plain(ARGS)).ok and (await validated(ARGS)).ok
    assert (await harness.call_tool(call, ctx)).ok

    rows: list[tuple[str, float]] = [
        ("bare sync", await _sync_per_call(calls, repeat, lambda: get_order(**ARGS))),
        ("bare async", await _per_call(calls, repeat, lambda: get_order_async(**ARGS))),
        ("guard", await _per_call(calls, repeat, lambda: plain(ARGS))),
        ("guard+validation", await _per_call(calls, repeat, lambda: validated(ARGS))),
        ("harness bare", await _per_call(calls, repeat, lambda: bare.call_tool(call, ctx))),
        ("harness guard", await _per_call(calls, repeat, lambda: harness.call_tool(call, ctx))),
    ]
    times = dict(rows)
    print(f"{'variant':<18} {'µs/call':>9} {'× bare':>8}")
    for name, t in rows:
        base = times["harness bare"] if name.startswith("harness") else times["bare sync"]
        print(f"{name:<18} {t * 1e6:9.2f} {t / base:8.1f}")
    checks = [
        ("guard overhead", times["guard"] - times["bare sync"], 50e-6),
        ("guard+validation overhead", times["guard+validation"] - times["bare sync"], 200e-6),
        ("harness guard overhead", times["harness guard"] - times["harness bare"], 200e-6),
    ]
    print()
    for label, overhead, target in checks:
        verdict = "ok" if overhead <= target else "OVER TARGET"
        print(f"{label:<26} {overhead * 1e6:7.1f} µs  (target ≤ {target * 1e6:.0f} µs) {verdict}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    ns = parser.parse_args()
    asyncio.run(main(ns.calls, ns.repeat))
