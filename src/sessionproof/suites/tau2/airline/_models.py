"""The airline DB: flights with per-date status, users, reservations.

Field names, order and types follow tau2-bench's airline data model: tool replies are
`model_dump()` in field order, and the DB verdict compares states value for value (a gift card
amount is a float there, a payment an int).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

FlightType = Literal["round_trip", "one_way"]
"""Trip type of a reservation."""
CabinClass = Literal["business", "economy", "basic_economy"]
"""Cabin of a reservation (the same on every flight of it)."""
Insurance = Literal["yes", "no"]
"""Whether travel insurance was bought."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AirportCode(_Record):
    """An airport and its city."""

    iata: str
    city: str


class Name(_Record):
    """A person's first and last name."""

    first_name: str
    last_name: str


class Address(_Record):
    """A postal address."""

    address1: str
    address2: str | None = None
    city: str
    country: str
    state: str
    zip: str


class Payment(_Record):
    """One payment (or, negative, refund) on a reservation, in whole dollars."""

    payment_id: str
    amount: int


class CreditCard(_Record):
    """A saved credit card."""

    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class GiftCard(_Record):
    """A gift card with a remaining amount."""

    source: Literal["gift_card"]
    id: str
    amount: float


class Certificate(_Record):
    """A travel certificate (used whole; the rest is not refunded)."""

    source: Literal["certificate"]
    id: str
    amount: float


PaymentMethod = Annotated[CreditCard | GiftCard | Certificate, Field(discriminator="source")]
"""A saved payment method, told apart by `source`."""


class Passenger(_Record):
    """A traveller on a reservation."""

    first_name: str
    last_name: str
    dob: str


class FlightDateStatusAvailable(_Record):
    """A bookable flight date: seats left and prices by cabin."""

    status: Literal["available"]
    available_seats: dict[CabinClass, int]
    prices: dict[CabinClass, int]


class FlightDataStatusOnTime(_Record):
    """A flight date about to depart on time (not bookable)."""

    status: Literal["on time"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


class FlightDataStatusFlying(_Record):
    """A flight in the air (not bookable)."""

    status: Literal["flying"]
    actual_departure_time_est: str
    estimated_arrival_time_est: str


class FlightDateStatusLanded(_Record):
    """A flight that has landed."""

    status: Literal["landed"]
    actual_departure_time_est: str
    actual_arrival_time_est: str


class FlightDateStatusCancelled(_Record):
    """A cancelled flight date."""

    status: Literal["cancelled"]


class FlightDateStatusDelayed(_Record):
    """A delayed flight date (not bookable)."""

    status: Literal["delayed"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


FlightDateStatus = Annotated[
    FlightDateStatusAvailable
    | FlightDateStatusLanded
    | FlightDateStatusCancelled
    | FlightDateStatusDelayed
    | FlightDataStatusFlying
    | FlightDataStatusOnTime,
    Field(discriminator="status"),
]
"""A flight's state on one date, told apart by `status`."""


class Flight(_Record):
    """A scheduled flight and its state on each date."""

    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, FlightDateStatus]


class DirectFlight(_Record):
    """A search result: a flight available on a date, with seats and prices."""

    flight_number: str
    origin: str
    destination: str
    status: Literal["available"]
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    date: str | None = None
    available_seats: dict[CabinClass, int]
    prices: dict[CabinClass, int]


class ReservationFlight(_Record):
    """One flight of a reservation, at the price paid per passenger."""

    flight_number: str
    origin: str
    destination: str
    date: str
    price: int


class FlightInfo(_Record):
    """A flight chosen for a booking or change: number and date."""

    flight_number: str
    date: str


class User(_Record):
    """A customer: identity, payment methods, saved passengers, membership, reservations."""

    user_id: str
    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, PaymentMethod]
    saved_passengers: list[Passenger]
    membership: Literal["gold", "silver", "regular"]
    reservations: list[str]


class Reservation(_Record):
    """A booking: flights, passengers, payments, bags, insurance."""

    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: FlightType
    cabin: CabinClass
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: Insurance
    status: Literal["cancelled"] | None = None


class FlightDB(_Record):
    """The whole airline world, three tables keyed by id."""

    flights: dict[str, Flight]
    users: dict[str, User]
    reservations: dict[str, Reservation]


TABLES = ("flights", "users", "reservations")
"""FlightDB's record tables (copied per session, written record by record)."""
