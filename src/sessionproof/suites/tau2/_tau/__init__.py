"""Machinery shared by the tau-bench family of domains (retail, airline, their variants)."""

from ._calc import ALLOWED_CHARS as ALLOWED_CHARS
from ._calc import calculate as calculate
from ._cow import CowTracker as CowTracker
from ._cow import SharedBase as SharedBase
from ._cow import canonical_bytes as canonical_bytes
from ._cow import record_digest as record_digest
from ._data import read_package_json as read_package_json
from ._domain import CalculatorTool as CalculatorTool
from ._domain import TauDomain as TauDomain
from ._domain import TauDomainSpec as TauDomainSpec
from ._domain import TauToolkit as TauToolkit
from ._domain import fail as fail
from ._domain import lenient as lenient
from ._domain import to_tau2_json as to_tau2_json
from ._domain import transfer_to_human_agents as transfer_to_human_agents
