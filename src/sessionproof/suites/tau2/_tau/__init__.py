"""Machinery shared by the tau-bench family of domains (retail, airline, their variants)."""

from ._calc import ALLOWED_CHARS, calculate
from ._cow import CowTracker, SharedBase, canonical_bytes, record_digest
from ._data import read_package_json
from ._domain import (
    CalculatorTool,
    TauDomain,
    TauDomainSpec,
    TauToolkit,
    fail,
    lenient,
    to_tau2_json,
    transfer_to_human_agents,
)

__all__ = [
    "ALLOWED_CHARS",
    "CalculatorTool",
    "CowTracker",
    "SharedBase",
    "TauDomain",
    "TauDomainSpec",
    "TauToolkit",
    "calculate",
    "canonical_bytes",
    "fail",
    "lenient",
    "read_package_json",
    "record_digest",
    "to_tau2_json",
    "transfer_to_human_agents",
]
