"""Conditions (arms): faults, drift and the guard, parsed from a spec and built into hooks.

Arm grammar (the `--arm` flag; the arm is named by its spec string)::

    ARM := "baseline" | PART (" " PART)*
    PART := "faults=" FAULT_SPEC | "drift=" DRIFT_SPEC | "perturb=" KIND["@"TURN] | "guard"
          | "verify=" PATH
          | "model_faults=" MODEL_FAULT_SPEC
          | "user_faults=" FAULT_SPEC | "user_drift=" DRIFT_SPEC

`faults=` and `drift=` meet the agent's tools; `user_faults=` and `user_drift=` meet the
user's own tools (dual control: `UserSpec.tools`, or a domain with a user side such as tau2
telecom's phone), drawn apart from the agent's, their events marked `side="user"`.

`verify=PATH` wraps the tools in the guard's verification policies read from the YAML / JSON
file PATH (`sessionproof.guard.VerifyConfig`), outermost; it combines with `guard`.

e.g. `baseline`, `guard`, `faults=3%`, `faults=3% guard`, `drift=rename_param@2`,
`drift=rename_param:50%@1@book_reservation`,
`faults=rate_limited:5%,unavailable:5% guard`, `perturb=missing_arg`,
`perturb=coreference@2`, `model_faults=429x3:2%,5xx:2%,bad_args:1%` (faults at the model
boundary: the agent's own provider requests, see `faults.ModelFaultPlan`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from ..domains import DomainSpec, ToolContext, ToolSource, WrapperToolSource
from ..errors import ConfigError
from ..faults import DriftPlan, FaultPlan, ModelFaultPlan
from ..faults._internal import DriftHooks, FaultInjector, check_plan
from ..guard import Guard, GuardConfig, VerifyConfig, VirtualClock, guard_source, verify_source
from ..records import Scenario, ToolCall, ToolResult
from ..records._internal import ImplicitFaultKind
from ..users import User
from ._answering import AnsweringUser
from ._perturb import PerturbedScenario, PerturbPlan, perturb

SECONDS_PER_CALL = 5.0
"""Virtual time the harness lets pass before each tool call under the guard: an agent's
decision takes seconds, so an open circuit breaker cools down after a few calls instead of
never (virtual time otherwise moves only when the guard waits)."""


class Condition(BaseModel):
    """The arm a session runs under."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    """The spec string (how reports name the arm)."""
    faults: FaultPlan | None = None
    drift: DriftPlan | None = None
    guard: bool = False
    perturb: PerturbPlan | None = None
    """Imperfect instructions: the scenario's user side rewritten (see `_perturb`)."""
    verify: VerifyConfig | None = None
    """The guard's verification policies (`verify=PATH`), read when the arm is parsed."""
    verify_path: str | None = None
    """The file `verify=` named (also when it was left unread)."""
    model_faults: ModelFaultPlan | None = None
    """Faults at the model boundary: the agent's own provider requests (429, 5xx, ...)."""
    user_faults: FaultPlan | None = None
    """Faults on the user's own tools (`user_faults=`)."""
    user_drift: DriftPlan | None = None
    """Schema drift of the user's own tools (`user_drift=`)."""

    @property
    def baseline(self) -> bool:
        """True when nothing is changed: no faults (tool or model), no drift, no guard, no
        perturbation."""
        return (
            self.faults is None
            and self.drift is None
            and not self.guard
            and self.perturb is None
            and self.verify_path is None
            and self.model_faults is None
            and self.user_faults is None
            and self.user_drift is None
        )


