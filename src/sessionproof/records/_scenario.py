"""Scenarios: one task with its user side and its evaluation criteria."""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    model_validator,
)

from ._field_docs import describe_fields


def _unset(value: Any) -> bool:
    # Fields added after suites were first stored stay out of dumps while unused, so every
    # scenario written before them dumps (and so hashes: resume compares suite hashes) as it
    # did.
    return value is None


def _empty_list(value: Any) -> bool:
    # Like `_unset`, for a list added later: left out of dumps while empty.
    return not value


class Action(BaseModel):
    """A tool call named by a scenario (gold or forbidden)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # see the end

    tool: str
    """The tool's name, as the domain lists it."""
    args: dict[str, Any] = Field(default_factory=dict)
    """The call's arguments (name -> value)."""
    turn: int | None = None
    """The user turn after which a reference agent performs it (None: the first turn)."""
    compare_args: list[str] | None = Field(default=None, exclude_if=_unset)
    """As a gold action: only these arguments are compared with an agent's call (tau2's
    `compare_args`); None compares every argument."""
    ask_first: list[str] = Field(default_factory=list, exclude_if=_empty_list)
    """Arguments whose values the user gives only when asked: a reference agent asks for
    them at the end of the turn before this action's turn instead of guessing them."""


class ForbiddenAction(BaseModel):
    """A call that fails the session: the tool, and optionally arguments it must match."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # see the end

    tool: str
    """The tool whose calls are forbidden."""
    args: dict[str, Any] | None = None
    """When given, only calls whose arguments include these key/value pairs are forbidden."""
    turn: int | None = Field(default=None, exclude_if=_unset)
    """When given, only calls made during this user turn (0-based) are forbidden (e.g. a
    call that guesses a value the user has not given yet)."""


def _empty(value: Any) -> bool:
    # As `_unset`, for the added collections: left out while empty.
    return not value


class ExpectedCall(BaseModel):
    """A successful call the session must contain, with acceptable values per argument (as
    in BFCL).

    A call matches when it names `tool` and, for each argument listed, its value is one of
    the acceptable values; an argument whose list holds `null` may also be left out.
    Arguments not listed may take any value.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)  # see the end

    tool: str
    """The tool the session must call."""
    args: dict[str, list[Any]] = Field(default_factory=dict)
    """Argument name -> acceptable values (`null` in the list: the argument may be omitted)."""


