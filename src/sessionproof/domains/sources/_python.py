"""A domain from a team's own Python toolkit class (`python:pkg.mod:Class`).

The class is a `Toolkit` subclass over a pydantic DB model, typed and docstringed like the
built-ins (`class ShopTools(Toolkit[ShopDB])`). The DB model comes from the generic
parameter (or a `db_model` class attribute); the initial state from the domain reference or a
scenario's `initial_state`; the policy from the reference or the class docstring.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from ..._plugins import resolve
from ...errors import ConfigError
from ...records import ToolSpec
from .. import Domain, DomainSpec, Toolkit


@contextmanager
def _importable_from(directory: Path | None) -> Iterator[None]:
    # A project's own modules sit next to its suite files; they are importable while the
    # reference resolves, and stay importable (the class keeps its module).
    if directory is not None and str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
    yield


def import_object(target: str, base_dir: Path | None = None) -> Any:
    """The object `pkg.mod:Attr` names; raises `ConfigError` with the reason."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"python reference {target!r}: expected `pkg.module:Name`")
    failed: BaseException
    with _importable_from(base_dir):
        try:
            return resolve(target, what="python reference")
        except ConfigError as exc:
            failed = exc.__cause__ if isinstance(exc.__cause__, ModuleNotFoundError) else exc
            if failed is exc and module_name in sys.modules:  # imported: the name is missing
                raise ConfigError(
                    f"python reference {target!r}: {module_name} has no {attr}"
                ) from None
        except Exception as exc:  # a syntax error or a failing import in the team's code
            failed = exc
    raise ConfigError(
        f"python reference {target!r}: cannot import {module_name}: "
        f"{type(failed).__name__}: {failed}"
    ) from None


def db_model_of(toolkit: type[Toolkit[Any]]) -> type[BaseModel]:
    """The DB model a toolkit class works on: its `db_model` attribute or `Toolkit[DB]`."""
    declared = getattr(toolkit, "db_model", None)
    if isinstance(declared, type) and issubclass(declared, BaseModel):
        return declared
    for klass in toolkit.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            origin = get_origin(base)
            if isinstance(origin, type) and issubclass(origin, Toolkit):
                args = get_args(base)
                if args and isinstance(args[0], type) and issubclass(args[0], BaseModel):
                    return args[0]
    raise ConfigError(
        f"toolkit {toolkit.__name__}: declare its DB as `class {toolkit.__name__}"
        "(Toolkit[MyDB])` or a `db_model` class attribute"
    )


class ToolkitDomainSpec(DomainSpec):
    """Fresh domains of one toolkit class over its DB, from an initial state."""

    stateful = True
    """The DB can be hashed and read: gold replay and state assertions work."""

    def __init__(
        self,
        name: str,
        toolkit: type[Toolkit[Any]],
        state: dict[str, Any] | None = None,
        policy: str | None = None,
        transfer_tools: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.toolkit = toolkit
        self.db_model = db_model_of(toolkit)
        self.state = dict(state or {})
        self.policy = policy or inspect.getdoc(toolkit) or ""
        self.transfer_tools = transfer_tools
        self.make_db(self.state)  # a state that does not fit the model fails at load

    def make_db(self, state: dict[str, Any]) -> BaseModel:
        """A DB from JSON-like `state`; raises `ConfigError` naming the first bad field."""
        try:
            return self.db_model.model_validate(state)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "(state)"
            raise ConfigError(
                f"domain {self.name!r}: state does not fit {self.db_model.__name__}: "
                f"{field}: {err['msg']}"
            ) from None

    def with_state(self, state: dict[str, Any]) -> ToolkitDomainSpec:
        """The same domain starting from another initial state (a scenario's own)."""
        return ToolkitDomainSpec(self.name, self.toolkit, state, self.policy, self.transfer_tools)

    def create(self) -> Domain[Any]:
        """A new domain in its initial state."""
        db = self.make_db(self.state)
        return Domain(self.name, db, self.toolkit(db), self.policy, self.transfer_tools)

    def tools(self) -> list[ToolSpec]:
        """The toolkit's specs (no DB needed)."""
        return self.toolkit.specs()


def python_domain(
    name: str,
    target: str,
    base_dir: Path | None = None,
    state: dict[str, Any] | None = None,
    policy: str | None = None,
    transfer_tools: frozenset[str] = frozenset(),
) -> DomainSpec:
    """A domain from `pkg.mod:Name`: a `Toolkit` subclass, a `DomainSpec` (class or
    instance), or a zero-argument factory returning one."""
    obj = import_object(target, base_dir)
    if isinstance(obj, type) and issubclass(obj, Toolkit):
        return ToolkitDomainSpec(name, obj, state, policy, transfer_tools)
    if isinstance(obj, DomainSpec):
        spec = obj
    elif callable(obj):
        try:
            spec = obj()
        except Exception as exc:
            raise ConfigError(f"python reference {target!r}: {type(exc).__name__}: {exc}") from None
    else:
        spec = None
    if not isinstance(spec, DomainSpec):
        raise ConfigError(
            f"python reference {target!r}: expected a Toolkit subclass, a DomainSpec, or a "
            "function returning a DomainSpec"
        )
    return spec
