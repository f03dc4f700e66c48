"""silent_noop on a tau domain: its copy-on-write fork is snapshotted and restored in place
(a record the session already owns, edited in place by the next write, comes back too)."""

from __future__ import annotations

import json
import time
from typing import Any

from sessionproof.domains import get_domain
from sessionproof.faults._implicit import undoer

from .implicit_world import Driver


def _address(city: str) -> dict[str, Any]:
    return {
        "address1": "1 Main St",
        "address2": "",
        "city": city,
        "state": "TX",
        "country": "USA",
        "zip": "78701",
    }


async def test_a_silent_write_on_an_owned_record_leaves_the_fork_as_it_was() -> None:
    domain = get_domain("retail").create()
    order = next(o.order_id for o in domain.db.orders.values() if o.status == "pending")
    start = domain.state_hash()
    domain.call("modify_pending_order_address", {"order_id": order, **_address("Dallas")})
    committed = domain.state_hash()
    assert committed != start
    shop = Driver(domain, "silent_noop:permanent:100%")
    said = await shop.call("modify_pending_order_address", order_id=order, **_address("Waco"))
    assert json.loads(said.output)["address"]["city"] == "Waco"  # the agent is told it worked
    assert domain.db.orders[order].address.city == "Dallas"
    assert domain.state_hash() == committed
    await shop.call("modify_pending_order_address", order_id=order, **_address("Waco"))
    assert domain.state_hash() == committed and len(shop.faults()) == 2
    domain.call("modify_pending_order_address", {"order_id": order, **_address("Austin")})
    assert domain.db.orders[order].address.city == "Austin"  # the fork still writes


def test_the_tau_snapshot_is_the_fork_s_own_not_a_copy_of_the_db() -> None:
    domain = get_domain("retail").create()
    take = undoer(domain)
    assert take is not None
    began = time.perf_counter()
    restore = take()
    took = time.perf_counter() - began
    order = next(o.order_id for o in domain.db.orders.values() if o.status == "pending")
    domain.call("cancel_pending_order", {"order_id": order, "reason": "no longer needed"})
    restore()
    assert domain.db.orders[order].status == "pending"
    assert domain.state_hash() == get_domain("retail").create().state_hash()
    assert took < 0.1  # a deep copy of retail's 1,550 records takes ~0.17 s
