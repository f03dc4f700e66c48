"""Imperfect instructions (HammerBench-style), a condition like drift: `perturb=KIND[@TURN]`
rewrites a scripted scenario's user side and its criteria.

- `missing_arg`: a value the user typed for a gold call is withheld from that turn; the user
  gives it at the start of the next turn only if the agent asked (a reply with a question
  mark), and the call (with every later gold call of that turn) moves to the next turn with
  the argument in `ask_first`. A call of that tool in the withholding turn is a guess and
  fails the session (`ForbiddenAction.turn`). When the turn is the last, an answer-only turn
  is added (the user stops instead when nobody asked).
- `shifted_arg`: a later turn that relies on a value said earlier (it does not repeat it)
  starts with the user changing that value; the gold call takes the new value (one of the
  scenario's other values for that argument, kept only when the gold replay still runs
  cleanly), and the call with the old value in that turn fails the session.
- `coreference`: a later turn that repeats a value said earlier says "that one" instead;
  the criteria stay as they were.

`@TURN` picks the first target at or after that user turn (1-based, as drift's; default 1).
A scenario without a target (or without scripted turns) runs unchanged:
`PerturbedScenario.applied` says whether it was rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..domains import DomainSpec
from ..errors import ConfigError, ToolError
from ..records import Action, ForbiddenAction, Scenario

PerturbKind = Literal["missing_arg", "shifted_arg", "coreference"]
"""How a perturbed scenario rewrites the user's turns (`PERTURB_KINDS` lists them)."""
PERTURB_KINDS: tuple[PerturbKind, ...] = ("missing_arg", "shifted_arg", "coreference")

_MIN_VALUE = 3
"""Shorter values (a quantity, "no") are too likely to occur by accident in other text."""


