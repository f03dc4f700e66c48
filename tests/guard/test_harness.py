"""The guard as a tool-source wrapper in the harness."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sessionproof.domains import ToolContext, ToolSource, WrapperToolSource
from sessionproof.guard import Guard, GuardConfig, GuardDecision, VirtualClock, guard_source
from sessionproof.records import ErrorClass, EventKind, ToolCall, ToolResult, ToolSpec

from ..faults.world import Events, context, make_domain

CallFn = Callable[[ToolCall, ToolContext], Awaitable[ToolResult]]


class _Calls(WrapperToolSource):
    """`inner`'s listing, with its calls served by a test function."""

    def __init__(self, inner: ToolSource, fn: CallFn) -> None:
        super().__init__(inner)
        self.fn = fn

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        return await self.fn(call, ctx)


class _Lists(WrapperToolSource):
    """`inner`'s calls, with a fixed listing (what the agent was shown)."""

    def __init__(self, inner: ToolSource, tools: list[ToolSpec]) -> None:
        super().__init__(inner)
        self.tools = tools

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        return self.tools


def _guarded(**config: object) -> tuple[Guard, list[GuardDecision]]:
    seen: list[GuardDecision] = []
    return Guard(GuardConfig(**config), clock=VirtualClock(), on_decision=seen.append), seen


async def test_clean_call_passes_through_untouched() -> None:
    domain, events = make_domain(), Events()
    guard, seen = _guarded()
    boundary = guard_source(guard, domain).call_tool
    call = ToolCall(id="c1", name="get_book", arguments={"book_id": "B1"})
    plain = await domain.call_tool(call, context(Events()))
    result = await boundary(call, context(events))
    assert result.ok and result.output == plain.output
    [payload] = events.of(EventKind.guard_decision)
    assert payload["decision"] == "pass" and payload["call_id"] == "c1"
    assert payload["tool"] == "get_book" and payload["attempt"] == 1
    assert seen[0].model_dump(mode="json") == payload  # the same decision reaches both listeners


async def test_invalid_arguments_never_reach_the_domain() -> None:
    domain, events = make_domain(), Events()
    guard, _ = _guarded()
    reached: list[ToolCall] = []

    async def inner(call: ToolCall, ctx: ToolContext) -> ToolResult:
        reached.append(call)
        return await domain.call_tool(call, ctx)

    boundary = guard_source(guard, _Calls(domain, inner)).call_tool
    bad = ToolCall(id="c1", name="lend_book", arguments={"book_id": "B1", "kind": "forever"})
    result = await boundary(bad, context(events))
    assert reached == [] and domain.db.books["B1"].status == "available"
    assert result.error_class is ErrorClass.validation_error and not result.injected
    assert "member: this required field is missing" in result.output
    assert 'kind: "forever" is not an allowed value' in result.output
    assert events.of(EventKind.guard_decision)[0]["decision"] == "repair"


async def test_unparsable_and_unknown_calls_get_hints() -> None:
    domain, events = make_domain(), Events()
    guard, _ = _guarded()
    boundary = guard_source(guard, domain).call_tool
    broken = ToolCall(
        id="c1", name="get_book", arguments=None, raw_arguments="{", parse_error="bad JSON"
    )
    assert "bad JSON" in (await boundary(broken, context(events))).output
    made_up = ToolCall(id="c2", name="get_books", arguments={})
    result = await boundary(made_up, context(events))
    assert "Did you mean 'get_book'?" in result.output
    assert [p["decision"] for p in events.of(EventKind.guard_decision)] == ["repair", "repair"]


async def test_specs_come_from_what_the_agent_sees() -> None:
    domain, events = make_domain(), Events()
    guard, _ = _guarded()
    visible = [t for t in domain.tools() if t.name != "lend_book"]
    guarded = guard_source(guard, _Lists(domain, visible))
    assert await guarded.list_tools(context(events)) == visible
    boundary = guarded.call_tool
    call = ToolCall(
        id="c1", name="lend_book", arguments={"book_id": "B1", "member": "M", "kind": "standard"}
    )
    result = await boundary(call, context(events))
    assert result.error_class is ErrorClass.validation_error  # hidden tool: not callable
    assert domain.db.books["B1"].status == "available"


async def test_injected_flag_and_retry_after_survive_the_guard() -> None:
    domain, events = make_domain(), Events()
    guard, _ = _guarded(max_attempts=2)
    sent = 0

    async def limited(call: ToolCall, ctx: ToolContext) -> ToolResult:
        nonlocal sent
        sent += 1
        return ToolResult(
            call_id=call.id,
            name=call.name,
            output="Error: 429 Too Many Requests. Retry after 9 seconds.",
            error_class=ErrorClass.rate_limited,
            injected=True,
        )

    boundary = guard_source(guard, _Calls(domain, limited)).call_tool
    call = ToolCall(id="c1", name="get_book", arguments={"book_id": "B1"})
    result = await boundary(call, context(events))
    assert sent == 2 and result.injected and result.error_class is ErrorClass.rate_limited
    decisions = events.of(EventKind.guard_decision)
    assert decisions[0]["decision"] == "retry" and decisions[0]["wait_s"] == 9.0
    assert all(d["injected"] for d in decisions)


async def test_idempotency_keys_allow_resending_writes() -> None:
    domain, events = make_domain(), Events()
    guard, _ = _guarded()
    outcomes = iter([ErrorClass.server_error, None])

    async def shaky(call: ToolCall, ctx: ToolContext) -> ToolResult:
        cls = next(outcomes)
        if cls is None:
            return await domain.call_tool(call, ctx)
        return ToolResult(call_id=call.id, name=call.name, output="Error: 500", error_class=cls)

    boundary = guard_source(
        guard, _Calls(domain, shaky), idempotency_keys={"lend_book": "member"}
    ).call_tool
    call = ToolCall(
        id="w", name="lend_book", arguments={"book_id": "B2", "member": "M3", "kind": "standard"}
    )
    result = await boundary(call, context(events))
    assert result.ok and domain.db.books["B2"].borrower == "M3"
