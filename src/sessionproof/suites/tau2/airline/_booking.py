"""Airline tools that book and change reservations (tau2-bench's names, effects, texts)."""

from __future__ import annotations

from typing import Any

from ....domains import tool
from .._tau import lenient
from ._base import NOW, AirlineBase, as_models
from ._models import (
    CabinClass,
    Certificate,
    Flight,
    FlightDateStatusAvailable,
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


class AirlineBookingTools(AirlineBase):
    """The tools that write reservations: book, cancel, change flights, bags, passengers."""

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
        chosen = as_models(FlightInfo, flights)
        people = as_models(Passenger, passengers)
        paying = as_models(Payment, payment_methods)
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
        chosen = as_models(FlightInfo, flights)
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
