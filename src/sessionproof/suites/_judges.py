"""Judges: a benchmark's own verdict on its scenarios, looked up once by `criteria.evaluator`.

A scenario built by a benchmark's package names that benchmark's judge in
`Criteria.evaluator` (e.g. tau2's tasks name `tau2`); a scenario with no evaluator is judged by
its generic criteria. The judge is registered under that name in the `sessionproof.judges`
entry-point group (sessionproof's own benchmarks declare theirs in its `pyproject.toml`):

    [project.entry-points."sessionproof.judges"]
    acme = "acme_plugin:JUDGE"

Offline scoring (`score`), a rerun's original verdict and its reruns all find the judge here,
so a package's judge is used by every one of them. An evaluator no installed package
registers is an error when the scenario is read for judging, never a silent generic verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from .._plugins import Registry
from ..errors import ConfigError
from ..records import Outcome, Scenario, Session

if TYPE_CHECKING:
    from ..domains import Domain
    from ._nl_judge import NLJudge


class Judgement(BaseModel):
    """Our verdict on one session, with the parts agreement reports compare."""

    model_config = ConfigDict(extra="forbid")

    outcome: Outcome
    db_match: bool | None = None
    """Our DB verdict whether or not DB is in the reward basis (None: not computed)."""
    breakdown: dict[str, float] = Field(default_factory=dict)
    """Reward of each judged basis component."""
    changed: list[str] = Field(default_factory=list)
    """Records where the session's final state differs from the gold state ("table/key")."""


@runtime_checkable
class Judge(Protocol):
    """A benchmark's verdict on sessions of its own scenarios."""

    def judge_recorded(
        self,
        scenario: Scenario,
        session: Session,
        *,
        nl_judge: NLJudge | None = None,
        cache: Any = None,
    ) -> Judgement:
        """Judge a recorded session (no live domain): replay what it needs, then evaluate.
        `cache` is what `new_cache` made for this batch of sessions, or None (its default)."""
        ...

    def evaluate(
        self,
        scenario: Scenario,
        session: Session,
        final_domain: Domain[Any],
        nl_judge: NLJudge | None = None,
    ) -> Outcome:
        """Judge a live session by the domain it ended in."""
        ...

    def new_cache(self) -> Any:
        """Whatever this judge may reuse over one batch of sessions (e.g. gold states)."""
        ...

    def domain_name(self, name: str) -> str:
        """This benchmark's domain for a domain name the user gave (`--domain`): mostly
        `name` itself; a benchmark with its own variants of a domain maps it to them."""
        ...


def _check(name: str, obj: Any) -> Judge:
    if not isinstance(obj, Judge):
        raise ConfigError(
            f"judge plug-in {name!r} is a {type(obj).__name__}: it lacks judge_recorded, "
            "evaluate, new_cache or domain_name"
        )
    return obj


JUDGES: Registry[Judge] = Registry("judges", check=_check)
"""Every judge, by the evaluator name scenarios give (`Criteria.evaluator`)."""


def register_judge(name: str, judge: Judge) -> None:
    """Make `judge` the verdict of scenarios whose `criteria.evaluator` is `name`."""
    JUDGES.add(name, judge)


def judge_named(name: str, *, what: str = "judge") -> Judge:
    """The judge registered as `name`; `ConfigError` naming `what` when none is."""
    found = JUDGES.get(name)
    if found is None:
        known = ", ".join(JUDGES.names()) or "none"
        raise ConfigError(
            f"{what} {name!r} is no installed judge (known: {known}); install the package "
            "that provides it"
        )
    return found


def judge_of(scenario: Scenario) -> Judge | None:
    """The judge of `scenario` (None: its generic criteria judge it).

    Raises `ConfigError` when it names an evaluator no installed package registers.
    """
    name = scenario.criteria.evaluator
    if name is None:
        return None
    return judge_named(name, what=f"scenario {scenario.id!r}: criteria.evaluator")