class Criteria(BaseModel):
    """How a session of a scenario is judged."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # see the end

    gold_actions: list[Action] = Field(default_factory=list)
    """The reference's calls. On a domain with a DB they are replayed on a fresh DB and the
    session's final state must equal the result (`compare_state`); when together they leave
    the DB as it started (only reads), or one of them fails, they are required calls too (the
    state cannot tell). On a domain without one (an MCP server, an
    HTTP service, fixtures) each is a required call: the session must make it with these
    arguments (`compare_args`) and it must succeed; in order with `ordered`."""
    communicate: list[str] = Field(default_factory=list)
    """Facts that must appear (case-insensitive, commas ignored) in some agent reply."""
    forbidden: list[ForbiddenAction] = Field(default_factory=list)
    """Any matching call fails the session."""
    compare_state: bool = True
    """Compare the final DB state with the gold replay (domains with a DB). Off (e.g. for
    read-only info tasks), a user suite judges its gold actions as required calls instead."""
    evaluator: str | None = Field(default=None, exclude_if=_unset)
    """The name of the judge whose own reward judges this scenario's sessions, set by the
    benchmark package that built the scenario and registered by it in the
    `sessionproof.judges` entry-point group (e.g. tau2's tasks name `tau2`); None: the
    criteria above, judged generically. A name no installed package registers is an error
    when the scenario is judged, never a generic verdict."""
    call_rules: str | None = Field(default=None, exclude_if=_unset)
    """The name of a call-matching rule set (registered in `sessionproof.scoring` or the
    `sessionproof.call_rules` entry-point group; e.g. BFCL's acceptable-value rules, `bfcl`)
    that decides which agent calls equal the expected calls; None: gold actions compared
    argument by argument."""
    state: dict[str, Any] = Field(default_factory=dict, exclude_if=_empty)
    """Final-state assertions: a dotted path into the final DB (`orders.O1.status`, list
    items by index) -> the value it must have."""
    expected_calls: list[ExpectedCall] = Field(default_factory=list, exclude_if=_empty)
    """Calls the session must contain (each matched by some successful call, in any order)."""
    ordered: bool = Field(default=False, exclude_if=_empty)
    """Gold actions judged as required calls must be made in the order listed (other calls
    may come between them); False: in any order."""
    not_judged: str | None = Field(default=None, min_length=1, exclude_if=_unset)
    """Opt out of judging: the reason this scenario's sessions are not judged (e.g. a smoke
    test read by hand). They are stored as not judged with this reason, never as a pass or a
    failure. Without it a scenario with nothing its domain can check is refused at load."""
    per_turn: bool = Field(default=False, exclude_if=_empty)
    """Judge every scripted user turn on its own (`Outcome.turns`; needs `user.turns`), each
    gold action naming its turn (`Action.turn`): the scenario then has per-turn accuracy in
    both readings (own history, and from a gold prefix: `Scenario.start_turn`). On a user's
    suite a turn passes when its gold actions were made, successfully, in that turn and no
    forbidden call was; the end-of-session criteria (`state`, `expected_calls`) are judged
    with the session's last turn."""


class UserSpec(BaseModel):
    """The user side: fixed turns (scripted) or instructions for a simulated user."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # see the end

    turns: list[str] | None = None
    """Scripted user messages, sent one per turn."""
    instructions: str | None = None
    """What a simulated user wants, for an LLM playing the user."""
    persona: str | None = None
    """How the simulated user behaves."""
    tools: str | None = Field(default=None, min_length=1, exclude_if=_unset)
    """Dual control: the domain whose tools the user holds (its own state and schemas, apart
    from the agent's), e.g. a phone the agent guides the user through. None: the user's own
    tools come from the scenario's domain when it has a user side (tau2 telecom), else the
    user has none."""
    actions: list[Action] = Field(default_factory=list, exclude_if=_empty_list)
    """Calls a scripted user (or the stand-in user of a reference agent) makes on its own
    tools at the start of its turn `Action.turn` (None: the first), before it speaks. A
    simulated user decides its own calls; these are not shown to it."""

    @model_validator(mode="after")
    def _one_kind(self) -> UserSpec:
        if not self.turns and not self.instructions:
            raise ValueError("a user needs `turns` (scripted) or `instructions` (simulated)")
        if self.turns:
            late = [a.tool for a in self.actions if (a.turn or 0) >= len(self.turns)]
            if late:
                raise ValueError(
                    f"user action(s) {', '.join(late)} name a turn past the "
                    f"{len(self.turns)} scripted turn(s)"
                )
        return self

    @property
    def scripted(self) -> bool:
        """True when the user is a fixed list of turns."""
        return bool(self.turns)


class Scenario(BaseModel):
    """One task: domain, user side, evaluation criteria, tags."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # see the end

    id: str
    """Unique within the suite; sessions, reports and resume refer to it."""
    domain: str
    """The domain (tool source) the scenario runs in: a built-in or one of the project's."""
    description: str | None = None
    """What the scenario tests, for people."""
    tags: list[str] = Field(default_factory=list)
    """Labels for grouping results (breakdowns, filters)."""
    user: UserSpec
    """The user side: scripted turns or a simulated user's instructions."""
    initial_state: dict[str, Any] | None = Field(default=None, exclude_if=_unset)
    """The DB this scenario starts from, replacing its domain's default initial state
    (domains with a typed DB only)."""
    criteria: Criteria = Field(default_factory=Criteria)
    """How the scenario's sessions are judged."""
    start_turn: int | None = Field(default=None, ge=0, exclude_if=_unset)
    """Gold-prefix reading: the session starts at this user turn, after the engine has
    replayed the gold history of the turns before it (each turn's user message, its gold
    actions run on the domain, a closing reply); only this turn is the agent's and judged.
    None: the session starts at the first turn (the agent's own history)."""
    max_steps: int | None = Field(default=None, ge=1)
    """Overrides the run's step limit for this scenario (at least 1; None: the run's)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Format-specific extras (e.g. the original tau2 task), never read by the engine or by
    generic scoring: only the benchmark package that wrote a key reads it."""


# Each attribute docstring above is its field's description (in `sessionproof schema` and
# the docs), set before the schemas are built on first use: as `use_attribute_docstrings`
# would, for a fraction of its cost (see `_field_docs`).
describe_fields(Action, ForbiddenAction, ExpectedCall, Criteria, UserSpec, Scenario)
