"""Each implicit fault kind on a real MCP server (stdio, the `mcp` SDK) and on fixtures:
black-box sources, whose state cannot be snapshotted, and where the listing may say nothing
of which tools write."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from sessionproof.conditions import parse_arm
from sessionproof.conditions._internal import check_sources
from sessionproof.domains import Domain
from sessionproof.domains.sources import FixtureBook, FixtureDomainSpec
from sessionproof.errors import ConfigError
from sessionproof.faults._implicit import check_plan

from .implicit_world import Driver, ShopTools, fixture_domain, mcp_domain

pytestmark = pytest.mark.slow  # each MCP test starts a server


@pytest.fixture
async def mcp() -> AsyncIterator[Domain[Any]]:
    domain = mcp_domain()
    try:
        yield domain
    finally:
        await domain.aclose()


async def _writes(shop: Driver) -> int:
    return int(json.loads((await shop.call("write_count")).output)["writes"])


async def test_mcp_lists_no_writes_so_write_kinds_need_the_tool_named(mcp: Domain[Any]) -> None:
    tools = await Driver(mcp, "1%").specs()
    assert tools and not any(t.write for t in tools)
    with pytest.raises(ConfigError, match="name the write tool with @TOOL"):
        check_plan({_k("silent_noop")}, None, tools, "shop-mcp")
    check_plan({_k("silent_noop")}, "set_status", tools, "shop-mcp")  # named: fine
    check_plan({_k("stale_read")}, None, tools, "shop-mcp")  # read kinds need no writes


def _k(name: str) -> Any:
    from sessionproof.records._internal import ImplicitFaultKind

    return ImplicitFaultKind(name)


async def test_mcp_silent_noop_echoes_the_last_success_and_forwards_nothing(
    mcp: Domain[Any],
) -> None:
    shop = Driver(mcp, "silent_noop:100%@set_status")
    first = await shop.call("set_status", order_id="O1", status="packed")
    assert shop.faults() == []  # nothing success-shaped to echo yet: forwarded
    second = await shop.call("set_status", order_id="O1", status="shipped")
    assert second.ok and second.output == first.output
    (event,) = shop.faults()
    assert event["change"]["forwarded"] is False and event["change"]["committed"] is False
    assert await _writes(shop) == 1
    assert json.loads((await shop.call("get_order", order_id="O1")).output)["status"] == "packed"


async def test_mcp_duplicate_write_reaches_the_server_twice(mcp: Domain[Any]) -> None:
    shop = Driver(mcp, "duplicate_write:100%@add_item")
    result = await shop.call("add_item", order_id="O2", item="nib")
    assert json.loads(result.output)["items"] == 3
    assert shop.faults()[0]["change"]["applied"] == 2
    assert await _writes(shop) == 2


async def test_mcp_error_in_body_commits_nothing(mcp: Domain[Any]) -> None:
    shop = Driver(mcp, "error_in_body:100%@set_status")
    result = await shop.call("set_status", order_id="O1", status="shipped")
    assert result.ok and json.loads(result.output)["status"] == "error"
    assert await _writes(shop) == 0 and len(shop.faults()) == 1


async def test_mcp_read_kinds(mcp: Domain[Any]) -> None:
    stale = Driver(mcp, "stale_read:100%@get_order", session="a")
    await stale.call("get_order", order_id="O1")
    await stale.call("set_status", order_id="O1", status="shipped")
    assert json.loads((await stale.call("get_order", order_id="O1")).output)["status"] == "pending"
    assert [e["fault"] for e in stale.faults()] == ["stale_read"]

    wrong = Driver(mcp, "wrong_entity:100%@get_order", session="b")
    await wrong.call("get_order", order_id="O2")  # nothing seen yet, no table to list
    served = json.loads((await wrong.call("get_order", order_id="O3")).output)
    assert served["id"] == "O2"
    assert wrong.faults()[0]["change"]["source"] == "session"

    cut = Driver(mcp, "partial_result:100%@list_orders", session="c")
    ids = json.loads((await cut.call("list_orders")).output)
    assert 1 <= len(ids) < 3 and ids == ["O1", "O2", "O3"][: len(ids)]

    bent = Driver(mcp, "corrupted_value:100%@get_order", session="d")
    served = json.loads((await bent.call("get_order", order_id="O2")).output)
    change = bent.faults()[0]["change"]
    assert served[change["path"]] == change["served"] != change["true"]


async def test_fixture_kinds() -> None:
    domain = fixture_domain()
    noop = Driver(domain, "silent_noop:100%", session="a")
    await noop.call("set_status", order_id="O1", status="packed")
    echoed = await noop.call("set_status", order_id="O2", status="packed")
    assert json.loads(echoed.output) == {"ok": True}
    assert noop.faults()[0]["change"]["forwarded"] is False

    twice = Driver(domain, "duplicate_write:100%", session="b")
    await twice.call("add_item", order_id="O1", item="rug")
    assert twice.faults()[0]["change"] == {
        "applied": 2,
        "second_ok": True,
        "second_output": json.dumps({"ok": True}),
    }

    body = Driver(domain, "error_in_body:100%", session="c")
    assert json.loads((await body.call("get_order", order_id="O1")).output)["status"] == "error"

    wrong = Driver(domain, "wrong_entity:100%", session="d")
    await wrong.call("get_order", order_id="O1")
    assert json.loads((await wrong.call("get_order", order_id="O2")).output)["id"] == "O1"

    cut = Driver(domain, "partial_result:100%", session="e")
    assert len(json.loads((await cut.call("get_order", order_id="O3")).output)["items"]) < 4

    bent = Driver(domain, "corrupted_value:100%", session="f")
    served = json.loads((await bent.call("get_order", order_id="O1")).output)
    change = bent.faults()[0]["change"]
    assert served[change["path"]] == change["served"] != change["true"]


async def test_fixtures_answer_the_same_after_a_write_so_stale_read_never_fires() -> None:
    # Said in the taxonomy: fixtures keep no state, so the "old" answer is the fresh one and
    # no fault is claimed.
    shop = Driver(fixture_domain(), "stale_read:100%")
    first = await shop.call("get_order", order_id="O1")
    await shop.call("set_status", order_id="O1", status="shipped")
    again = await shop.call("get_order", order_id="O1")
    assert again.output == first.output and shop.faults() == []


def test_stale_read_on_a_fixtures_domain_is_refused_at_load() -> None:
    fixtures = FixtureDomainSpec("shop-fixtures", ShopTools.specs(), FixtureBook([]))
    with pytest.raises(ConfigError, match="no read can be stale"):
        check_sources(parse_arm("faults=stale_read:20%"), [fixtures])
    check_sources(parse_arm("faults=wrong_entity:20%,silent_noop:5%"), [fixtures])