def parse_arm(spec: str, *, read_files: bool = True) -> Condition:
    """Parse an arm spec string into a `Condition`; raises `ConfigError` on anything else.

    `read_files` False leaves the files an arm names unread (`verify=PATH`: `verify` stays
    None, `verify_path` says which): what reading a stored run's arms needs, where the file
    may be gone or the working directory another."""
    name = " ".join(spec.split())
    if not name:
        raise ConfigError("empty arm; write e.g. baseline, guard, 'faults=3% guard'")
    if name == "baseline":
        return Condition(name=name)
    faults: FaultPlan | None = None
    drift: DriftPlan | None = None
    perturbation: PerturbPlan | None = None
    verify: VerifyConfig | None = None
    verify_path: str | None = None
    model_faults: ModelFaultPlan | None = None
    user_faults: FaultPlan | None = None
    user_drift: DriftPlan | None = None
    guard = False
    for part in name.split(" "):
        key, eq, value = part.partition("=")
        if part == "guard":
            if guard:
                raise ConfigError(f"arm {spec!r}: 'guard' is given twice")
            guard = True
        elif key == "faults" and eq:
            if faults is not None:
                raise ConfigError(f"arm {spec!r}: faults= is given twice")
            faults = FaultPlan.parse(value)
        elif key == "drift" and eq:
            if drift is not None:
                raise ConfigError(f"arm {spec!r}: drift= is given twice")
            drift = DriftPlan.parse(value)
        elif key == "perturb" and eq:
            if perturbation is not None:
                raise ConfigError(f"arm {spec!r}: perturb= is given twice")
            perturbation = PerturbPlan.parse(value)
        elif key == "verify" and eq:
            if verify_path is not None:
                raise ConfigError(f"arm {spec!r}: verify= is given twice")
            verify_path = value
            verify = VerifyConfig.load(value) if read_files else None
        elif key == "model_faults" and eq:
            if model_faults is not None:
                raise ConfigError(f"arm {spec!r}: model_faults= is given twice")
            model_faults = ModelFaultPlan.parse(value)
        elif key == "user_faults" and eq:
            if user_faults is not None:
                raise ConfigError(f"arm {spec!r}: user_faults= is given twice")
            user_faults = FaultPlan.parse(value)
        elif key == "user_drift" and eq:
            if user_drift is not None:
                raise ConfigError(f"arm {spec!r}: user_drift= is given twice")
            user_drift = DriftPlan.parse(value)
        elif part == "baseline":
            raise ConfigError(f"arm {spec!r}: 'baseline' stands alone (it means no changes)")
        else:
            raise ConfigError(
                f"arm {spec!r}: cannot read {part!r}; parts are faults=SPEC, "
                "drift=KIND[:P%][@TURN[@TOOL]], perturb=KIND[@TURN], verify=PATH, "
                "model_faults=SPEC, user_faults=SPEC, user_drift=SPEC and guard, separated "
                "by spaces"
            )
    return Condition(
        name=name,
        faults=faults,
        drift=drift,
        guard=guard,
        perturb=perturbation,
        verify=verify,
        verify_path=verify_path,
        model_faults=model_faults,
        user_faults=user_faults,
        user_drift=user_drift,
    )


def needs_tools(condition: Condition) -> bool:
    """True when `condition` must see the domains' tools before a run starts: implicit
    faults that change writes need tools the source marks as writes (see `check_sources`)."""
    return condition.faults is not None and bool(condition.faults.implicit)


def check_sources(condition: Condition, domains: Iterable[DomainSpec]) -> None:
    """Raise `ConfigError` (one line) when the condition's implicit faults cannot apply to a
    domain's tools: a write kind on a listing that marks no tool as a write, with no @TOOL
    naming the write (an MCP server, an OpenAI tools list), or stale_read on fixtures (their
    answers never change). Call it at load, per arm."""
    plan = condition.faults
    if plan is None or not plan.implicit:
        return
    from ..domains.sources import FixtureDomainSpec

    for spec in domains:
        if ImplicitFaultKind.stale_read in plan.implicit and isinstance(spec, FixtureDomainSpec):
            raise ConfigError(
                f"arm {condition.name!r}: stale_read on domain {spec.name!r}: fixtures answer "
                "the same whatever was written, so no read can be stale there"
            )
        try:
            check_plan(set(plan.implicit), plan.tool, spec.tools(), spec.name)
        except ConfigError as exc:
            raise ConfigError(f"arm {condition.name!r}: {exc}") from None


