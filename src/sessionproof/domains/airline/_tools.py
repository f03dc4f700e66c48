"""Airline tools with tau2-bench's names, parameters, effects and error texts.

`AirlineTools` is tau2's set. The tau-bench variant (`sessionproof.domains.taubench`)
subclasses it and changes only what tau-bench does differently, through `MESSAGES` and the
class flags below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel

from .._tau import TauToolkit, calculate, lenient
from .._toolkit import tool
from ._models import (
    AirportCode,
    CabinClass,
    Certificate,
    DirectFlight,
    Flight,
    FlightDateStatus,
    FlightDateStatusAvailable,
    FlightDB,
    FlightInfo,
    FlightType,
    GiftCard,
    Insurance,
    Passenger,
    Payment,
    Reservation,
    ReservationFlight,
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


def _as_models(kind: type[M], items: Sequence[Any]) -> list[Any]:
    # tau2 converts a list of argument objects only when every element is a JSON object;
    # anything else goes through as given and fails where it is first used.
    if all(isinstance(item, Mapping) for item in items):
        return [lenient(kind, item) for item in items]
    return list(items)


class AirlineTools(TauToolkit[FlightDB]):
    """tau2-bench's airline tools."""

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

    @tool(write=True)
    def book_reservation(
        self,
        user_id: str,
        origin: str,
        destination: str,
        flight_type: FlightType,
        cabin: CabinClass,
        flights: list[FlightInfo | dict[str, Any]],
        passengers: list[Passenger | dict[str, Any]],
        payment_methods: list[Payment | dict[str, Any]],
        total_baggages: int,
        nonfree_baggages: int,
        insurance: Insurance,
    ) -> Reservation:
        """Book a new reservation for a user, paid with methods from their profile.

        Args:
            user_id: The booking user's id, e.g. 'sara_doe_496'.
            origin: IATA code of the trip's origin, e.g. 'SFO'.
            destination: IATA code of the trip's destination, e.g. 'JFK'.
            flight_type: 'one_way' or 'round_trip'.
            cabin: 'basic_economy', 'economy' or 'business' (the same on every flight).
            flights: Every flight of the trip, each {flight_number, date}.
            passengers: Every traveller, each {first_name, last_name, dob}.
            payment_methods: How the total is paid, each {payment_id, amount}; the amounts
                must add up to the total price.
            total_baggages: Checked bags on the reservation.
            nonfree_baggages: How many of them are paid (50 dollars each).
            insurance: 'yes' or 'no' (30 dollars per passenger).
        """
        chosen = _as_models(FlightInfo, flights)
        people = _as_models(Passenger, passengers)
        paying = _as_models(Payment, payment_methods)
        user = self._user(user_id)
        reservation_id = self._new_reservation_id()
        reservation = Reservation.model_validate(
            {
                "reservation_id": reservation_id,
                "user_id": user_id,
                "origin": origin,
                "destination": destination,
                "flight_type": flight_type,
                "cabin": cabin,
                "flights": [],
                "passengers": [p.model_copy(deep=True) for p in people],
                "payment_history": [p.model_copy(deep=True) for p in paying],
                "created_at": NOW,
                "total_baggages": total_baggages,
                "nonfree_baggages": nonfree_baggages,
                "insurance": insurance,
            }
        )
        total_price = 0
        for info in chosen:
            flight = self._flight(info.flight_number)
            on_date = self._flight_date(info.flight_number, info.date)
            if not isinstance(on_date, FlightDateStatusAvailable):
                raise self._error(
                    "flight_not_available", flight_number=info.flight_number, date=info.date
                )
            if on_date.available_seats[cabin] < len(people):
                raise self._error("not_enough_seats", flight_number=info.flight_number)
            price = on_date.prices[cabin]
            reservation.flights.append(
                ReservationFlight(
                    origin=flight.origin,
                    destination=flight.destination,
                    flight_number=info.flight_number,
                    date=info.date,
                    price=price,
                )
            )
            total_price += price * len(people)
        if insurance == "yes":
            total_price += 30 * len(people)
        total_price += 50 * nonfree_baggages
        for payment in paying:
            if payment.payment_id not in user.payment_methods:
                raise self._error("book_payment_not_found", payment_id=payment.payment_id)
            method = user.payment_methods[payment.payment_id]
            if isinstance(method, GiftCard | Certificate) and method.amount < payment.amount:
                raise self._error("not_enough_balance", payment_id=payment.payment_id)
        paid = sum(payment.amount for payment in paying)
        if paid != total_price:
            raise self._error("payment_mismatch", total=total_price, paid=paid)
        owner = self._own("users", user_id, User)
        for payment in paying:
            method = owner.payment_methods[payment.payment_id]
            if isinstance(method, GiftCard):
                method.amount -= payment.amount
            elif isinstance(method, Certificate):
                owner.payment_methods.pop(payment.payment_id)
        if self.BOOKING_TAKES_SEATS:
            for info in chosen:
                on_date = self._own("flights", info.flight_number, Flight).dates[info.date]
                assert isinstance(on_date, FlightDateStatusAvailable)
                on_date.available_seats[cabin] -= len(people)
        self._put("reservations", reservation_id, reservation)
        owner.reservations.append(reservation_id)
        return reservation

    @tool()
    def calculate(self, expression: str) -> str:
        """Evaluate an arithmetic expression and return the result rounded to two decimals.

        Args:
            expression: The expression, e.g. '12.5 * 3 - 4'. Digits, + - * /, parentheses,
                dots and spaces only.
        """
        try:
            return calculate(expression)
        except ValueError as exc:
            if str(exc) == "Invalid characters in expression":
                raise self._error("bad_characters") from None
            raise

    @tool(write=True)
    def cancel_reservation(self, reservation_id: str) -> Reservation:
        """Cancel a whole reservation; every payment is refunded to its method.

        Args:
            reservation_id: The reservation id, e.g. 'ZFA04Y'.
        """
        self._reservation(reservation_id)
        reservation = self._own("reservations", reservation_id, Reservation)
        refunds = [
            Payment(payment_id=p.payment_id, amount=-p.amount) for p in reservation.payment_history
        ]
        reservation.payment_history.extend(refunds)
        reservation.status = "cancelled"
        return reservation

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

    @tool()
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the conversation to a human agent. Only when the user asks for one, or when
        the request cannot be solved with these tools under the policy.

        Args:
            summary: A short summary of the user's issue for the human agent.
        """
        return "Transfer successful"

    @tool(write=True)
    def update_reservation_baggages(
        self, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
    ) -> Reservation:
        """Change the checked bags of a reservation; added paid bags cost 50 dollars each.

        Args:
            reservation_id: The reservation id, e.g. 'ZFA04Y'.
            total_baggages: The new total number of checked bags.
            nonfree_baggages: The new number of paid bags.
            payment_id: A stored credit card or gift card id for the charge, e.g.
                'credit_card_7815826' or 'gift_card_7815826'.
        """
        reservation = self._reservation(reservation_id)
        self._user(reservation.user_id)
        total_price = 50 * max(0, nonfree_baggages - reservation.nonfree_baggages)
        payment = self._charge_for_update(reservation.user_id, payment_id, total_price)
        reservation = self._own("reservations", reservation_id, Reservation)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.total_baggages = total_baggages
        reservation.nonfree_baggages = nonfree_baggages
        return reservation

    @tool(write=True)
    def update_reservation_flights(
        self,
        reservation_id: str,
        cabin: CabinClass,
        flights: list[FlightInfo | dict[str, Any]],
        payment_id: str,
    ) -> Reservation:
        """Replace the flights (and cabin) of a reservation; the price difference is charged
        to, or refunded on, a stored payment method. Unchanged flights keep their price.

        Args:
            reservation_id: The reservation id, e.g. 'ZFA04Y'.
            cabin: The reservation's cabin after the change.
            flights: Every flight of the reservation after the change, each {flight_number,
                date}, including the ones that stay the same.
            payment_id: A stored credit card or gift card id, e.g. 'credit_card_7815826' or
                'gift_card_7815826'.
        """
        chosen = _as_models(FlightInfo, flights)
        reservation = self._reservation(reservation_id)
        self._user(reservation.user_id)
        travellers = len(reservation.passengers)
        total_price = 0
        new_flights: list[ReservationFlight] = []
        for info in chosen:
            kept = next(
                (
                    f
                    for f in reservation.flights
                    if f.flight_number == info.flight_number
                    and f.date == info.date
                    and cabin == reservation.cabin
                ),
                None,
            )
            if kept is not None:
                total_price += kept.price * travellers
                new_flights.append(kept.model_copy())
                continue
            flight = self._flight(info.flight_number)
            on_date = self._flight_date(info.flight_number, info.date)
            if not isinstance(on_date, FlightDateStatusAvailable):
                raise self._error(
                    "flight_not_available", flight_number=info.flight_number, date=info.date
                )
            if on_date.available_seats[cabin] < travellers:
                raise self._error("not_enough_seats", flight_number=info.flight_number)
            leg = ReservationFlight(
                flight_number=info.flight_number,
                date=info.date,
                price=on_date.prices[cabin],
                origin=flight.origin,
                destination=flight.destination,
            )
            total_price += leg.price * travellers
            new_flights.append(leg)
        total_price -= sum(f.price for f in reservation.flights) * travellers
        payment = self._charge_for_update(reservation.user_id, payment_id, total_price)
        reservation = self._own("reservations", reservation_id, Reservation)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.flights = new_flights
        if self.CHANGE_SETS_CABIN:
            reservation.cabin = cabin
        return reservation

    @tool(write=True)
    def update_reservation_passengers(
        self, reservation_id: str, passengers: list[Passenger | dict[str, Any]]
    ) -> Reservation:
        """Replace the passenger details of a reservation (the number cannot change).

        Args:
            reservation_id: The reservation id, e.g. 'ZFA04Y'.
            passengers: Every passenger after the change, each {first_name, last_name, dob}.
        """
        people = [lenient(Passenger, p) for p in passengers]
        reservation = self._reservation(reservation_id)
        if len(people) != len(reservation.passengers):
            raise self._error("passenger_count")
        reservation = self._own("reservations", reservation_id, Reservation)
        reservation.passengers = [p.model_copy(deep=True) for p in people]
        return reservation

    @tool()
    def get_flight_status(self, flight_number: str, date: str) -> str:
        """The status of a flight on a date ('available', 'landed', 'delayed', ...).

        Args:
            flight_number: The flight number, e.g. 'HAT001'.
            date: The date, 'YYYY-MM-DD'.
        """
        return self._flight_date(flight_number, date).status
