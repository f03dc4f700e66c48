"""Records built from values that are already what validating them would give.

Validating costs 3-5 µs per record on a shared 2-core machine: most of what importing a
thousand tau2 sessions (three records per event) cost, for values an importer has just
checked or built itself. `trusted` builds the same instance without validating again: equal
field by field, with the same `model_fields_set` and field order, as `cls(**values)`.

The caller's side of the bargain: each value is exactly what validation returns for its
field (a `str` for a `str` field, not a subclass; an instance of the field's model; a fresh
list or dict for a list or dict field, since validation copies those; a float for a float
field). Callers check that with `type(x) is T` and build through validation otherwise, so
bad input still gets pydantic's error. Only classes without validators, private attributes
or post-init hooks qualify (checked once per class). The instances themselves come from
`_fastpath.instance`, the one place that writes pydantic's private instance state; when
its import-time check finds pydantic's layout changed (or `SESSIONPROOF_NO_FASTPATH=1`),
`trusted` validates as usual.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel

from . import _fastpath
from ._fastpath import instance

M = TypeVar("M", bound=BaseModel)

_REQUIRED = object()
"""Placeholder in a template for a field without a default (the caller must give it)."""
_IMMUTABLE = (type(None), str, int, float, bool, tuple, frozenset, Enum)
"""Defaults shared as they are; pydantic copies any other default for each instance."""


class _Template:
    """A class's fields in order, with their defaults, for building instances quickly."""

    def __init__(self, cls: type[BaseModel]) -> None:
        self.values: dict[str, Any] = {}
        self.factories: list[tuple[str, Any]] = []
        shared = True
        for name, info in cls.model_fields.items():
            if info.default_factory is not None:
                self.values[name] = _REQUIRED
                self.factories.append((name, info.default_factory))
            else:
                self.values[name] = _REQUIRED if info.is_required() else info.default
                shared &= info.is_required() or isinstance(info.default, _IMMUTABLE)
        decorators = cls.__pydantic_decorators__
        self.usable = (
            _fastpath.ACTIVE
            and shared
            and not cls.__private_attributes__
            and cls.__pydantic_post_init__ is None
            and not decorators.field_validators
            and not decorators.model_validators
            and not decorators.validators
            and not decorators.root_validators
            and cls.model_config.get("extra") != "allow"
        )


_templates: dict[type[BaseModel], _Template] = {}
ENABLED = _fastpath.ACTIVE
"""False makes `trusted` validate like `cls(**values)` (the tests compare both ways); False
from the start when the fast path is off (`_fastpath`): the public path validates."""


def _build(cls: type[M], template: _Template, values: dict[str, Any]) -> M:
    fields = template.values.copy()  # every field, in declaration order
    for name, factory in template.factories:
        if name not in values:
            fields[name] = factory()
    fields.update(values)  # update keeps each key where the template put it
    return instance(cls, fields, set(values))


def usable(cls: type[BaseModel]) -> bool:
    """True when `trusted(cls, ...)` builds without validating (`instance` may be used for
    `cls` then, by a caller that fills every field in order itself)."""
    template = _templates.get(cls)
    if template is None:
        template = _templates[cls] = _Template(cls)
    return template.usable and ENABLED


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """`cls(**values)` without validation, for values already of their fields' exact types
    (see the module docstring); `values` names every required field."""
    template = _templates.get(cls)
    if template is None:
        template = _templates[cls] = _Template(cls)
    if not (template.usable and ENABLED):
        return cls(**values)
    return _build(cls, template, values)
