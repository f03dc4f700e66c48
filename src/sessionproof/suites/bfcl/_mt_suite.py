"""`--suite bfcl:multi_turn_*`: BFCL v4 multi-turn entries as scripted multi-turn sessions.

One scenario per entry: one scripted user turn per BFCL turn (a miss_func turn where
functions come back carries BFCL's fixed message), the gold calls as gold actions tagged
with their turn (positional arguments bound to their names; the oracle replays them), and
per-turn criteria. A session is judged by re-running its calls, grouped into BFCL's
[turn][step] shape (a step is one assistant message's calls), through BFCL's multi-turn
checker semantics (`_mt_check`): the session verdict is BFCL's, each turn's verdict rides in
`Outcome.turns`. A scenario started from the gold prefix (`start_turn`) is judged on that
turn only, after the gold calls of the turns before it.
"""

from __future__ import annotations

import inspect
from functools import cache
from typing import Any

from ...domains import Domain, DomainSpec
from ...errors import ConfigError
from ...records import (
    Action,
    AssistantMessageEvent,
    Criteria,
    CriterionResult,
    Outcome,
    Scenario,
    Session,
    ToolCallEvent,
    UserSpec,
)
from ...records._internal import TurnResult
from .._suite import Suite
from ._mt_check import MultiTurnVerdict, check_multi_turn
from ._mt_data import MultiTurnQuestion, packaged_multi_turn
from ._mt_domain import BfclMultiTurnSpec
from ._mt_exec import call_string, parse_call
from ._mt_package import additional_function_message, api_class

META = "bfcl_multi_turn"
"""The scenario metadata key this module writes (and alone reads)."""

STEPS_PER_TURN = 20
"""Agent decisions allowed per turn beyond the gold calls (BFCL's harness allows 20 model
steps per turn; here each call is a decision, so a turn of 34 gold calls needs more)."""


@cache
def _questions(category: str) -> dict[str, MultiTurnQuestion]:
    return packaged_multi_turn(category)


def _signatures(classes: tuple[str, ...]) -> dict[str, inspect.Signature]:
    # The last class defining a name wins, as in BFCL's dispatch.
    found: dict[str, inspect.Signature] = {}
    for class_name in classes:
        for name, fn in inspect.getmembers(api_class(class_name), inspect.isfunction):
            if not name.startswith("_"):
                found[name] = inspect.signature(fn)
    return found


def gold_action(text: str, turn: int, signatures: dict[str, inspect.Signature]) -> Action:
    """One gold call string as a gold action of `turn` (positional arguments named)."""
    call = parse_call(text)
    args: dict[str, Any] = dict(call.kwargs)
    if call.args:
        signature = signatures.get(call.name)
        if signature is None:
            raise ConfigError(f"gold call {text!r} names no method of the entry's classes")
        args = dict(signature.bind(None, *call.args, **call.kwargs).arguments)
        args.pop(next(iter(signature.parameters)), None)  # `self`
    return Action(tool=call.name, args=args, turn=turn)


def _turn_text(question: MultiTurnQuestion, index: int, messages: list[dict[str, Any]]) -> str:
    if index in question.missed_function and not messages:
        return additional_function_message()
    text = "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    return text or "(no message)"


def question_scenario(question: MultiTurnQuestion) -> Scenario:
    """One multi-turn entry as a scenario (see the module docstring)."""
    truth = question.ground_truth or []
    signatures = _signatures(tuple(question.involved_classes))
    gold = [
        gold_action(text, turn, signatures) for turn, calls in enumerate(truth) for text in calls
    ]
    return Scenario(
        id=question.id,
        domain=f"bfcl:{question.category}",
        description=f"BFCL v4 {question.category} entry {question.id}",
        tags=["bfcl", question.category, "multi_turn"],
        user=UserSpec(turns=[_turn_text(question, i, m) for i, m in enumerate(question.turns)]),
        criteria=Criteria(gold_actions=gold, compare_state=False, evaluator="bfcl", per_turn=True),
        max_steps=STEPS_PER_TURN * max(1, len(question.turns)) + len(gold),
        metadata={META: {"id": question.id, "category": question.category}},
    )


def question_of(scenario: Scenario) -> MultiTurnQuestion:
    """The BFCL entry a scenario came from; `ConfigError` when it did not come from one."""
    meta = scenario.metadata.get(META)
    if not isinstance(meta, dict) or not isinstance(meta.get("category"), str):
        raise ConfigError(f"scenario {scenario.id!r} is not a BFCL multi-turn entry")
    found = _questions(meta["category"]).get(str(meta.get("id")))
    if found is None:
        raise ConfigError(f"scenario {scenario.id!r}: no BFCL entry {meta.get('id')!r}")
    return found


