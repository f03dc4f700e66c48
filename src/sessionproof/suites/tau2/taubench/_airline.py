"""tau-bench's airline tools, as a variant of the tau2 airline toolkit.

What tau-bench does differently: lower-case error texts, most without the id ("user not
found"; a missing reservation looked up by `get_reservation_details` even reads "user not
found"); booking does not take seats off the flight; a flight change keeps the old cabin; a
fourth new reservation reuses the last id instead of failing; there is a `think` tool.
"""

from __future__ import annotations

from collections.abc import Mapping

from ....domains import tool
from ..airline._internal import TAU2_MESSAGES, AirlineTools

TAUBENCH_MESSAGES: Mapping[str, str] = {
    **{name: text[0].lower() + text[1:] for name, text in TAU2_MESSAGES.items()},
    "user_not_found": "user not found",
    "reservation_not_found": "reservation not found",
    "lookup_reservation_not_found": "user not found",
}
"""tau-bench's airline error texts, by failure."""


class TauBenchAirlineTools(AirlineTools):
    """The airline toolkit with tau-bench's semantics where they differ from tau2's."""

    TOOLKIT_NAME = ""
    MESSAGES = TAUBENCH_MESSAGES
    BOOKING_TAKES_SEATS = False
    CHANGE_SETS_CABIN = False
    LIMIT_RESERVATIONS = False

    @tool()
    def think(self, thought: str) -> str:
        """Write down a thought. It fetches nothing and changes nothing; use it to reason
        through a complex step.

        Args:
            thought: The thought.
        """
        return ""
