"""tau-bench (the original benchmark) variants of the retail and airline domains.

Same DBs and tools as the tau2 domains; only the semantics tau-bench has differently are
overridden (error texts, what a booking or flight change stores, the `think` tool). Registered
as `taubench-retail` and `taubench-airline`.
"""

from __future__ import annotations

from .._tau import TauDomainSpec
from ..airline._internal import FlightDB
from ..airline._internal import make_spec as _airline_spec
from ..retail._internal import RetailDB
from ..retail._internal import make_spec as _retail_spec
from ._airline import TauBenchAirlineTools
from ._retail import TauBenchRetailTools


def retail_spec() -> TauDomainSpec[RetailDB]:
    """The `taubench-retail` domain; the registry calls this lazily."""
    return _retail_spec("taubench-retail", TauBenchRetailTools)


def airline_spec() -> TauDomainSpec[FlightDB]:
    """The `taubench-airline` domain; the registry calls this lazily."""
    return _airline_spec("taubench-airline", TauBenchAirlineTools)


__all__: list[str] = []
