"""The airline domain spec: tau-bench's airline JSON (as tau2 uses it), loaded once."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from pydantic import ValidationError

from ....errors import InputFileError, describe_validation
from .._tau import SharedBase, TauDomainSpec, read_package_json
from ._models import TABLES, FlightDB
from ._tools import AirlineTools

PACKAGE = "sessionproof.suites.tau2.airline"


def build_flight_db(
    flights: dict[str, Any], users: dict[str, Any], reservations: dict[str, Any]
) -> FlightDB:
    """Validate tau-bench's three airline tables into tau2's DB shape.

    tau-bench's users carry no `user_id` field (the key is the id); tau2's airline DB has it,
    so it is added from the key.
    """
    with_ids = {
        key: {"user_id": key, **value} if isinstance(value, dict) else value
        for key, value in users.items()
    }
    try:
        return FlightDB.model_validate(
            {"flights": flights, "users": with_ids, "reservations": reservations}
        )
    except ValidationError as exc:
        raise InputFileError(f"airline data: {describe_validation(exc)}") from None


@functools.cache
def load_airline_base() -> SharedBase[FlightDB]:
    """The airline DB, validated once and shared read-only."""
    db = build_flight_db(
        read_package_json(PACKAGE, "flights.json"),
        read_package_json(PACKAGE, "users.json"),
        read_package_json(PACKAGE, "reservations.json"),
    )
    return SharedBase(db, TABLES)


@functools.cache
def airline_policy() -> str:
    """The agent's system prompt for the airline domain."""
    return (resources.files(PACKAGE) / "policy.md").read_text(encoding="utf-8")


def make_spec(name: str, toolkit: type[AirlineTools]) -> TauDomainSpec[FlightDB]:
    """An airline spec with the given toolkit (tau2's, or a variant's)."""
    return TauDomainSpec(name, toolkit, airline_policy(), load_airline_base)


def spec() -> TauDomainSpec[FlightDB]:
    """The `airline` domain (tau2-bench semantics); the registry calls this lazily."""
    return make_spec("airline", AirlineTools)