class PerturbPlan(BaseModel):
    """One imperfect-instruction perturbation: its kind and the first turn it may hit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: PerturbKind
    turn: int = 1
    """The 1-based user turn from which a target is looked for (as drift's `@TURN`)."""

    @classmethod
    def parse(cls, spec: str) -> PerturbPlan:
        """Parse `KIND[@TURN]`; raises `ConfigError` on anything else."""
        kind, at, turn = spec.strip().partition("@")
        if kind not in PERTURB_KINDS:
            raise ConfigError(
                f"unknown perturbation {kind!r}; use one of {', '.join(PERTURB_KINDS)}[@TURN]"
            )
        if at and not (turn.isdigit() and int(turn) >= 1):
            raise ConfigError(f"perturbation {spec!r}: @TURN must be a user turn, counted from 1")
        return cls(kind=kind, turn=int(turn) if at else 1)  # type: ignore[arg-type]


@dataclass
class PerturbedScenario:
    """A scenario as a perturbation rewrote it, and what its user says when asked."""

    scenario: Scenario
    answers: dict[int, str] = field(default_factory=dict)
    """Turn → what the user adds at its start when the agent has just asked a question."""
    applied: bool = False


def _words(name: str) -> str:
    return name.replace("_", " ")


def _turn(action: Action, last: int) -> int:
    return min(action.turn if action.turn is not None else 0, last)


def _values(action: Action) -> Iterator[tuple[str, str]]:
    for name, value in action.args.items():
        if isinstance(value, str) and len(value) >= _MIN_VALUE:
            yield name, value


def _said(turns: list[str], value: str, upto: int) -> bool:
    return any(value in t for t in turns[:upto])


def _replays(spec: DomainSpec | None, actions: list[Action]) -> bool:
    if spec is None:
        return True
    domain = spec.create()
    try:
        for action in actions:
            domain.call(action.tool, dict(action.args))
    except ToolError:
        return False
    return True


def _with(
    scenario: Scenario, turns: list[str], actions: list[Action], forbid: ForbiddenAction
) -> Scenario:
    criteria = scenario.criteria.model_copy(
        update={"gold_actions": actions, "forbidden": [*scenario.criteria.forbidden, forbid]}
    )
    user = scenario.user.model_copy(update={"turns": turns})
    return scenario.model_copy(update={"user": user, "criteria": criteria})


def _missing_arg(scenario: Scenario, turns: list[str], start: int) -> PerturbedScenario | None:
    gold = scenario.criteria.gold_actions
    last = len(turns) - 1
    for index, action in enumerate(gold):
        t = _turn(action, last)
        same_turn_tools = [a.tool for a in gold if _turn(a, last) == t]
        if t < start or action.ask_first or same_turn_tools.count(action.tool) > 1:
            continue
        for name, value in _values(action):
            if value not in turns[t] or _said(turns, value, t):
                continue
            new_turns = list(turns)
            new_turns[t] = turns[t].replace(value, f"[I don't have the {_words(name)} at hand]")
            if t == last:
                new_turns.append("")
            moved: list[Action] = []
            for i, a in enumerate(gold):
                if i == index:
                    moved.append(a.model_copy(update={"turn": t + 1, "ask_first": [name]}))
                elif i > index and _turn(a, last) == t:
                    moved.append(a.model_copy(update={"turn": t + 1}))  # it comes after
                else:
                    moved.append(a.model_copy(update={"turn": _turn(a, last)}))
            rewritten = _with(scenario, new_turns, moved, ForbiddenAction(tool=action.tool, turn=t))
            answer = f"The {_words(name)} is {value}."
            return PerturbedScenario(rewritten, {t + 1: answer}, applied=True)
    return None


def _shifted_arg(
    scenario: Scenario, turns: list[str], start: int, spec: DomainSpec | None
) -> PerturbedScenario | None:
    gold = scenario.criteria.gold_actions
    last = len(turns) - 1
    for index, action in enumerate(gold):
        t = _turn(action, last)
        if t < max(start, 1):
            continue
        for name, value in _values(action):
            if value in turns[t] or not _said(turns, value, t):
                continue
            others = [v for a in gold for k, v in _values(a) if k == name and v != value]
            for new in dict.fromkeys(others):
                changed = action.model_copy(update={"args": {**action.args, name: new}})
                actions = [changed if i == index else a for i, a in enumerate(gold)]
                if not _replays(spec, actions):
                    continue
                new_turns = list(turns)
                new_turns[t] = (
                    f"Sorry, I gave you the wrong {_words(name)} before: it's {new}, "
                    f"not {value}. " + turns[t]
                )
                forbid = ForbiddenAction(tool=action.tool, args={name: value}, turn=t)
                return PerturbedScenario(_with(scenario, new_turns, actions, forbid), applied=True)
    return None


_NOUN_BEFORE = r"\b(order|product|item|ticket|account|reservation|booking|flight)s?\s+"


def _coreference(scenario: Scenario, turns: list[str], start: int) -> PerturbedScenario | None:
    last = len(turns) - 1
    for action in scenario.criteria.gold_actions:
        t = _turn(action, last)
        if t < max(start, 1):
            continue
        for _, value in _values(action):
            if value not in turns[t] or not _said(turns, value, t):
                continue
            text = re.sub(_NOUN_BEFORE + re.escape(value), r"that \1", turns[t], count=1)
            if text == turns[t]:
                text = turns[t].replace(value, "that one", 1)
            new_turns = list(turns)
            new_turns[t] = text
            user = scenario.user.model_copy(update={"turns": new_turns})
            return PerturbedScenario(scenario.model_copy(update={"user": user}), applied=True)
    return None


def perturb(
    scenario: Scenario, plan: PerturbPlan, spec: DomainSpec | None = None
) -> PerturbedScenario:
    """`scenario` rewritten by `plan` (rules: the module docstring); `spec` (the scenario's
    domain) lets `shifted_arg` check that its new gold calls still replay."""
    turns = list(scenario.user.turns or [])
    if not turns:
        return PerturbedScenario(scenario)
    start = plan.turn - 1  # the engine counts turns from 0
    found: Any
    if plan.kind == "missing_arg":
        found = _missing_arg(scenario, turns, start)
    elif plan.kind == "shifted_arg":
        found = _shifted_arg(scenario, turns, start, spec)
    else:
        found = _coreference(scenario, turns, start)
    return found if found is not None else PerturbedScenario(scenario)
