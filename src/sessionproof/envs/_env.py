"""`SessionEnv`: any suite as a Gymnasium environment, one agent decision per step."""

from __future__ import annotations

import math
import weakref
from collections import Counter
from typing import Any, SupportsFloat

from ..agents import Agent, AgentRequest, make_agent
from ..conditions import parse_arm
from ..engine import SessionHooks, run_session
from ..engine._internal import (
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_STEPS,
    NoHooks,
    RunPlan,
    plan_session,
)
from ..errors import ConfigError, SessionproofError
from ..executors._internal import hooks_factory, load
from ..records import Scenario, Session, TerminationReason
from ..scoring._internal import GoldReplays, not_judged_reason
from ..suites import Suite
from ..suites._internal import AgentJudge, make_judge
from ._actions import observation_of, parse_action
from ._channel import Episode, LoopThread
from ._gym import ResetNeeded, gymnasium
from ._shaping import Shaping
from ._spaces import ActionSpace, ObservationSpace

RUN_ID = "gym"
"""The run id of the environment's sessions (fixed, so equal seeds give equal episodes)."""


def _arm(
    arm: str | None, faults: str | None, drift: str | None, guard: bool, perturb: str | None
) -> str:
    """The normalised arm the environment plays: `arm`, or the one the condition arguments
    spell (as `run` names it), or `baseline`."""
    if arm is not None and (faults or drift or guard or perturb):
        raise ConfigError("use either arm= or faults=/drift=/guard=/perturb=, not both")
    parts = [f"faults={faults}"] if faults else []
    if drift:
        parts.append(f"drift={drift}")
    if perturb:
        parts.append(f"perturb={perturb}")
    if guard:
        parts.append("guard")
    condition = parse_arm(arm if arm is not None else " ".join(parts) or "baseline")
    if condition.model_faults is not None:
        raise ConfigError(
            f"arm {condition.name!r}: model faults need a provider model; the environment's "
            "agent is its caller, which sends no provider request to fault"
        )
    return condition.name


def _no_hooks(arm: str, seed: int, scenario: Scenario) -> SessionHooks:
    return NoHooks()


