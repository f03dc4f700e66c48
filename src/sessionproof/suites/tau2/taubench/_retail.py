"""tau-bench's retail tools, as a variant of the tau2 retail toolkit.

What tau-bench does differently: lower-case error texts (some worded differently); address and
payment changes need the status to be exactly "pending"; an item may be "modified" into
itself; each modified item gets its own new variant's price and options; an unknown new item
reads "new item ... not found or available"; there is a `think` tool and no
`get_item_details`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ....domains import tool
from ..retail._internal import TAU2_MESSAGES, RetailCore

TAUBENCH_MESSAGES: Mapping[str, str] = {
    **{name: text[0].lower() + text[1:] for name, text in TAU2_MESSAGES.items()},
    "variant_not_found": "new item {item_id} not found or available",
    "exchange_count": "{item_id} not found",
    "exchange_length": "the number of items to be exchanged should match",
    "order_item_missing": "{item_id} not found",
    "return_method": ("payment method should be either the original payment method or a gift card"),
}
"""tau-bench's retail error texts, by failure (the tool adds nothing: "Error: " is the
boundary's)."""


class TauBenchRetailTools(RetailCore):
    """The retail toolkit with tau-bench's semantics where they differ from tau2's."""

    TOOLKIT_NAME = ""
    MESSAGES = TAUBENCH_MESSAGES
    LOOSE_PENDING = False
    REJECT_SAME_ITEM = False
    LAST_VARIANT_PRICES = False

    @tool()
    def think(self, thought: str) -> str:
        """Write down a thought. It fetches nothing and changes nothing; use it to reason
        through a complex step.

        Args:
            thought: The thought.
        """
        return ""
