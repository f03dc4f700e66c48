"""The tau domains' shared machinery: toolkit base, live domain, domain spec.

What differs from the generic `Domain`:
- tool calls run the way tau2-bench runs them: the raw arguments go straight to the method
  (tau2 validates nothing up front, so a float where an int is declared is stored as a float
  and a missing argument is Python's own TypeError text), and every failure reads
  "Error: <message>";
- successful results are rendered as tau2 renders them (`json.dumps` of `model_dump()`, keys in
  field order, ASCII-escaped), so replies are byte-comparable with recorded trajectories;
- each session works on a copy-on-write fork of a DB loaded once per process, and the state
  hash reads only the records the session wrote (see `_cow`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from ....domains import Domain, DomainSpec, Toolkit, tool
from ....errors import ToolError
from ....records import ToolSpec
from ._calc import calculate
from ._cow import DBT, CowTracker, SharedBase

ModelT = TypeVar("ModelT", bound=BaseModel)


def to_tau2_json(value: Any) -> str:
    """A tool's return value as tau2's environment renders it for the agent."""
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), default=str)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, bool | int | float):
        # tau2 turns bare numbers into strings before dumping; kept for exactness.
        return str(value)
    return value


def lenient(kind: type[ModelT], value: ModelT | Mapping[str, Any]) -> ModelT:
    """Build a nested argument model the way tau2 does: unknown keys are dropped, not refused.

    tau2's argument models ignore extra keys; ours forbid them in stored records, so the
    extras are filtered here and a missing or mistyped field still fails with pydantic's text.
    """
    if isinstance(value, kind):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"{kind.__name__} expects an object, got {type(value).__name__}")
    fields = kind.model_fields
    return kind.model_validate({k: v for k, v in value.items() if k in fields})


def fail(message: str, error_class: str = "validation_error") -> ToolError:
    """A ToolError carrying the agent-visible message (the boundary adds "Error: ")."""
    return ToolError(message, error_class)


class TauToolkit(Toolkit[DBT]):
    """Toolkit over a copy-on-write fork: read through `self.db`, write through `_own`/`_put`.

    `MESSAGES` maps a failure's name to its text, so a variant (tau-bench) changes the wording
    without copying the logic. A tool raises `self._error(name, **values)`.
    """

    TOOLKIT_NAME: ClassVar[str] = ""
    """The class name tau2 shows in Python's own argument errors ("RetailTools.f() missing
    1 required positional argument: 'x'"); the defining class's name when empty."""
    MESSAGES: ClassVar[Mapping[str, str]] = {}
    NOT_FOUND: ClassVar[frozenset[str]] = frozenset()
    """Message names classified `not_found` (the rest are `validation_error`)."""

    def __init__(self, db: DBT, cow: CowTracker[DBT]) -> None:
        super().__init__(db)
        self._cow = cow

    def _own(self, table: str, key: str, kind: type[ModelT]) -> ModelT:
        return self._cow.own(table, key, kind)

    def _put(self, table: str, key: str, record: BaseModel) -> None:
        self._cow.put(table, key, record)

    def _error(self, name: str, **values: Any) -> ToolError:
        text = self.MESSAGES[name].format(**values)
        return fail(text, "not_found" if name in self.NOT_FOUND else "validation_error")


class CalculatorTool(TauToolkit[DBT]):
    """tau2's `calculate` tool, shared by the retail and airline toolkits."""

    @tool()
    def calculate(self, expression: str) -> str:
        """Evaluate an arithmetic expression and return the result rounded to two decimals.

        Args:
            expression: The expression, e.g. '12.5 * 3 - 4'. Digits, + - * /, parentheses,
                dots and spaces only.
        """
        try:
            return calculate(expression)
        except ValueError as exc:
            if str(exc) == "Invalid characters in expression":
                raise self._error("bad_characters") from None
            raise


@tool()
def transfer_to_human_agents(self: Any, summary: str) -> str:
    """Hand the conversation to a human agent. Only when the user asks for one, or when
    the request cannot be solved with these tools under the policy.

    Args:
        summary: A short summary of the user's issue for the human agent.
    """
    return "Transfer successful"


