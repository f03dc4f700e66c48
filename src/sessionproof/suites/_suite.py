"""A suite: named scenarios plus how to build their domains and judge their sessions."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from ..domains import Domain, DomainSpec, get_domain
from ..records import Outcome, Scenario, Session
from ..scoring import evaluate_session
from ..scoring._internal import Breakdowns
from ._judges import judge_of

if TYPE_CHECKING:
    from ._nl_judge import NLJudge

_INT64 = range(-(2**63), 2**64)
"""Integers orjson can write."""


def _portable(value: Any) -> Any:
    """`value` with what orjson cannot write made writable: integers past 64 bits as their
    decimal text, lone surrogates as `\\udXXX` escapes, non-text keys as text."""
    if isinstance(value, dict):
        return {_portable(str(k)): _portable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_portable(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and value not in _INT64:
        return str(value)
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def _hash_blob(data: list[dict[str, Any]]) -> bytes:
    try:
        # The plain form, unchanged, so stored runs of ordinary suites still resume.
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson's limits: big integers, lone surrogates, non-text keys
        # Tagged, so no portable blob can equal a plain one.
        return b"portable:" + orjson.dumps(_portable(data), option=orjson.OPT_SORT_KEYS)


SEPARATOR = "@turn"
"""Between a scenario's id and the turn a gold-prefix scenario starts at."""


def split_id(scenario_id: str) -> tuple[str, int | None]:
    """(the base scenario's id, the turn a gold-prefix scenario starts at or None)."""
    base, sep, turn = scenario_id.rpartition(SEPARATOR)
    return (base, int(turn)) if sep and turn.isdigit() else (scenario_id, None)


def without_derived_fields(dump: dict[str, Any]) -> dict[str, Any]:
    """A scenario's JSON dump without the typed fields a benchmark package derives from the
    scenario's metadata (`criteria.evaluator`, `criteria.call_rules`, gold `compare_args`).

    For a benchmark's suite they say nothing the hashed metadata does not, and leaving them
    out keeps its hash what it was before they existed, so runs stored then still resume.
    """
    criteria = dump.get("criteria")
    if isinstance(criteria, dict):
        criteria.pop("evaluator", None)
        criteria.pop("call_rules", None)
        for action in criteria.get("gold_actions") or []:
            if isinstance(action, dict):
                action.pop("compare_args", None)
    return dump


class Suite:
    """Scenarios with generic criteria (gold replay, facts, forbidden calls).

    Subclasses change where a scenario's domain comes from or how it is judged.
    """

    nl_judge: NLJudge | None = None
    """Who judges natural-language assertions in a live run (`run --judge`); None leaves
    them not evaluated."""

    def __init__(self, name: str, scenarios: list[Scenario]) -> None:
        self.name = name
        self.scenarios = scenarios

    def content_hash(self) -> str:
        """Hash of every scenario's content: two runs with equal hashes ran the same tasks."""
        blob = _hash_blob([self.hashed_form(s) for s in self.scenarios])
        return hashlib.blake2b(blob, digest_size=16).hexdigest()

    def hashed_form(self, scenario: Scenario) -> dict[str, Any]:
        """What of one scenario the content hash covers: all of it, as JSON."""
        return scenario.model_dump(mode="json")

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
        """Judge one finished session: by the judge its `criteria.evaluator` names (a
        benchmark package's, see `register_judge`), else by its generic criteria."""
        own = judge_of(scenario)
        if own is not None:
            if self.nl_judge is None:
                return own.evaluate(scenario, session, final_domain)
            return own.evaluate(scenario, session, final_domain, nl_judge=self.nl_judge)
        return evaluate_session(scenario, session, final_domain, self.domain_for(scenario))

    def breakdowns(self, sessions: Sequence[Session]) -> Breakdowns | None:
        """Suite-specific breakdown tables of one arm's sessions (None: the suite has none)."""
        return None

    def gold_prefix_problem(self) -> str | None:
        """Why the suite cannot be read from gold prefixes (None: it can)."""
        return None


class FileSuite(Suite):
    """A suite from a user's files: scenarios may set their own initial state; a domain with
    no DB of its own (fixtures, a server) has its gold actions judged as required calls, and
    a domain with one has its read-only gold actions judged so too (a replay cannot see
    them)."""

    def __init__(self, name: str, scenarios: list[Scenario]) -> None:
        super().__init__(name, scenarios)
        self._specs: dict[str, DomainSpec] = {}

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The scenario's domain, starting from its `initial_state` when it has one."""
        spec = get_domain(scenario.domain)
        if scenario.initial_state is None:
            return spec
        cached = self._specs.get(scenario.id)
        if cached is None:
            with_state = getattr(spec, "with_state", None)
            cached = with_state(scenario.initial_state) if with_state is not None else spec
            self._specs[scenario.id] = cached
        return cached

    def gold_prefix_problem(self) -> str | None:
        """Why this suite cannot be read from gold prefixes: no per-turn scenario (the
        reading would silently be the own one), or per-turn facts to communicate (the
        earlier turns' replies are the reference's, not the agent's)."""
        per_turn = [s for s in self.scenarios if s.criteria.per_turn and s.user.turns]
        if not per_turn:
            return (
                "no scenario has per-turn criteria (criteria.per_turn with scripted "
                "user.turns), so there is no turn to start from a gold prefix"
            )
        for scenario in per_turn:
            if scenario.criteria.communicate:
                return (
                    f"scenario {scenario.id!r}: criteria.communicate cannot be judged from a "
                    "gold prefix (the earlier turns' replies are not the agent's); drop it or "
                    "use the own reading"
                )
        return None

    def _judged_form(self, scenario: Scenario) -> Scenario:
        # From a gold prefix, a session ending before the base scenario's last turn is not
        # the end of the session: its end-of-session criteria wait for the last turn's.
        if scenario.start_turn is None:
            return scenario
        base_id, _ = split_id(scenario.id)
        base = next((s for s in self.scenarios if s.id == base_id), None)
        last = len(base.user.turns or []) - 1 if base is not None else scenario.start_turn
        if scenario.start_turn >= last:
            return scenario
        criteria = scenario.criteria.model_copy(update={"state": {}, "expected_calls": []})
        return scenario.model_copy(update={"criteria": criteria})

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """Judge one session (see the class docstring for gold actions)."""
        spec = self.domain_for(scenario)
        judged = self._judged_form(scenario)
        return evaluate_session(judged, session, final_domain, spec, reads_as_calls=True)
