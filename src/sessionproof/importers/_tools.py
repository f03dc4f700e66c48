"""Which tool names a domain has, for flagging calls to tools that do not exist."""

from __future__ import annotations

from ..domains import get_domain
from ..errors import UnknownDomainError


def known_tools(domain: str | None) -> frozenset[str] | None:
    """The domain's tool names, or None when the domain is not known (nothing is flagged)."""
    if domain is None:
        return None
    try:
        return get_domain(domain).tool_names()
    except UnknownDomainError:
        return None
