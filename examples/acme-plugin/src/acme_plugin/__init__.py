"""ACME: an example benchmark plug-in for sessionproof.

Installed, it adds the suite `acme:smoke` (ordering gadgets), the domain `acme-shop`, the
judge `acme`, the transcript format `acme-log` (ACME's order log, auto-detected) and the metric
`gadgets_ordered` through its package's entry points alone: sessionproof imports nothing of it
until one of them is used.
"""

from sessionproof.suites import SuitePlugin

from ._judge import AcmeJudge
from ._shop import shop_domain
from ._suite import load_acme

SUITE = SuitePlugin("ACME gadget orders (an example plug-in)", load_acme, usage="acme:SET")
"""Entry point `sessionproof.suites: acme`."""

JUDGE = AcmeJudge()
"""Entry point `sessionproof.judges: acme`."""

__all__ = ["JUDGE", "SUITE", "shop_domain"]
