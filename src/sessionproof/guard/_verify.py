"""A guard that verifies: opt-in policies around state-changing calls and every output.

- **read-back** (`read_back`, per write tool): after a write reports success, a configured
  read confirms it committed — its `expect` expression holds over the read-back (`output`) and
  the write's arguments (`args`), or, without `expect`, the read-back differs from the same
  read made just before the write. On a mismatch the agent is told that the write did not
  take effect, and the write is re-sent (once, then read back again) only when the policy
  declares it `idempotent`.
- **preconditions** (per write tool): a read made before the write; when its `require`
  expression does not hold, the write is not sent and the agent is told why.
- **invariants** (per tool): cross-field checks of an answer beyond its JSON Schema, each an
  expression (`_verify_expr`) or, from Python, a callable `(output, args) -> bool`; an answer
  that breaks one is not handed on: the agent is told which check failed.
- **idempotency** (per write tool): the argument carrying its idempotency key, or `"*"` (the
  whole arguments); a second write with the same key in a session is not applied again: the
  earlier result is handed back.

A read's arguments come from the write's: `arguments` maps each read argument to the write
argument it takes its value from; empty, the read gets every write argument of the same name
that its schema lists (or, without a schema, every write argument named `id`, `*_id` or `*Id`).
Every policy that acts emits a `GuardDecision`. The config is YAML / JSON (`VerifyConfig.load`)
or built in Python.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError
from ._verify_expr import Check

Invariant = str | Callable[[Any, Mapping[str, Any]], bool]
"""An output check: an expression, or (from Python) a callable of (output, args)."""


class ReadBack(BaseModel):
    """How one write tool is confirmed after it reports success."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    read: str
    """The read tool."""
    arguments: dict[str, str] = Field(default_factory=dict)
    """Read argument → the write argument it takes its value from (empty: derived)."""
    expect: str | None = None
    """An expression over `output` (the read-back) and `args` (the write's) that holds when
    the write committed; None: the read-back must differ from the read before the write."""
    idempotent: bool = False
    """Re-send the write once when the read-back shows it did not take effect."""


class Precondition(BaseModel):
    """A read made before one write tool, and what must hold for the write to be sent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    read: str
    arguments: dict[str, str] = Field(default_factory=dict)
    require: str
    """An expression over `output` (the read) and `args` (the write's)."""


class VerifyConfig(BaseModel):
    """Which verification policies apply to which tools (every part is opt-in)."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    read_back: dict[str, ReadBack] = Field(default_factory=dict)
    preconditions: dict[str, Precondition] = Field(default_factory=dict)
    invariants: dict[str, list[Invariant]] = Field(default_factory=dict)
    idempotency: dict[str, str] = Field(default_factory=dict)
    """Write tool → the argument holding its idempotency key, or `"*"`: the arguments."""

    def model_post_init(self, context: Any, /) -> None:
        """Compile every expression now, so a bad one is said at load, not mid-run."""
        self.compiled()

    def compiled(self) -> Compiled:
        """The expressions compiled (`ConfigError` for one that is not allowed)."""
        return Compiled(self)

    @classmethod
    def load(cls, path: str | Path) -> VerifyConfig:
        """A config from a YAML or JSON file; `ConfigError` (one line) when it is not one."""
        import yaml  # only when a file is read: a report that never reads one skips it

        where = Path(path)
        try:
            raw = yaml.safe_load(where.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
            raise ConfigError(f"verify config {where}: {str(exc).splitlines()[0]}") from exc
        if not isinstance(raw, dict):
            raise ConfigError(f"verify config {where}: not a mapping of policies")
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            at = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"verify config {where}: {at}: {first['msg']}") from exc


class Compiled:
    """A config's expressions compiled once."""

    def __init__(self, config: VerifyConfig) -> None:
        self.expect = {tool: Check(rb.expect) for tool, rb in config.read_back.items() if rb.expect}
        self.require = {tool: Check(p.require) for tool, p in config.preconditions.items()}
        self.invariants: dict[str, list[tuple[str, Callable[[Any, Mapping[str, Any]], bool]]]] = {
            tool: [(c, Check(c)) if isinstance(c, str) else (_name(c), c) for c in checks]
            for tool, checks in config.invariants.items()
        }


def _name(fn: Callable[..., Any]) -> str:
    return str(getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "check"))


def read_arguments(
    mapping: Mapping[str, str], write_args: Mapping[str, Any], read_params: list[str] | None
) -> dict[str, Any]:
    """The read's arguments derived from the write's (see the module docstring)."""
    if mapping:
        return {r: write_args[w] for r, w in mapping.items() if w in write_args}
    if read_params is not None:
        return {k: v for k, v in write_args.items() if k in read_params}
    return {k: v for k, v in write_args.items() if _names_entity(k)}


def _names_entity(name: str) -> bool:
    """`id`, `*_id` or camel-case `*Id`: an argument naming the entity a write changes."""
    low = name.lower()
    return low == "id" or low.endswith("_id") or (len(name) > 2 and name.endswith("Id"))


def as_data(text: str) -> Any:
    """A tool's answer parsed from JSON when it is JSON, else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def duplicate_key(config: VerifyConfig, tool: str, args: Mapping[str, Any]) -> str | None:
    """The idempotency key of a write under `config` (None: the tool is not protected, or
    the call lacks its key argument)."""
    key_arg = config.idempotency.get(tool)
    if key_arg is None:
        return None
    if key_arg == "*":
        return json.dumps(args, sort_keys=True, default=str)
    value = args.get(key_arg)
    return None if value is None else json.dumps(value, sort_keys=True, default=str)


def broken_invariant(
    compiled: Compiled, tool: str, output: Any, args: Mapping[str, Any]
) -> str | None:
    """The first of the tool's invariants the answer breaks (its text), or None."""
    for text, check in compiled.invariants.get(tool, []):
        try:
            held = bool(check(output, args))
        except Exception:  # a user's callable failing on this answer: the check did not hold
            held = False
        if not held:
            return text
    return None
