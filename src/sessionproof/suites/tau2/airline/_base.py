"""The airline toolkit's foundation: fixed ids and clock, tau2's error texts, the variant
flags, lookups and the payment step shared by the change tools.

Lookups never write; a tool that changes a record owns it first (`_own`), see `_tau`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel

from .._tau import TauToolkit, lenient
from ._models import (
    DirectFlight,
    Flight,
    FlightDateStatus,
    FlightDateStatusAvailable,
    FlightDB,
    GiftCard,
    Payment,
    Reservation,
    User,
)

M = TypeVar("M", bound=BaseModel)

NOW = "2024-05-15T15:00:00"
"""The fixed clock of the airline world (reservations made now carry it)."""
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
"""Ids given to new reservations, in order (a task makes at most three)."""
NEW_CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")
"""Ids given to new certificates, in order."""
AIRPORTS = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)
"""The airports the airline serves."""

TAU2_MESSAGES: Mapping[str, str] = {
    "user_not_found": "User {user_id} not found",
    "reservation_not_found": "Reservation {reservation_id} not found",
    "lookup_reservation_not_found": "Reservation {reservation_id} not found",
    "flight_not_found": "Flight {flight_number} not found",
    "flight_date_not_found": "Flight {flight_number} not found on date {date}",
    "too_many_reservations": "Too many reservations",
    "flight_not_available": "Flight {flight_number} not available on date {date}",
    "not_enough_seats": "Not enough seats on flight {flight_number}",
    "book_payment_not_found": "Payment method {payment_id} not found",
    "not_enough_balance": "Not enough balance in payment method {payment_id}",
    "payment_mismatch": "Payment amount does not add up, total price is {total}, but paid {paid}",
    "update_payment_not_found": "Payment method not found",
    "certificate_for_update": "Certificate cannot be used to update reservation",
    "gift_card_short": "Gift card balance is not enough",
    "too_many_certificates": "Too many certificates",
    "passenger_count": "Number of passengers does not match",
    "bad_characters": "Invalid characters in expression",
}
"""tau2-bench's airline error texts, by failure."""

_NOT_FOUND = frozenset(
    {
        "user_not_found",
        "reservation_not_found",
        "lookup_reservation_not_found",
        "flight_not_found",
        "flight_date_not_found",
        "book_payment_not_found",
        "update_payment_not_found",
    }
)


def as_models(kind: type[M], items: Sequence[Any]) -> list[Any]:
    """Argument objects as models, the way tau2 converts them.

    tau2 converts a list only when every element is a JSON object; anything else goes
    through as given and fails where it is first used.
    """
    if all(isinstance(item, Mapping) for item in items):
        return [lenient(kind, item) for item in items]
    return list(items)


class AirlineBase(TauToolkit[FlightDB]):
    """Error texts, variant flags, lookups and the update payment step of the airline tools."""

    TOOLKIT_NAME = "AirlineTools"
    MESSAGES = TAU2_MESSAGES
    NOT_FOUND = _NOT_FOUND
    BOOKING_TAKES_SEATS: ClassVar[bool] = True
    """tau2 takes seats off each booked flight date; tau-bench leaves the seat counts."""
    CHANGE_SETS_CABIN: ClassVar[bool] = True
    """tau2 stores the new cabin on a flight change; tau-bench keeps the old one."""
    LIMIT_RESERVATIONS: ClassVar[bool] = True
    """tau2 refuses a fourth new reservation; tau-bench reuses the last id."""

    # -- lookups (never write) ------------------------------------------------------------

    def _user(self, user_id: str) -> User:
        if user_id not in self.db.users:
            raise self._error("user_not_found", user_id=user_id)
        return self.db.users[user_id]

    def _reservation(self, reservation_id: str, kind: str = "reservation_not_found") -> Reservation:
        if reservation_id not in self.db.reservations:
            raise self._error(kind, reservation_id=reservation_id)
        return self.db.reservations[reservation_id]

    def _flight(self, flight_number: str) -> Flight:
        if flight_number not in self.db.flights:
            raise self._error("flight_not_found", flight_number=flight_number)
        return self.db.flights[flight_number]

    def _flight_date(self, flight_number: str, date: str) -> FlightDateStatus:
        flight = self._flight(flight_number)
        if date not in flight.dates:
            raise self._error("flight_date_not_found", flight_number=flight_number, date=date)
        return flight.dates[date]

    def _new_reservation_id(self) -> str:
        for reservation_id in NEW_RESERVATION_IDS:
            if reservation_id not in self.db.reservations:
                return reservation_id
        if self.LIMIT_RESERVATIONS:
            raise self._error("too_many_reservations")
        return NEW_RESERVATION_IDS[-1]

    def _direct(
        self, date: str, origin: str | None, destination: str | None, leave_after: str | None
    ) -> list[DirectFlight]:
        found = []
        for flight in self.db.flights.values():
            on_date = flight.dates.get(date)
            if (
                (origin is None or flight.origin == origin)
                and (destination is None or flight.destination == destination)
                and isinstance(on_date, FlightDateStatusAvailable)
                and (leave_after is None or flight.scheduled_departure_time_est >= leave_after)
            ):
                found.append(
                    DirectFlight(
                        flight_number=flight.flight_number,
                        origin=flight.origin,
                        destination=flight.destination,
                        status="available",
                        scheduled_departure_time_est=flight.scheduled_departure_time_est,
                        scheduled_arrival_time_est=flight.scheduled_arrival_time_est,
                        available_seats=on_date.available_seats,
                        prices=on_date.prices,
                    )
                )
        return found

    def _charge_for_update(self, user_id: str, payment_id: str, total_price: int) -> Payment | None:
        """Check and take a change's price from a stored method; the payment record, if any."""
        user = self.db.users[user_id]
        if payment_id not in user.payment_methods:
            raise self._error("update_payment_not_found")
        method = user.payment_methods[payment_id]
        if method.source == "certificate":
            raise self._error("certificate_for_update")
        if isinstance(method, GiftCard) and method.amount < total_price:
            raise self._error("gift_card_short")
        if isinstance(method, GiftCard):
            card = self._own("users", user_id, User).payment_methods[payment_id]
            assert isinstance(card, GiftCard)
            card.amount -= total_price
        return Payment(payment_id=payment_id, amount=total_price) if total_price != 0 else None

    # -- tools ----------------------------------------------------------------------------
