"""A record owned for writing (`private_copy`) is `model_copy(deep=True)` of it, faster."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from sessionproof.domains import get_domain
from sessionproof.suites.tau2._tau._cow import private_copy


def _alike(a: Any, b: Any, where: str) -> None:
    """Same types, values, field order and fields set, all the way down."""
    assert type(a) is type(b), where
    if isinstance(a, BaseModel):
        assert list(a.__dict__) == list(b.__dict__), where
        assert a.model_fields_set == b.model_fields_set, where
        assert a.__pydantic_extra__ == b.__pydantic_extra__, where
        assert a.__pydantic_private__ == b.__pydantic_private__, where
        for name, value in a.__dict__.items():
            _alike(value, b.__dict__[name], f"{where}.{name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for key, value in a.items():
            _alike(value, b[key], f"{where}[{key!r}]")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _alike(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def _containers(value: Any) -> list[Any]:
    """Every model, list and dict inside `value` (itself included)."""
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseModel):
            out.append(item)
            stack.extend(item.__dict__.values())
        elif isinstance(item, dict):
            out.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            out.append(item)
            stack.extend(item)
    return out


@pytest.mark.parametrize("domain", ["retail", "airline"])
def test_every_base_record_copies_like_a_deep_model_copy(domain: str) -> None:
    base = get_domain(domain).base  # type: ignore[attr-defined]
    checked = 0
    for table in base.tables:
        for key, record in getattr(base.db, table).items():
            fast, reference = private_copy(record), record.model_copy(deep=True)
            _alike(fast, reference, f"{table}/{key}")
            assert fast == record
            # Nothing mutable is shared with the original: writing the copy leaves it alone.
            originals = {id(c) for c in _containers(record)}
            assert not originals & {id(c) for c in _containers(fast)}, f"{table}/{key}"
            checked += 1
    assert checked > 100


def test_anything_else_is_deep_copied() -> None:
    value = {"t": (1, [2]), "s": {3}}
    copied = private_copy(value)
    assert copied == value and copied["t"][1] is not value["t"][1]
    assert copied["s"] is not value["s"]


@pytest.mark.parametrize("domain", ["retail", "airline"])
def test_a_fork_is_what_model_construct_built(domain: str) -> None:
    base = get_domain(domain).base  # type: ignore[attr-defined]
    fork = base.fork()
    kind = type(base.db)
    fields = {name: getattr(base.db, name) for name in kind.model_fields}
    reference = kind.model_construct(
        **{k: dict(v) if k in base.tables else v for k, v in fields.items()}
    )
    assert type(fork) is kind and fork == reference
    assert fork.model_fields_set == reference.model_fields_set
    assert list(fork.__dict__) == list(reference.__dict__)
    for table in base.tables:  # new table dicts over the same records
        assert getattr(fork, table) is not getattr(base.db, table)
        assert all(
            a is b
            for a, b in zip(
                getattr(fork, table).values(), getattr(base.db, table).values(), strict=True
            )
        )