def decoded_turns(session: Session, turns: int, first: int = 0) -> list[list[list[str]]]:
    """A session's calls in BFCL's [turn][step][call string] shape, turns `first`..`turns-1`.

    A step is one assistant message's tool calls (those the engine ran); a call whose
    arguments did not parse keeps its raw text, so it fails to execute, as in BFCL.
    """
    out: list[list[list[str]]] = [[] for _ in range(first, turns)]
    step: list[str] | None = None
    for event in session.events:
        if isinstance(event, AssistantMessageEvent) and event.payload.tool_calls:
            step = None
            if first <= event.turn < turns:
                step = []
                out[event.turn - first].append(step)
        elif isinstance(event, ToolCallEvent) and step is not None:
            call = event.payload
            if call.arguments is None:
                step.append(f"{call.name}({call.raw_arguments or ''}")
            else:
                step.append(call_string(call.name, call.arguments))
    return out


def evaluate_multi_turn(scenario: Scenario, session: Session) -> Outcome:
    """BFCL's verdict on a session, with each turn's (see the module docstring)."""
    question = question_of(scenario)
    truth = question.ground_truth or []
    start = scenario.start_turn
    if start is None:
        verdict = check_multi_turn(question.entry(), truth, decoded_turns(session, len(truth)))
        return _outcome(verdict, list(range(len(truth))), gold_prefix=False)
    prefix = [[list(calls)] if calls else [] for calls in truth[:start]]
    decoded = prefix + decoded_turns(session, start + 1, first=start)
    verdict = check_multi_turn(question.entry(), truth[: start + 1], decoded)
    return _outcome(verdict, [start], gold_prefix=True)


def _turn_result(verdict: MultiTurnVerdict, turn: int, gold_prefix: bool) -> TurnResult:
    found = next((t for t in verdict.turns if t.turn == turn), None)
    if found is None:  # the output could not be judged at all (e.g. a turn-count mismatch)
        return TurnResult(
            turn=turn, passed=None, gold_prefix=gold_prefix, evidence=verdict.error or ""
        )
    evidence = found.error or ("" if found.checked else "not checked: the gold turn is empty")
    return TurnResult(turn=turn, passed=found.valid, gold_prefix=gold_prefix, evidence=evidence)


def _outcome(verdict: MultiTurnVerdict, judged: list[int], *, gold_prefix: bool) -> Outcome:
    turns = [_turn_result(verdict, i, gold_prefix) for i in judged]
    if gold_prefix:
        # Only the turn the session started at is the agent's.
        success = turns[0].passed is True
        evidence = f"turn {judged[0]} from the gold prefix"
    else:
        success = verdict.valid
        evidence = f"{sum(t.passed is True for t in turns)}/{len(turns)} turns passed"
    if not success:
        evidence += f"; {verdict.error_type}: {verdict.error}"
    return Outcome(
        success=success,
        reward=1.0 if success else 0.0,
        criteria=[CriterionResult(name="bfcl_multi_turn", passed=success, evidence=evidence)],
        turns=turns,
    )


class BfclMultiTurnSuite(Suite):
    """BFCL multi-turn entries: BFCL's classes as tools, sessions judged by its checker."""

    def __init__(self, name: str, scenarios: list[Scenario]) -> None:
        super().__init__(name, scenarios)
        self._domains: dict[str, DomainSpec] = {}

    def domain_for(self, scenario: Scenario) -> DomainSpec:
        """The entry's classes and tools (the spec built once per entry)."""
        question = question_of(scenario)
        spec = self._domains.get(question.id)
        if spec is None:
            spec = self._domains[question.id] = BfclMultiTurnSpec(question)
        return spec

    def evaluate(self, scenario: Scenario, session: Session, final_domain: Domain[Any]) -> Outcome:
        """BFCL's multi-turn verdict, turn by turn."""
        return evaluate_multi_turn(scenario, session)


def make_multi_turn_suite(name: str, category: str) -> BfclMultiTurnSuite:
    """`bfcl:<category>` for a multi-turn category, from the installed bfcl-eval."""
    scenarios = [question_scenario(q) for q in _questions(category).values()]
    return BfclMultiTurnSuite(name, scenarios)