def _classify(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return "not_found"
    if isinstance(exc, TypeError | ValidationError | ValueError):
        return "validation_error"
    return "unknown"


class TauDomain(Domain[DBT]):
    """A live tau domain for one session (see the module docstring for what differs)."""

    def __init__(
        self,
        name: str,
        db: DBT,
        toolkit: TauToolkit[DBT],
        policy: str,
        cow: CowTracker[DBT],
        write_tools: frozenset[str],
    ) -> None:
        super().__init__(name, db, toolkit, policy)
        self.cow = cow
        self.write_tools = write_tools
        """Tools that may change the DB; offline replay runs only these."""

    def apply(self, name: str, args: Mapping[str, Any]) -> Any:
        """Run one tool and return its raw value; every failure is a `ToolError`."""
        toolkit = self.toolkit
        assert isinstance(toolkit, TauToolkit)
        if name not in type(toolkit)._tools:
            raise fail(f"Tool '{name}' not found.")
        method: Callable[..., Any] = getattr(toolkit, type(toolkit)._tools[name].method_name)
        try:
            return method(**args)
        except ToolError:
            raise
        except TypeError as exc:
            text = str(exc)
            qualname = getattr(method, "__qualname__", "")
            shown = type(toolkit).TOOLKIT_NAME
            if shown and text.startswith(qualname + "("):
                # An argument-binding error names the defining class; tau2 names its own.
                text = f"{shown}.{name}" + text[len(qualname) :]
            raise fail(text, "validation_error") from None
        except Exception as exc:  # tau2 answers any exception as "Error: <str(exc)>"
            raise fail(str(exc), _classify(exc)) from None

    def call(self, name: str, args: dict[str, Any]) -> str:
        """Run one tool; the result rendered as tau2 renders it."""
        return to_tau2_json(self.apply(name, args))

    def state_hash(self) -> str:
        """Hash of the current state, computed from the records this session wrote."""
        return self.cow.state_hash()

    def snapshot_state(self) -> Any:
        """A token `restore_state` puts the DB back to (a fault that undoes a write uses
        it; cheaper than copying the whole DB)."""
        return self.cow.snapshot()

    def restore_state(self, token: Any) -> None:
        """Undo every write made since `snapshot_state` gave `token`."""
        self.cow.restore(token)


class TauDomainSpec(DomainSpec, Generic[DBT]):
    """Makes sessions of one tau domain over a DB loaded once per process."""

    def __init__(
        self,
        name: str,
        toolkit: type[TauToolkit[DBT]],
        policy: str,
        load_base: Callable[[], SharedBase[DBT]],
        transfer_tools: Sequence[str] = ("transfer_to_human_agents",),
    ) -> None:
        self.name = name
        self.toolkit = toolkit
        self.policy = policy
        self._load_base = load_base
        self.transfer_tools = frozenset(transfer_tools)
        self.write_tools = frozenset(toolkit.tool_names(write=True))

    @property
    def base(self) -> SharedBase[DBT]:
        """The shared base DB (loaded on first use)."""
        return self._load_base()

    def preload(self) -> None:
        """Load the shared base DB and its digest now (forked worker processes inherit
        both; the digest, which every verdict compares against, took a fifth of each
        worker's CPU in a 600-session run when each computed its own)."""
        self._load_base().digest()

    def create(self) -> TauDomain[DBT]:
        """A fresh session: a fork of the shared DB and a toolkit bound to it."""
        base = self.base
        db = base.fork()
        cow = CowTracker(base, db)
        domain = TauDomain(self.name, db, self.toolkit(db, cow), self.policy, cow, self.write_tools)
        domain.transfer_tools = self.transfer_tools
        return domain

    def tools(self) -> list[ToolSpec]:
        """The tools, without loading the DB."""
        return self.toolkit.specs()

    def tool_names(self) -> frozenset[str]:
        """The tools' names, without loading the DB or building their schemas."""
        return frozenset(self.toolkit.tool_names())
