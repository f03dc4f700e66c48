"""Each implicit fault kind on a typed toolkit: what the agent is served, what the DB holds
(the judge's truth), the event that says what changed, transient against permanent."""

from __future__ import annotations

import json

from sessionproof.records import ErrorClass, ToolCall, ToolResult, ToolSpec

from .implicit_world import Driver, typed_domain
from .world import make_domain


async def test_stale_read_serves_the_entity_as_before_the_last_write() -> None:
    domain = typed_domain()
    shop = Driver(domain, "stale_read:100%")
    await shop.call("get_order", order_id="O1")
    await shop.call("set_status", order_id="O1", status="shipped")
    stale = await shop.call("get_order", order_id="O1")
    assert json.loads(stale.output)["status"] == "pending"
    assert domain.db.orders["O1"].status == "shipped"
    (event,) = shop.faults()
    assert event["fault"] == "stale_read" and event["call_id"] == "c2"
    assert event["change"]["stale_from_call"] == "c0" and event["change"]["writes_since"] == 1
    again = await shop.call("get_order", order_id="O1")  # transient: the repeat is true
    assert json.loads(again.output)["status"] == "shipped"
    assert len(shop.faults()) == 1


async def test_stale_read_needs_a_write_to_the_same_entity() -> None:
    shop = Driver(typed_domain(), "stale_read:100%")
    await shop.call("get_order", order_id="O1")
    await shop.call("set_status", order_id="O2", status="lost")
    fresh = await shop.call("get_order", order_id="O1")
    assert json.loads(fresh.output)["status"] == "pending" and shop.faults() == []


async def test_a_permanent_fault_meets_every_repeat() -> None:
    shop = Driver(typed_domain(), "stale_read:permanent:100%")
    await shop.call("get_order", order_id="O1")
    await shop.call("set_status", order_id="O1", status="shipped")
    for _ in range(3):
        assert json.loads((await shop.call("get_order", order_id="O1")).output)["status"] == (
            "pending"
        )
    first, *repeats = shop.faults()
    assert first["permanent"] and "repeat_of" not in first["change"]
    assert [e["change"]["repeat_of"] for e in repeats] == ["c2", "c2"]


async def test_wrong_entity_serves_another_record_of_the_same_table() -> None:
    shop = Driver(typed_domain(), "wrong_entity:100%")
    served = json.loads((await shop.call("get_order", order_id="O1")).output)
    assert served["id"] in {"O2", "O3"}
    (event,) = shop.faults()
    assert event["change"] == {
        "source": "domain",
        "argument": "order_id",
        "asked": "O1",
        "served_for": served["id"],
    }


async def test_silent_noop_reports_success_and_commits_nothing() -> None:
    domain = typed_domain()
    before = domain.state_hash()
    shop = Driver(domain, "silent_noop:100%")
    result = await shop.call("set_status", order_id="O1", status="shipped")
    assert result.ok and json.loads(result.output) == {"order_id": "O1", "status": "shipped"}
    assert domain.db.orders["O1"].status == "pending" and domain.state_hash() == before
    (event,) = shop.faults()
    assert event["fault"] == "silent_noop" and event["change"]["committed"] is False
    await shop.call("set_status", order_id="O1", status="shipped")  # transient: commits now
    assert domain.db.orders["O1"].status == "shipped" and len(shop.faults()) == 1


async def test_permanent_silent_noop_never_commits_the_write() -> None:
    domain = typed_domain()
    shop = Driver(domain, "silent_noop:permanent:100%")
    for _ in range(3):
        assert (await shop.call("set_status", order_id="O1", status="shipped")).ok
    assert domain.db.orders["O1"].status == "pending" and len(shop.faults()) == 3


async def test_partial_result_cuts_a_list_and_stays_valid_json() -> None:
    shop = Driver(typed_domain(), "partial_result:100%")
    served = json.loads((await shop.call("get_order", order_id="O3")).output)
    (event,) = shop.faults()
    assert event["change"]["path"] == "items" and event["change"]["true_len"] == 4
    assert 1 <= len(served["items"]) == event["change"]["served_len"] < 4
    assert served["items"] == ["mug", "tea", "spoon", "jar"][: len(served["items"])]


