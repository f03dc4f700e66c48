"""The tau2-bench airline domain: flights, users, reservations, with tau2's tools.

Registered as `airline`; `spec()` is its lazy factory. The DB is tau-bench's airline JSON
with `user_id` added to each user, which is what tau2-bench's airline DB holds (see
data/SOURCE.md).
"""

from ._models import (
    Certificate,
    CreditCard,
    DirectFlight,
    Flight,
    FlightDB,
    FlightInfo,
    GiftCard,
    Passenger,
    Payment,
    Reservation,
    ReservationFlight,
    User,
)
from ._spec import airline_policy, build_flight_db, load_airline_base, make_spec, spec
from ._tools import TAU2_MESSAGES, AirlineTools

__all__ = [
    "TAU2_MESSAGES",
    "AirlineTools",
    "Certificate",
    "CreditCard",
    "DirectFlight",
    "Flight",
    "FlightDB",
    "FlightInfo",
    "GiftCard",
    "Passenger",
    "Payment",
    "Reservation",
    "ReservationFlight",
    "User",
    "airline_policy",
    "build_flight_db",
    "load_airline_base",
    "make_spec",
    "spec",
]