class SessionEnv(gymnasium.Env[str, str]):
    """A suite's sessions as episodes: `reset` starts one (a scenario drawn with the
    environment's generator), `step` takes one agent decision and returns what the agent
    sees next. The engine runs the session exactly as `run` does (faults, drift, guard,
    users, judge), so a decision sequence gets the verdict it gets in `run`.

    Actions and observations are JSON text (docs/gym.md; `info["request"]` holds the whole
    `AgentRequest`, the scenario included for reference agents). The episode's last reward
    is its verdict, 1.0 (pass) or 0.0 (fail); a session that could not be judged gets NaN,
    never 0.0, and `info["judged"]` False with the reason in `info["not_judged"]`. With
    `shaped_reward`, each step also gets the change in on-path progress (`_shaping`),
    taken back at the end, so an episode's return is still its verdict.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  (Gymnasium's own shape)

    def __init__(
        self,
        suite: str | Suite = "demo",
        *,
        arm: str | None = None,
        faults: str | None = None,
        drift: str | None = None,
        guard: bool = False,
        perturb: str | None = None,
        seed: int = 0,
        user_model: str | Agent | None = None,
        judge: str | None = None,
        limit: int | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_errors: int = DEFAULT_MAX_ERRORS,
        agent_timeout: float | None = None,
        shaped_reward: bool = False,
    ) -> None:
        """`suite`: a name, scenario file or `Suite`; `arm` (or `faults`, `drift`, `guard`,
        `perturb`) and `seed` as in `run` (the seed of faults and drift, not the draw of
        scenarios: that is `reset`'s); `user_model` plays simulated users (None: scripted
        turns, or the instructions as one message); `judge`: a model spec that judges
        natural-language assertions, as `run --judge` (None: they are not evaluated);
        `agent_timeout`: seconds between a request and the decision sent with `step` (None:
        no limit). Raises `ConfigError` in one line for an unknown suite, a bad arm, user
        model or judge."""
        super().__init__()
        loaded = load(suite, limit)
        if not loaded.scenarios:
            raise ConfigError(f"suite {loaded.name!r} has no scenario to play")
        # A copy of its own: the judge is set on it, never on a `Suite` the caller holds.
        self.suite = loaded.limited(len(loaded.scenarios))
        self._judge = None if judge is None else make_judge(judge)
        self.suite.nl_judge = self._judge
        self.arm = _arm(arm, faults, drift, guard, perturb)
        self.run_seed = seed
        """The run seed: which faults and drift each session meets (as `run --seed`)."""
        self.shaped_reward = shaped_reward
        self.action_space = ActionSpace()
        self.observation_space = ObservationSpace()
        self._hooks = hooks_factory([self.arm], self.suite) or _no_hooks
        self._plan = RunPlan(
            run_id=RUN_ID,
            arms=[self.arm],
            seed=seed,
            max_steps=max_steps,
            max_errors=max_errors,
            agent_timeout=agent_timeout,
        )
        self._played: Counter[str] = Counter()
        self._loop = LoopThread()
        # An environment dropped without `close` still stops its loop's thread.
        weakref.finalize(self, self._loop.close)
        self._user: Agent | None = None
        if isinstance(user_model, str):
            try:
                self._user = make_agent(user_model, tool_mode="native", seed=seed)
            except BaseException:
                self._loop.close()
                raise
        else:
            self._user = user_model
        self._owns_user = isinstance(user_model, str)
        self._episode: Episode | None = None
        self._request: AgentRequest | None = None
        self._shaping: Shaping | None = None
        self._replays = GoldReplays()
        self._scenario: Scenario | None = None
        self._trial = 0
        self.session: Session | None = None
        """The last finished session, with its events and outcome (None until one ends)."""

    # -- episodes ------------------------------------------------------------------------

    def _pick(self, options: dict[str, Any] | None) -> tuple[Scenario, int]:
        options = dict(options or {})
        unknown = sorted(set(options) - {"scenario", "trial"})
        if unknown:
            raise ConfigError(f"reset options are 'scenario' and 'trial', not {unknown[0]!r}")
        wanted = options.get("scenario")
        if wanted is None:
            index = int(self.np_random.integers(len(self.suite.scenarios)))
            scenario = self.suite.scenarios[index]
        else:
            found = [s for s in self.suite.scenarios if s.id == wanted]
            if not found:
                raise ConfigError(f"suite {self.suite.name!r} has no scenario {wanted!r}")
            scenario = found[0]
        trial = options.get("trial", self._played[scenario.id])
        if type(trial) is not int or trial < 0:
            raise ConfigError(f"reset option 'trial' must be an integer >= 0, not {trial!r}")
        return scenario, trial

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start a session; its first observation and info.

        The scenario is drawn with the environment's generator (`seed` reseeds it), or given
        as `options={"scenario": ID}`. Its trial is how many times this scenario was played
        since the last seeded reset (or `options["trial"]`): trial k of a scenario is the
        session `run` plays as trial k, with the same faults and drift. A session still
        running is stopped first (and not judged)."""
        super().reset(seed=seed)
        if seed is not None:
            self._played.clear()
        scenario, trial = self._pick(options)  # bad options leave a running session be
        self._stop()
        self._played[scenario.id] += 1
        plan, user = plan_session(self._plan, scenario, trial, 0, self._hooks, self._user)
        # Gold replays are shared by the episodes of the suite's own scenario objects (a
        # perturbed arm rewrites each session's scenario: a cache of those would only grow).
        replays = self._replays if plan.scenario is scenario else None
        self._shaping = Shaping(self.suite, plan, replays) if self.shaped_reward else None
        if self._shaping is not None:
            plan.hooks = self._shaping.hooks
        suite = self.suite
        self._scenario, self._trial = plan.scenario, trial
        self.session = None
        self._episode = Episode(self._loop, lambda agent: run_session(plan, suite, agent, user))
        first = self._next(self._episode)
        if isinstance(first, Session):  # kept in `session`, for the caller to read
            self._episode, self.session = None, first
            raise SessionproofError(
                f"scenario {scenario.id!r} ended before the agent's first decision "
                f"({first.termination}: {first.termination_detail or 'no detail'})"
            )
        self._request = first
        return observation_of(first), self._info(first)

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        """Send one decision: JSON text of an action (docs/gym.md), or an `AgentResponse`
        or assistant `Message`. Returns (observation, reward, terminated, truncated, info).
        Raises `InvalidAction` (a ValueError; nothing changes) for an action of the wrong
        shape, `ResetNeeded` when no session is running."""
        episode, request = self._episode, self._request
        if episode is None or request is None:
            raise ResetNeeded("no session is running: call reset() first (the last one ended)")
        prefix = f"call-{request.turn}-{request.step}"
        episode.answer(parse_action(action, prefix))
        item = self._next(episode)
        if isinstance(item, AgentRequest):
            self._request = item
            reward = 0.0 if self._shaping is None else self._shaping.progress()
            return observation_of(item), reward, False, False, self._info(item)
        return self._ended(item, request)

    def _next(self, episode: Episode) -> AgentRequest | Session:
        """The episode's next item; when the session raised instead, it is over: raised
        here, and the next `step` needs a `reset`."""
        try:
            return episode.next()
        except BaseException:
            self._episode = self._request = None
            raise

    def _ended(
        self, session: Session, last: AgentRequest
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        self._episode = self._request = None
        self.session = session
        verdict = session.verdict
        reward = math.nan if verdict is None else float(verdict)
        if self._shaping is not None:
            reward += self._shaping.finish()
        messages = [m for m in last.messages[:1] if m.role == "system"] + session.messages()
        final = AgentRequest(
            messages=messages,
            tools=last.tools,
            turn=session.events[-1].turn if session.events else last.turn,
            step=session.events[-1].step if session.events else last.step,
        )
        truncated = session.termination is TerminationReason.max_steps
        info = self._info(None)
        outcome = session.outcome
        info.update(
            verdict=verdict,
            judged=verdict is not None,
            not_judged=not_judged_reason(session),
            termination=str(session.termination),
            termination_detail=session.termination_detail,
            outcome=None if outcome is None else outcome.model_dump(mode="json"),
            unevaluated=[] if outcome is None else outcome.unevaluated,
        )
        if self._shaping is not None:
            info["credit"] = self._shaping.credit()
        return observation_of(final), reward, not truncated, truncated, info

    def _info(self, request: AgentRequest | None) -> dict[str, Any]:
        scenario = self._scenario
        info: dict[str, Any] = {
            "scenario_id": None if scenario is None else scenario.id,
            "trial": self._trial,
            "arm": self.arm,
        }
        if request is not None:
            info["request"] = request
        return info

    def _stop(self) -> None:
        if self._episode is not None:
            self._episode.stop()
        self._episode = self._request = None

    def close(self) -> None:
        """Stop a running session, close the user model made from a spec, stop the loop."""
        self._stop()
        if self._loop.loop.is_closed():
            return
        user = self._user
        if self._owns_user and user is not None:
            self._loop.run(user.aclose())
        if isinstance(self._judge, AgentJudge):
            self._loop.run(self._judge.agent.aclose())
        self._loop.close()
        super().close()