async def test_corrupted_value_perturbs_one_field_within_its_type() -> None:
    domain = typed_domain()
    shop = Driver(domain, "corrupted_value:100%")
    true = json.loads(domain.db.orders["O2"].model_dump_json())
    served = json.loads((await shop.call("get_order", order_id="O2")).output)
    (event,) = shop.faults()
    path, old, new = event["change"]["path"], event["change"]["true"], event["change"]["served"]
    differing = [k for k in true if true[k] != served[k]]
    assert differing == [path] and true[path] == old and served[path] == new != old
    assert type(new) is type(old)


async def test_error_in_body_is_a_success_that_says_it_failed() -> None:
    domain = typed_domain()
    shop = Driver(domain, "error_in_body:100%")
    result = await shop.call("set_status", order_id="O1", status="shipped")
    assert result.ok and result.error_class is None and not result.injected
    assert json.loads(result.output)["status"] == "error"
    assert domain.db.orders["O1"].status == "pending"
    assert shop.faults()[0]["change"]["forwarded"] is False


async def test_duplicate_write_applies_the_write_twice() -> None:
    domain = typed_domain()
    shop = Driver(domain, "duplicate_write:100%")
    result = await shop.call("add_item", order_id="O2", item="nib")
    assert json.loads(result.output) == {"order_id": "O2", "items": 3}  # the first answer
    assert domain.db.orders["O2"].items == ["pen", "ink", "nib", "nib"]
    (event,) = shop.faults()
    assert event["change"]["applied"] == 2 and event["change"]["second_ok"] is True


async def test_kinds_apply_only_to_calls_of_their_nature() -> None:
    domain = typed_domain()
    reads = Driver(domain, "partial_result:50%,corrupted_value:50%")
    await reads.call("add_item", order_id="O1", item="rug")
    await reads.call("set_status", order_id="O1", status="x")
    writes = Driver(domain, "silent_noop:50%,duplicate_write:50%")
    await writes.call("get_order", order_id="O3")
    await writes.call("list_orders")
    assert reads.faults() == [] and writes.faults() == []
    assert domain.db.orders["O1"].items[-1] == "rug" and domain.db.orders["O1"].status == "x"


async def test_a_failing_call_is_left_as_it_is() -> None:
    shop = Driver(typed_domain(), "corrupted_value:100%")
    result = await shop.call("get_order", order_id="nope")
    assert result.error_class is ErrorClass.not_found and shop.faults() == []


async def test_the_same_seed_gives_the_same_faults() -> None:
    async def session(seed: int) -> list[tuple[str, str]]:
        shop = Driver(typed_domain(), "corrupted_value:30%,partial_result:30%", seed=seed)
        out = []
        for i in range(30):
            out.append((await shop.call("get_order", order_id=f"O{1 + i % 3}")).output)
        return [(e["call_id"], json.dumps(e["change"])) for e in shop.faults()] + [
            ("", o) for o in out
        ]

    assert await session(5) == await session(5)
    assert await session(5) != await session(6)


async def test_corrupted_value_changes_a_digit_of_a_plain_text_answer() -> None:
    shop = Driver(typed_domain(), "corrupted_value:100%@count")
    shop.source.inner = _Plain()  # type: ignore[attr-defined]
    served = (await shop.call("count")).output
    (event,) = shop.faults()
    assert event["change"] == {"path": "$", "true": "order 4071", "served": served}
    assert served != "order 4071" and served.startswith("order ") and len(served) == 10


class _Plain:
    """A source whose one tool answers in plain text."""

    async def list_tools(self, ctx: object) -> list[ToolSpec]:
        return [ToolSpec(name="count", description="a count", parameters={"type": "object"})]

    async def call_tool(self, call: ToolCall, ctx: object) -> ToolResult:
        return ToolResult(call_id=call.id, name=call.name, output="order 4071")

    async def aclose(self) -> None:
        return None

    def state_hash(self) -> str | None:
        return None


async def test_a_transfer_tool_is_never_faulted() -> None:
    library = make_domain()  # its transfer_to_human_agents is a write tool
    shop = Driver(library, "silent_noop:50%,error_in_body:50%")
    result = await shop.call("transfer_to_human_agents", summary="help")
    assert result.output == "Transfer successful" and shop.faults() == []
    lent = await shop.call("lend_book", book_id="B1", member="m1", kind="standard")
    assert lent.ok and len(shop.faults()) == 1  # the plan does fault other writes
