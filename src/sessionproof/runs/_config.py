"""`RunConfig`: what a run is, typed and validated once, for the CLI and the Python API alike."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from ..agents import Agent
from ..conditions import parse_arm
from ..engine._internal import DEFAULT_AGENT_TIMEOUT_S, DEFAULT_MAX_STEPS
from ..engine._internal import PARTIES as VARY_PARTIES
from ..errors import ConfigError
from ..executors._internal import fork_available
from ..scoring._internal import PriceTable
from ..suites import Suite
from ._live import OtlpExport
from ._typed import TypedConfig

ToolMode = Literal["native", "prompted", "auto"]
"""How tools reach the model: its native tool API, a prompt, or native when supported."""

TOOL_MODES: tuple[ToolMode, ...] = ("native", "prompted", "auto")

Reading = Literal["own", "gold-prefix"]
"""How multi-turn sessions are read: each from its first turn on the agent's own history, or
each per-turn scenario split into one session per turn started from the gold prefix."""

LOCAL_CONCURRENCY = 1
"""Sessions at once for a local model: one embedded llama.cpp server serves one at a time."""
REMOTE_CONCURRENCY = 4
"""Requests in flight (and sessions at once) for any other agent."""
SESSIONS_PER_REQUEST = 4
"""Sessions in flight per request slot for provider models. A session spends part of its
time between model calls (tools, judging, queued), and equal sessions started in waves of
exactly `concurrency` leave the last wave's slots empty: 600 sessions of 9 calls each at 256
at once can reach at most 600 / (3 × 256) = 78% of ideal, however fast the harness."""

_SUITE_FILE_SUFFIXES = (".yaml", ".yml", ".json")

EXECUTORS = "local | local:PROCESSES | ray | ray:ADDRESS"
"""Where sessions run: this process's asyncio pool, or Ray tasks (a local loopback cluster,
or the cluster at ADDRESS)."""


def parse_executor(spec: str) -> tuple[str, str | None]:
    """(`local` or `ray`, then the worker process count or the Ray cluster address, or None)
    for an `--executor` spec.

    Raises `ConfigError` for anything but `local`, `local:N` (N >= 1), `ray` or
    `ray:ADDRESS`.
    """
    kind, sep, address = spec.strip().partition(":")
    if kind == "local" and not sep:
        return "local", None
    if kind == "local" and address.strip().isdigit() and int(address) >= 1:
        return "local", address.strip()
    if kind == "ray" and (not sep or address.strip()):
        return "ray", address.strip() or None
    raise ConfigError(f"--executor must be {EXECUTORS}, not {spec!r}")


def model_name(model: str | Agent) -> str:
    """The name a model goes by: its spec string, or an `Agent` object's `name`."""
    return model if isinstance(model, str) else model.name


def default_concurrency(model: str | Agent) -> int:
    """Sessions at once when none is asked for: 1 for a local model, else 4 (the one rule,
    used by `run`, `resume` and `rerun`, from the CLI and the API)."""
    return LOCAL_CONCURRENCY if model_name(model).startswith("local") else REMOTE_CONCURRENCY


def suite_reference(suite: str | Suite) -> str:
    """What a manifest records for a suite: a suite file or project directory as an absolute
    path (so the run resumes from any directory), a built-in suite by its name, a `Suite`
    object by its name."""
    if isinstance(suite, Suite):
        return suite.name
    path = Path(suite)
    if (path.suffix.lower() in _SUITE_FILE_SUFFIXES and path.is_file()) or path.is_dir():
        return str(path.resolve())
    return suite


def arm_names(
    arms: list[str],
    faults: str | None,
    drift: str | None,
    guard: bool | None,
    perturb: str | None = None,
    model_faults: str | None = None,
) -> list[str]:
    """The arms a run makes, by their normalised names: `arms` as given, or the one arm that
    `faults`/`drift`/`guard`/`perturb`/`model_faults` spell, or `baseline`. Raises
    `ConfigError` on a bad or repeated arm, or when both ways are used."""
    if arms and model_faults:
        raise ConfigError(
            "use either --arm or --model-faults, not both (as an arm: model_faults=SPEC)"
        )
    if arms and (faults or drift or guard is not None or perturb):
        raise ConfigError("use either --arm or --faults/--drift/--guard/--perturb, not both")
    if arms:
        names = [parse_arm(a).name for a in arms]  # normalised, and junk fails fast
        if len(set(names)) != len(names):
            raise ConfigError("the same --arm was given twice")
        return names
    parts = [f"faults={faults}"] if faults else []
    if drift:
        parts.append(f"drift={drift}")
    if perturb:
        parts.append(f"perturb={perturb}")
    if model_faults:
        parts.append(f"model_faults={model_faults}")
    if guard:
        parts.append("guard")
    return [parse_arm(" ".join(parts) or "baseline").name]


