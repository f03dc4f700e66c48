"""The gold-prefix reading of a suite: each per-turn scenario run once per turn, from the gold
history of the turns before it.

BFCL scores a multi-turn session from the agent's own history (one bad turn poisons every
later one); WildToolBench scores each task on top of the gold history of the earlier tasks.
`gold_prefix_suite` gives the second reading for any suite whose scenarios declare per-turn
criteria (`Criteria.per_turn`): a scenario with N scripted turns becomes N scenarios
`ID@turnI`, each starting at turn I (`Scenario.start_turn`) with only the gold actions up to
it, its user script ending at turn I. The engine replays the gold history of turns < I; the
suite's own evaluator judges turn I (an `Outcome.turns` entry with `gold_prefix` set).
Scenarios without per-turn criteria are kept as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..domains import Domain, DomainSpec
from ..errors import InputFileError
from ..records import Outcome, Scenario, Session
from ..scoring._internal import Breakdowns
from ._suite import SEPARATOR, Suite
from ._suite import split_id as split_id

READINGS = ("own", "gold-prefix")
"""How a multi-turn session is read: from the agent's own history, or turn by turn from the
gold prefix."""


def has_per_turn_criteria(scenario: Scenario) -> bool:
    """True when `scenario` can be read turn by turn: per-turn criteria, scripted turns."""
    return scenario.criteria.per_turn and bool(scenario.user.turns)


def prefix_scenarios(scenario: Scenario) -> list[Scenario]:
    """One scenario per scripted turn of `scenario`, each starting at that turn from the gold
    prefix (the scenario itself when it has no per-turn criteria)."""
    if not has_per_turn_criteria(scenario):
        return [scenario]
    turns = scenario.user.turns or []
    out = []
    for start in range(len(turns)):
        gold = [a for a in scenario.criteria.gold_actions if (a.turn or 0) <= start]
        out.append(
            scenario.model_copy(
                update={
                    "id": f"{scenario.id}{SEPARATOR}{start}",
                    "user": scenario.user.model_copy(update={"turns": turns[: start + 1]}),
                    "criteria": scenario.criteria.model_copy(update={"gold_actions": gold}),
                    "start_turn": start,
                }
            )
        )
    return out


class GoldPrefixSuite(Suite):
    """`base` read from gold prefixes: its per-turn scenarios split one per turn; domains and
    verdicts come from `base`."""

    def __init__(self, base: Suite) -> None:
        problem = base.gold_prefix_problem()
        if problem is not None:
            raise InputFileError(f"{base.name}: --reading gold-prefix: {problem}")
        super().__init__(
            f"{base.name} (gold-prefix)",
            [p for s in base.scenarios for p in prefix_scenarios(s)],
        )
        self.base = base

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The base suite's domain for the scenario."""
        return self.base.domain_for(scenario)

    def hashed_form(self, scenario: Scenario) -> dict[str, Any]:
        """As the base suite hashes it."""
        return self.base.hashed_form(scenario)

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """The base suite's verdict (its evaluator reads `scenario.start_turn`)."""
        return self.base.evaluate(scenario, session, final_domain)

    def breakdowns(self, sessions: Sequence[Session]) -> Breakdowns | None:
        """The base suite's breakdowns (its sessions' ids are `ID@turnI`: `split_id`)."""
        return self.base.breakdowns(sessions)

    def limited(self, limit: int | None) -> Suite:
        """The first `limit` base scenarios, each split per turn."""
        return self if limit is None else GoldPrefixSuite(self.base.limited(limit))


def gold_prefix_suite(suite: Suite) -> Suite:
    """`suite` in the gold-prefix reading (see the module docstring)."""
    return suite if isinstance(suite, GoldPrefixSuite) else GoldPrefixSuite(suite)
