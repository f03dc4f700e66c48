"""Airline tools with tau2-bench's names, parameters, effects and error texts.

`AirlineTools` is tau2's set: the reservation-writing tools of `_booking` plus lookups,
searches, certificates and transfers. The tau-bench variant
(`sessionproof.suites.tau2.taubench`) subclasses it and changes only what tau-bench does
differently, through `MESSAGES` and the class flags of `AirlineBase`.
"""

from __future__ import annotations

from ....domains import tool
from .._tau import CalculatorTool, transfer_to_human_agents
from ._base import AIRPORTS, NEW_CERTIFICATE_IDS
from ._base import TAU2_MESSAGES as TAU2_MESSAGES
from ._booking import AirlineBookingTools
from ._models import AirportCode, Certificate, DirectFlight, FlightDB, Reservation, User


class AirlineTools(AirlineBookingTools, CalculatorTool[FlightDB]):
    """tau2-bench's airline tools."""

    @tool()
    def get_reservation_details(self, reservation_id: str) -> Reservation:
        """Show a reservation: flights, passengers, payments, bags, insurance, status.

        Args:
            reservation_id: The reservation id, e.g. '8JX2WO'.
        """
        return self._reservation(reservation_id, "lookup_reservation_not_found")

    @tool()
    def get_user_details(self, user_id: str) -> User:
        """Show a user's profile: contact, payment methods, saved passengers, membership and
        reservation ids.

        Args:
            user_id: The user id, e.g. 'sara_doe_496'.
        """
        return self._user(user_id)

    @tool()
    def list_all_airports(self) -> list[AirportCode]:
        """List every airport the airline serves, with its city."""
        return [AirportCode(iata=iata, city=city) for iata, city in AIRPORTS]

    @tool()
    def search_direct_flight(self, origin: str, destination: str, date: str) -> list[DirectFlight]:
        """Find nonstop flights between two airports on a date that can still be booked,
        with times, seats left and prices per cabin.

        Args:
            origin: IATA code of the departure airport, e.g. 'JFK'.
            destination: IATA code of the arrival airport, e.g. 'LAX'.
            date: The date, 'YYYY-MM-DD', e.g. '2024-01-01'.
        """
        return self._direct(date, origin, destination, None)

    @tool()
    def search_onestop_flight(
        self, origin: str, destination: str, date: str
    ) -> list[list[DirectFlight]]:
        """Find one-stop connections between two airports starting on a date, as pairs of
        bookable flights (the second leaves after the first lands).

        Args:
            origin: IATA code of the departure airport, e.g. 'JFK'.
            destination: IATA code of the final arrival airport, e.g. 'LAX'.
            date: The date of the first flight, 'YYYY-MM-DD', e.g. '2024-05-01'.
        """
        pairs: list[list[DirectFlight]] = []
        for first in self._direct(date, origin, None, None):
            first.date = date
            # tau2's next-day date has no zero padding ("2024-05-6"); kept for equal results.
            second_date = (
                f"2024-05-{int(date[-2:]) + 1}"
                if "+1" in first.scheduled_arrival_time_est
                else date
            )
            for second in self._direct(
                second_date, first.destination, destination, first.scheduled_arrival_time_est
            ):
                second.date = second_date
                pairs.append([first, second])
        return pairs

    @tool(write=True)
    def send_certificate(self, user_id: str, amount: int) -> str:
        """Give a user a travel certificate worth `amount` dollars. Be careful: only when the
        policy allows compensation.

        Args:
            user_id: The user's id, e.g. 'sara_doe_496'.
            amount: The certificate's value in dollars.
        """
        user = self._user(user_id)
        for payment_id in NEW_CERTIFICATE_IDS:
            if payment_id not in user.payment_methods:
                certificate = Certificate(id=payment_id, amount=amount, source="certificate")
                self._own("users", user_id, User).payment_methods[payment_id] = certificate
                return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
        raise self._error("too_many_certificates")

    # tau2's hand-off, one definition for both domains; bound here so it keeps its place
    # in the tool list the agent sees.
    transfer_to_human_agents = transfer_to_human_agents

    @tool()
    def get_flight_status(self, flight_number: str, date: str) -> str:
        """The status of a flight on a date ('available', 'landed', 'delayed', ...).

        Args:
            flight_number: The flight number, e.g. 'HAT001'.
            date: The date, 'YYYY-MM-DD'.
        """
        return self._flight_date(flight_number, date).status
