"""The fast path for records: a pydantic instance's private state, written directly.

`instance(cls, fields, fields_set)` returns the model instance validation would have built
from values that are already what validating them gives (see `_trusted`). It has two
implementations, chosen once, at import:

- the fast path (`_write`): `object.__new__(cls)` (no `__init__`, so no validation), then
  the four attributes a pydantic v2 model keeps its state in, set with `object.__setattr__`
  (pydantic's own `__setattr__` would validate and refuse the private names):
  `__dict__` (the field values, in declaration order), `__pydantic_fields_set__`,
  `__pydantic_extra__` (None unless `extra="allow"`) and `__pydantic_private__` (None for a
  class without private attributes). These are pydantic internals, not its public API:
  the names are `BaseModel.__slots__`, and nothing promises they stay.
- the public path (`_construct`): `cls.model_construct(fields_set, **fields)`, pydantic's
  documented way to build an instance without validation. It costs about three times as
  much per record (it re-walks the class's fields and defaults for every instance).

Checked against pydantic 2.14.4 (pydantic-core 2.50.5), the version installed when this was
written; the project requires pydantic >= 2.12. How a change is detected, at import: the
fast path is used only when `BaseModel.__slots__` names exactly the four attributes above
and a probe model built by `_write` is one validation builds (equal, same `__dict__` with
its field order, same fields set, same extra and private state, same JSON dump). Anything
else — a renamed slot, a new piece of per-instance state, a different order — selects the
public path, and so does the environment variable `SESSIONPROOF_NO_FASTPATH=1` (which also
turns off the agents' fast HTTP path). `_trusted` then validates whatever it would have
trusted (its templates read `ACTIVE`), so the fallback is the public API end to end. A test
forces the public path on every run and compares the records and the store rows it gives
with the fast path's (tests/records/test_fastpath.py).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from .._nofastpath import fastpath_disabled

M = TypeVar("M", bound=BaseModel)

_STATE = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
"""The per-instance state the fast path writes: pydantic's `BaseModel.__slots__`."""
_set = object.__setattr__
_new = object.__new__


def _write(cls: type[M], fields: dict[str, Any], fields_set: set[str]) -> M:
    """The fast path: the instance's private state, set directly."""
    obj = _new(cls)
    _set(obj, "__dict__", fields)
    _set(obj, "__pydantic_fields_set__", fields_set)
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def _construct(cls: type[M], fields: dict[str, Any], fields_set: set[str]) -> M:
    """The public path: pydantic's `model_construct`."""
    return cls.model_construct(fields_set, **fields)


class _Probe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: str
    b: list[int] = Field(default_factory=list)
    c: int | None = None


def layout_holds(write: Any = _write) -> bool:
    """True when pydantic keeps an instance's state where `write` puts it: the slots are
    the expected ones and a probe built by `write` is the one validation builds."""
    if tuple(sorted(getattr(BaseModel, "__slots__", ()))) != tuple(sorted(_STATE)):
        return False
    try:
        built = write(_Probe, {"a": "x", "b": [], "c": 2}, {"a", "c"})
        checked = _Probe(a="x", c=2)
        return bool(
            built == checked
            and built.__dict__ == checked.__dict__
            and list(built.__dict__) == list(checked.__dict__)
            and built.model_fields_set == checked.model_fields_set
            and built.__pydantic_extra__ == checked.__pydantic_extra__
            and built.__pydantic_private__ == checked.__pydantic_private__
            and built.model_dump_json() == checked.model_dump_json()
        )
    except (AttributeError, TypeError, ValueError):  # state missing where it was written
        return False


ACTIVE = not fastpath_disabled() and layout_holds()
"""True when the fast path is in use (decided at import; tests may set it)."""


def instance(cls: type[M], fields: dict[str, Any], fields_set: set[str]) -> M:
    """An instance of `cls` whose state is `fields` (every field, in declaration order, as
    validation would leave it) and `fields_set`, set the way pydantic sets it: directly on
    the fast path, through `model_construct` on the public one. For a class without private
    attributes or extra fields."""
    if ACTIVE:  # `_write`'s body, inlined: one call fewer per record
        obj = _new(cls)
        _set(obj, "__dict__", fields)
        _set(obj, "__pydantic_fields_set__", fields_set)
        _set(obj, "__pydantic_extra__", None)
        _set(obj, "__pydantic_private__", None)
        return obj
    return cls.model_construct(fields_set, **fields)
