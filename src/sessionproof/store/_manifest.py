"""Run manifests and the light rows the store hands to summaries."""

from __future__ import annotations

import platform
import secrets
from datetime import UTC, datetime
from importlib import metadata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .._secrets import register_spec_credentials
from ..records import TerminationReason
from ._owner import RunOwner, owner_gone
from ._scrub import Scrubber

RunCommand = Literal["run", "score", "rerun", "import", "serve"]
"""What made a run: `sessionproof run` (or the API's `run_suite`), a `score` of a transcript
file, a `rerun` of one, an `import` of a trace file, or a `serve` of one scenario's tools
to an outside agent."""

RunStatus = Literal["running", "finished", "interrupted", "failed"]
"""Where a run stands; `running` after a crash means it can be resumed; `failed`, that writing
it broke off (a `score` whose store write failed), so it is not left looking live. A run
stored as `running` whose process is gone from this host reads as `interrupted` (`_owner`)."""

_VERSIONED_PACKAGES = ("sessionproof", "pydantic", "duckdb", "openai", "anthropic", "xllamacpp")


def new_run_id(now: datetime | None = None) -> str:
    """A fresh run id, `rYYYYMMDD-HHMMSS-xxxxxx` (UTC time + 24 random bits).

    Ids sort by creation time, so the newest run is the last one in sorted order.
    """
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    return f"r{stamp}-{secrets.token_hex(3)}"


def utc_now_iso() -> str:
    """The current time as an ISO 8601 string in UTC, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def package_versions() -> dict[str, str]:
    """Versions of python and of the installed packages that shape a run's results."""
    versions = {"python": platform.python_version()}
    for name in _VERSIONED_PACKAGES:
        found = installed_version(name)
        if found is not None:
            versions[name] = found
    return versions


def installed_version(name: str) -> str | None:
    """`importlib.metadata.version(name)`, or None when `name` is not installed.

    The same distribution is found (the first on sys.path), but only the header lines of
    its metadata are read up to `Version:`: `version()` parses the whole file with the email
    parser, long descriptions included (~3 ms a package, most of a `score`'s manifest).
    """
    for dist in metadata.distributions(name=name):
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
        for line in text.splitlines():
            if not line:  # the headers end at the first blank line
                break
            if line.startswith("Version:"):
                return line.removeprefix("Version:").strip()
        return dist.version  # no header line found: the parser's answer
    return None


