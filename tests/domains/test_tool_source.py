"""The tool-source seam: SchemaTools' contract, and the listing side of every wrapper."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import hooks_for
from sessionproof.domains import SchemaTool, SchemaTools, ToolContext, ToolSource, WrapperToolSource
from sessionproof.errors import ToolError
from sessionproof.faults import FaultPlan
from sessionproof.faults._internal import FaultInjector
from sessionproof.guard import Guard, VirtualClock, guard_source
from sessionproof.records import ErrorClass, EventKind, ToolCall, ToolSpec

from ..faults.world import Events, context
from .schema_world import CANCEL_ORDER, GET_ORDER, ShopSpec

E = ErrorClass
OPEN: dict[str, Any] = {"type": "object", "properties": {}}


def _call(name: str, args: dict[str, Any] | None, cid: str = "c1", **kw: Any) -> ToolCall:
    return ToolCall(id=cid, name=name, arguments=args, **kw)


def _one(fn: Any, *, name: str = "t", **options: Any) -> SchemaTools:
    return SchemaTools(
        [SchemaTool(ToolSpec(name=name, description="d", parameters=OPEN), fn)], **options
    )


def test_both_toolkits_are_tool_sources() -> None:
    domain = ShopSpec().create()
    assert isinstance(domain, ToolSource) and isinstance(domain.toolkit, ToolSource)
    assert isinstance(_one(lambda: 1), ToolSource)


async def test_schema_tools_list_and_call_sync_and_async() -> None:
    domain, ctx = ShopSpec().create(), context(Events())
    assert await domain.list_tools(ctx) == [GET_ORDER, CANCEL_ORDER]
    got = await domain.call_tool(_call("get_order", {"order_id": "1042"}), ctx)
    assert got.ok and '"status": "pending"' in got.output
    done = await domain.call_tool(
        _call("cancel_order", {"order_id": "1042", "reason": "no_longer_needed"}), ctx
    )
    assert done.ok and domain.db.orders["1042"] == "cancelled"
    assert domain.state_hash() != ShopSpec().create().state_hash()


async def test_schema_tools_failures_are_classified_results() -> None:
    domain, ctx = ShopSpec().create(), context(Events())
    missing = await domain.call_tool(_call("get_order", {"order_id": "9"}), ctx)
    assert missing.error_class is E.not_found and "order '9' not found" in missing.output
    refused = await domain.call_tool(
        _call("cancel_order", {"order_id": "7", "reason": "no_longer_needed"}), ctx
    )
    assert refused.error_class is E.policy_refusal and domain.db.orders["7"] == "shipped"
    bad = await domain.call_tool(_call("cancel_order", {"order_id": "1042", "why": "x"}), ctx)
    assert bad.error_class is E.validation_error and "reason" in bad.output
    assert domain.db.orders["1042"] == "pending"  # an invalid call never reaches the callable
    unknown = await domain.call_tool(_call("burn_order", {}), ctx)
    assert unknown.error_class is E.validation_error and "get_order" in unknown.output
    unparsed = await domain.call_tool(_call("get_order", None, parse_error="bad JSON"), ctx)
    assert unparsed.error_class is E.validation_error and "bad JSON" in unparsed.output


async def test_plain_exceptions_go_through_the_one_classifier() -> None:
    def limited() -> str:
        raise RuntimeError("429 Too Many Requests")

    def buggy() -> str:
        raise KeyError("x")

    ctx = context(Events())
    assert (await _one(limited).call_tool(_call("t", {}), ctx)).error_class is E.rate_limited
    assert (await _one(buggy).call_tool(_call("t", {}), ctx)).error_class is E.validation_error

    def odd() -> str:
        raise ToolError("nope", "no_such_class")

    assert (await _one(odd).call_tool(_call("t", {}), ctx)).error_class is E.unknown


async def test_sync_callables_run_off_the_loop_unless_declared_fast() -> None:
    seen: list[int] = []

    def where() -> str:
        seen.append(threading.get_ident())
        return "ok"

    ctx = context(Events())
    await _one(where).call_tool(_call("t", {}), ctx)
    await _one(where, fast=True).call_tool(_call("t", {}), ctx)
    assert seen[0] != threading.get_ident() and seen[1] == threading.get_ident()


async def test_close_and_state_callbacks() -> None:
    closed: list[str] = []

    async def close() -> None:
        closed.append("async")

    tools = _one(lambda: 1, state=lambda: "h1", close=close)
    assert tools.state_hash() == "h1" and _one(lambda: 1).state_hash() is None
    await tools.aclose()
    await _one(lambda: 1, close=lambda: closed.append("sync")).aclose()
    assert closed == ["async", "sync"]


def test_sync_invoke_refuses_async_tools_and_duplicates_are_refused() -> None:
    async def later() -> int:
        return 1

    assert _one(lambda: 2).invoke("t", {}) == 2
    with pytest.raises(TypeError, match="async"):
        _one(later).invoke("t", {})
    spec = ToolSpec(name="t", description="d", parameters=OPEN)
    with pytest.raises(ValueError, match="twice"):
        SchemaTools([SchemaTool(spec, later), SchemaTool(spec, later)])


class _Counting(WrapperToolSource):
    """Forwards everything; counts what passed through."""

    def __init__(self, inner: ToolSource) -> None:
        super().__init__(inner)
        self.lists = 0

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        self.lists += 1
        return await super().list_tools(ctx)


async def test_wrapper_base_forwards_everything() -> None:
    closed: list[bool] = []
    inner = _one(lambda: "x", state=lambda: "s", close=lambda: closed.append(True))
    wrapped = _Counting(inner)
    ctx = context(Events())
    assert await wrapped.list_tools(ctx) == inner.specs() and wrapped.lists == 1
    assert (await wrapped.call_tool(_call("t", {}), ctx)).output == "x"
    assert wrapped.state_hash() == "s"
    await wrapped.aclose()
    assert closed == [True]


async def test_faults_leave_the_listing_alone() -> None:
    domain = ShopSpec().create()
    faulty = FaultInjector(FaultPlan.parse("rate_limited:100%"), seed=1).wrap(domain)
    assert await faulty.list_tools(context(Events())) == domain.tools()


async def test_drifted_listing_and_the_guard_sees_the_drifted_schema() -> None:
    domain, events = ShopSpec().create(), Events()
    hooks = hooks_for(
        parse_arm("drift=rename_param@2 guard"), seed=3, prefer_tools=["cancel_order"]
    )
    source = hooks.wrap(domain)
    assert await source.list_tools(context(events, turn=0)) == domain.tools()  # not yet
    assert events.of(EventKind.drift_applied) == []
    visible = await source.list_tools(context(events, turn=1))
    [applied] = events.of(EventKind.drift_applied)
    assert applied["tool"] == "cancel_order" and applied["turn"] == 1
    shown = next(t for t in visible if t.name == "cancel_order").parameters["properties"]
    [new] = set(shown) - set(CANCEL_ORDER.parameters["properties"])
    [old] = set(CANCEL_ORDER.parameters["properties"]) - set(shown)
    args = {"order_id": "1042", "reason": "ordered_by_mistake"}
    stale = await source.call_tool(_call("cancel_order", args), context(events, turn=1))
    # The guard checked the call against the drifted schema: refused before it was sent.
    assert events.of(EventKind.guard_decision)[-1]["decision"] == "repair"
    assert stale.error_class is E.validation_error and new in stale.output
    assert domain.db.orders["1042"] == "pending"
    args[new] = args.pop(old)
    fresh = await source.call_tool(_call("cancel_order", args, "c2"), context(events, turn=1))
    assert fresh.ok and domain.db.orders["1042"] == "cancelled"


async def test_guard_checks_calls_against_the_listing_it_passed_up() -> None:
    domain, events = ShopSpec().create(), Events()
    narrowed = [GET_ORDER]

    class _Narrow(WrapperToolSource):
        async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
            return narrowed

    guarded = guard_source(Guard(clock=VirtualClock()), _Narrow(domain))
    assert await guarded.list_tools(context(events)) == narrowed
    args = {"order_id": "1042", "reason": "ordered_by_mistake"}
    hidden = await guarded.call_tool(_call("cancel_order", args), context(events))
    assert hidden.error_class is E.validation_error and domain.db.orders["1042"] == "pending"
