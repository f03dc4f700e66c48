"""A suite: named scenarios plus how to build their domains and judge their sessions."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from ..domains import Domain, DomainSpec, get_domain
from ..records import Outcome, Scenario, Session
from ..scoring import evaluate_session


class Suite:
    """Scenarios with generic criteria (gold replay, facts, forbidden calls).

    Subclasses change where a scenario's domain comes from or how it is judged.
    """

    def __init__(self, name: str, scenarios: list[Scenario]) -> None:
        self.name = name
        self.scenarios = scenarios

    def content_hash(self) -> str:
        """Hash of every scenario's content: two runs with equal hashes ran the same tasks."""
        blob = orjson.dumps(
            [s.model_dump(mode="json") for s in self.scenarios], option=orjson.OPT_SORT_KEYS
        )
        return hashlib.blake2b(blob, digest_size=16).hexdigest()

    def limited(self, limit: int | None) -> Suite:
        """The same suite keeping only its first `limit` scenarios."""
        if limit is None:
            return self
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.scenarios = self.scenarios[:limit]
        return clone

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The domain a scenario runs in."""
        return get_domain(scenario.domain)

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """Judge one finished session."""
        return evaluate_session(scenario, session, final_domain, self.domain_for(scenario))