class RunManifest(BaseModel):
    """Everything needed to know what a run was and to reproduce it. Never holds a secret:
    the suite, model specs, arms, scenario ids, argv and options are scrubbed (by shape and
    by value, dict keys included) as the manifest is built."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(default_factory=new_run_id, min_length=1)
    created_at: str = Field(default_factory=utc_now_iso)
    """ISO 8601, normalised to UTC so that ids and times sort the same way."""
    command: RunCommand = "run"
    suite: str = ""
    """Suite name (or the path of a user's suite file)."""
    suite_hash: str = ""
    """Content hash of the suite's scenarios, so a changed suite file is noticed on resume."""
    model: str = ""
    """Agent model spec."""
    user_model: str | None = None
    """Model spec of the simulated user, if any."""
    seed: int = 0
    trials: int = Field(default=1, ge=1)
    arms: list[str] = Field(default_factory=list)
    """Condition specs; empty means the single baseline arm."""
    max_steps: int | None = None
    limit: int | None = None
    """How many scenarios of the suite were selected, if limited."""
    concurrency: int = Field(default=1, ge=1)
    options: dict[str, Any] = Field(default_factory=dict)
    """Any other option the command was given, JSON-serialisable."""
    versions: dict[str, str] = Field(default_factory=package_versions)
    scenario_ids: list[str] = Field(default_factory=list)
    status: RunStatus = "running"
    argv: list[str] = Field(default_factory=list)
    owner: RunOwner | None = Field(default=None, exclude_if=lambda v: v is None)
    """The process that writes (or last resumed) the run; None before it starts, and in
    runs stored before owners were recorded."""

    @field_validator("created_at")
    @classmethod
    def _utc_iso(cls, value: str) -> str:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError as exc:
            raise ValueError(f"created_at is not an ISO 8601 time: {value!r}") from exc
        if parsed.tzinfo is None:
            raise ValueError(f"created_at needs a timezone: {value!r}")
        return parsed.astimezone(UTC).isoformat(timespec="milliseconds")

    # Everything a command line or a spec could carry a credential into is scrubbed. The
    # run id is not: it is generated, and the store finds runs by it.
    @field_validator("suite")
    @classmethod
    def _scrub_suite(cls, value: str) -> str:
        return Scrubber().text(value)

    @field_validator("model", "user_model")
    @classmethod
    def _scrub_spec(cls, value: str | None) -> str | None:
        if value is None:
            return None
        # Registered first, so argv (validated later) loses them by value as well.
        register_spec_credentials(value)
        return Scrubber().text(value)

    @field_validator("arms", "scenario_ids")
    @classmethod
    def _scrub_names(cls, value: list[str]) -> list[str]:
        scrubber = Scrubber()
        return [scrubber.text(item) for item in value]

    @field_validator("argv")
    @classmethod
    def _scrub_argv(cls, value: list[str]) -> list[str]:
        return Scrubber().argv(value)

    @field_validator("options")
    @classmethod
    def _scrub_options(cls, value: dict[str, Any]) -> dict[str, Any]:
        scrubbed: dict[str, Any] = Scrubber().value(value)
        return scrubbed

    @property
    def shown_status(self) -> RunStatus:
        """`status`, except that a `running` run whose process is gone is `interrupted`."""
        if self.status == "running" and owner_gone(self.owner):
            return "interrupted"
        return self.status

    @property
    def sessions_expected(self) -> int:
        """How many sessions the run makes when complete: scenarios × trials × arms."""
        return len(self.scenario_ids) * self.trials * max(1, len(self.arms))


class RunListing(BaseModel):
    """One line of `list_runs`: a run's identity and how far it got."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    created_at: str
    command: str
    suite: str
    model: str
    arms: list[str]
    status: RunStatus
    sessions_done: int
    sessions_expected: int
    """scenarios × trials × max(1, arms)."""
    successes: int
    """Successful sessions (an infra-error session never counts as one)."""
    infra_errors: int
    """Sessions that ended as `infra_error`: reported apart, never an agent failure."""
    accuracy: float | None
    """successes ÷ judged sessions (done − infra errors − not judged); None when no session
    was judged, never 0."""
    not_judged: int = Field(default=0, exclude_if=lambda v: v == 0)
    """Sessions other than infra errors that have no verdict (stored `success` NULL); left
    out of the JSON when there are none, as listings had it before."""


class SessionRow(BaseModel):
    """One stored session without its events: what summaries and tables need."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    scenario_id: str
    trial: int
    arm: str
    model: str
    success: bool | None
    """None when the session has no verdict yet."""
    reward: float | None
    termination: TerminationReason
    n_turns: int
    """User turns reached (highest event turn + 1)."""
    n_steps: int
    """Agent decisions: tool calls run plus replies that carry no tool call."""
    n_tool_calls: int
    n_tool_errors: int
    """Tool results carrying an error class."""
    input_tokens: int
    output_tokens: int
    duration_s: float
    """ended_at − started_at."""
    not_judged: str | None = None
    """Why the session has no verdict (`no outcome`, or its outcome's `not_judged`)."""
    unevaluated: int = 0
    """Criteria that could not be evaluated (`passed` None)."""
    evaluated_success: bool | None = None
    """No evaluated criterion failed (None when not judged)."""

    @property
    def tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    @property
    def infra_error(self) -> bool:
        """True when the session ended for infrastructure reasons."""
        return self.termination is TerminationReason.infra_error