class _Ticking(WrapperToolSource):
    """Lets `SECONDS_PER_CALL` of virtual time pass before each call it forwards."""

    def __init__(self, inner: ToolSource, clock: VirtualClock) -> None:
        super().__init__(inner)
        self.clock = clock

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """`inner`'s result, a decision's worth of virtual time later."""
        self.clock.advance(SECONDS_PER_CALL)
        return await self.inner.call_tool(call, ctx)


class ConditionHooks:
    """The engine's `SessionHooks` for one condition in one session.

    From the agent inwards: guard → drift → faults → domain, each a wrapper tool source.
    The guard sees the drifted schemas the agent sees; faults are drawn on the domain's own
    tool names, so a plan's `@tool` and its draws are the same with or without drift.
    """

    def __init__(
        self,
        condition: Condition,
        seed: int,
        *,
        prefer_tools: Sequence[str] = (),
        guard_config: GuardConfig | None = None,
        domain: DomainSpec | None = None,
    ) -> None:
        self.condition = condition
        self.seed = seed
        self.domain = domain
        self._perturbed: PerturbedScenario | None = None
        self.drift = DriftHooks(condition.drift, seed, prefer_tools) if condition.drift else None
        self.faults = FaultInjector(condition.faults, seed) if condition.faults else None
        self.guard_config = guard_config
        self.model_faults = condition.model_faults
        """The plan the agent's own provider requests meet (read by the engine)."""
        self.user_faults = (
            FaultInjector(condition.user_faults, seed) if condition.user_faults else None
        )
        self.user_drift = DriftHooks(condition.user_drift, seed) if condition.user_drift else None

    def wrap(self, source: ToolSource) -> ToolSource:
        """Faults innermost, then drift, then the guard, then its verification outermost."""
        if self.faults is not None:
            source = self.faults.wrap(source)
        if self.drift is not None:
            source = self.drift.wrap(source)
        if self.condition.guard:
            clock = VirtualClock()
            guard = Guard(self.guard_config, clock=clock, rng=random.Random(self.seed))
            source = _Ticking(guard_source(guard, source), clock)
        if self.condition.verify is not None:
            source = verify_source(source, self.condition.verify)
        return source

    def wrap_user_tools(self, source: ToolSource) -> ToolSource:
        """The user's own tools under the arm's user-side faults (inner) and drift."""
        if self.user_faults is not None:
            source = self.user_faults.wrap(source)
        if self.user_drift is not None:
            source = self.user_drift.wrap(source)
        return source

    def rewrite(self, scenario: Scenario) -> Scenario:
        """The scenario the session runs: perturbed when the condition says so."""
        if self.condition.perturb is None:
            return scenario
        self._perturbed = perturb(scenario, self.condition.perturb, self.domain)
        return self._perturbed.scenario

    def wrap_user(self, user: User) -> User:
        """The user of a perturbed scenario gives withheld values when asked; else `user`."""
        found = self._perturbed
        if found is None or not found.applied:
            return user
        return AnsweringUser(found.scenario.user.turns or [], found.answers)


def hooks_for(
    condition: Condition,
    seed: int,
    *,
    prefer_tools: Sequence[str] = (),
    guard_config: GuardConfig | None = None,
    domain: DomainSpec | None = None,
) -> ConditionHooks:
    """The hooks that make `condition` for one session seeded with `seed`.

    Pass the session seed (equal across arms and models, so conditions stay paired).
    `prefer_tools` (e.g. the tools of the scenario's gold actions) steers which tool a drift
    changes, so the drift meets the task; `guard_config` overrides the guard's defaults.
    The guard runs on a virtual clock: backoff and Retry-After cost no wall time and the
    waits recorded in the trace are reproducible. `domain` (the scenario's) lets a
    perturbation check that its rewritten gold calls still replay.
    """
    return ConditionHooks(
        condition, seed, prefer_tools=prefer_tools, guard_config=guard_config, domain=domain
    )