class RunConfig(TypedConfig):
    """One run: which suite, which agent, how many trials, under which arms, stored where.

    Built by `sessionproof run` from its flags and by `run_suite` from its arguments, so both
    run the same thing. Invalid values raise `ConfigError` with one clear line (never a
    pydantic traceback).
    """

    KIND: ClassVar[str] = "run"

    def __init__(self, **data: Any) -> None:
        """Validate; a bad value raises `ConfigError` naming the field."""
        super().__init__(**data)

    suite: str | Suite = "demo"
    """A built-in suite name, a scenario .yaml/.json file, or a `Suite` object."""
    model: str | Agent = "local"
    """A model spec (`local`, `oracle`, `openai:MODEL`, ...) or any `Agent` object."""
    trials: int = Field(default=1, ge=1)
    """Trials per scenario (pass^k needs k)."""
    limit: int | None = Field(default=None, ge=1)
    """Only the first N scenarios."""
    concurrency: int | None = Field(default=None, ge=1)
    """Model requests in flight to one provider (agent and simulated user together), and
    sessions at once for agents that send none through the run's gates (reference and
    Python agents, the embedded local model); None: `default_concurrency(model)`."""
    max_sessions: int | None = Field(default=None, ge=1)
    """Sessions at once; None: `SESSIONS_PER_REQUEST` × concurrency when the agent or the
    user talks to a provider (so sessions busy with tools or queued behind a full window
    keep every request slot used), else concurrency."""
    seed: int = 0
    """Seed for faults, drift and sampling."""
    max_steps: int = Field(default=DEFAULT_MAX_STEPS, ge=1)
    """Agent decisions per session (a scenario's own `max_steps` wins)."""
    user_model: str | Agent | None = None
    """Who plays simulated users: a spec, an `Agent`, or None for the agent itself when it is
    a model (reference agents state the scenario's instructions instead)."""
    tool_mode: ToolMode = "auto"
    """For model specs: native tool calls, prompted ones, or native when supported."""
    arms: list[str] = Field(default_factory=list)
    """Conditions to run, e.g. `["baseline", "faults=3% guard"]`; or use faults/drift/guard."""
    faults: str | None = None
    """Fault plan of the single arm, e.g. `3%` or `timeout:2%`."""
    drift: str | None = None
    """Schema drift `KIND[:P%][@TURN[@TOOL]]` of the single arm."""
    guard: bool | None = None
    """Wrap the single arm's tools in the guard."""
    perturb: str | None = None
    """Imperfect instructions of the single arm: `missing_arg`, `shifted_arg` or
    `coreference`, optionally `@TURN`."""
    model_faults: str | None = None
    """Faults at the model boundary of the single arm (the agent's own provider requests),
    e.g. `429x3:2%,5xx:2%,bad_args:1%` (see `faults.ModelFaultPlan`)."""
    agent_timeout: float = DEFAULT_AGENT_TIMEOUT_S
    """Seconds one agent decision may take; past it the session ends as a `timeout` agent
    error."""
    store: Path | None = None
    """DuckDB store file; None keeps the sessions in memory only (nothing to resume)."""
    reading: Reading = "own"
    """`gold-prefix`: every scenario with per-turn criteria runs once per turn, from the gold
    history of the turns before it (`suites.gold_prefix_suite`); `own`: as written."""
    executor: str = "local"
    """Where sessions run: `local` (an asyncio pool in this process), `local:N` (N forked
    worker processes, see `processes`), `ray` (Ray tasks on a local loopback cluster, or
    the one `RAY_ADDRESS` names) or `ray:ADDRESS`; ray needs `sessionproof[ray]`."""
    rpm: float | None = Field(default=None, gt=0)
    """Requests per minute allowed to the model's provider (agent and simulated user
    together); None: not limited beyond the adaptive concurrency."""
    tpm: float | None = Field(default=None, gt=0)
    """Tokens per minute allowed to the model's provider (estimated from request sizes)."""
    export: OtlpExport | None = None
    """Send each session's spans to this OTLP/HTTP collector the moment it ends (the live
    export of `sessionproof run --otlp-endpoint`); None: no live export."""
    vary: str | None = None
    """`agent`, `user` or `judge` (the `--judge` model's): only that party's seed changes
    from trial to trial, the others' (and the environment's) stay those of the scenario's
    first trial, so the trials of a scenario measure that party's share of the verdict
    variance (docs/noise.md); `all`: every seed follows the trial, the simulated user's and
    the judge's included (the split's reference);
    None: as any run (the simulated user gets no seed of the run's)."""
    judge: str | None = None
    """A model spec that judges natural-language assertions (`--judge`); its calls are
    recorded in each session as the judge's. None leaves such assertions not evaluated."""
    prices: PriceTable | None = None
    """What prices the run's cost (`--prices`, `--price`); None: the shipped table."""

    @field_validator("tool_mode", mode="before")
    @classmethod
    def _known_tool_mode(cls, value: object) -> object:
        if value not in TOOL_MODES:
            raise ConfigError(f"--tool-mode must be native, prompted or auto, not {value!r}")
        return value

    @field_validator("vary", mode="before")
    @classmethod
    def _known_party(cls, value: object) -> object:
        if value is not None and value not in VARY_PARTIES:
            raise ConfigError(f"--vary must be one of {', '.join(VARY_PARTIES)}, not {value!r}")
        return value

    @field_validator("reading", mode="before")
    @classmethod
    def _known_reading(cls, value: object) -> object:
        if value not in ("own", "gold-prefix"):
            raise ConfigError(f"--reading must be own or gold-prefix, not {value!r}")
        return value

    @field_validator("agent_timeout")
    @classmethod
    def _positive_timeout(cls, value: float) -> float:
        if not (math.isfinite(value) and value > 0):
            raise ConfigError(
                f"--agent-timeout must be a positive, finite number of seconds, not {value:g}"
            )
        return value

    @field_validator("executor")
    @classmethod
    def _known_executor(cls, value: str) -> str:
        parse_executor(value)
        return value.strip()

    @model_validator(mode="after")
    def _arms_parse(self) -> RunConfig:
        arm_names(  # fails fast
            self.arms, self.faults, self.drift, self.guard, self.perturb, self.model_faults
        )
        return self

    @model_validator(mode="after")
    def _limits_where_they_apply(self) -> RunConfig:
        # The rate-limit gates live in this process; Ray workers build their own agents, so
        # the limits would silently not apply there.
        local = parse_executor(self.executor)[0] == "local"
        if not local and (self.rpm is not None or self.tpm is not None):
            raise ConfigError(
                "--rpm/--tpm apply to the local executor only: Ray workers do not share the "
                "run's rate-limit gates yet (run without --executor ray, or without the limits)"
            )
        return self

    @property
    def arm_names(self) -> list[str]:
        """The arms this run makes, normalised (`["baseline"]` when none is named)."""
        return arm_names(
            self.arms, self.faults, self.drift, self.guard, self.perturb, self.model_faults
        )

    @property
    def workers(self) -> int:
        """The run's concurrency: `concurrency`, or the default for this model."""
        return self.concurrency or default_concurrency(self.model)

    def processes(self) -> int:
        """Worker processes of the local executor: N for `local:N` (where processes can be
        forked), else 1. Not more by default: on the 2-core machine this was measured on,
        two workers made a 600-session run at 256 in flight slower (15.2-16.0 s against
        12.5-13.3 s: the driver, the workers and a local model server then share two cores,
        and each worker repeats the per-process work)."""
        kind, count = parse_executor(self.executor)
        if kind != "local" or count is None or not fork_available():
            return 1
        return int(count)

    def sessions_at_once(self, gated: bool) -> int:
        """Sessions the local executor keeps in flight; `gated`: some agent of the run sends
        its requests through the run's provider gates (which then bound the requests)."""
        if self.max_sessions is not None:
            return self.max_sessions
        return self.workers * SESSIONS_PER_REQUEST if gated else self.workers
