"""Implicit fault kinds in the fault grammar and the taxonomy: parsing, seeded draws mixed
with explicit classes, and one semantics entry per kind."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from sessionproof.errors import ConfigError
from sessionproof.faults import FaultPlan
from sessionproof.records import ErrorClass
from sessionproof.records._internal import ImplicitFaultKind
from sessionproof.taxonomy import IMPLICIT_TAXONOMY
from sessionproof.taxonomy._internal import CallNature

K = ImplicitFaultKind


def test_implicit_kinds_mix_with_classes_and_take_permanent() -> None:
    plan = FaultPlan.parse("silent_noop:40%, stale_read:permanent:10%,timeout:2%@get_order")
    assert plan.implicit == {K.silent_noop: 0.4, K.stale_read: 0.1}
    assert plan.permanent == frozenset({K.stale_read})
    assert plan.rates == {ErrorClass.timeout: 0.02}
    assert plan.tool == "get_order"
    assert math.isclose(plan.total_rate, 0.52)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("stale_read:perm:10%", "stale_read:permanent:RATE"),
        ("timeout:permanent:2%", "implicit kinds only"),
        ("silent_noop:40%,silent_noop:5%", "twice"),
        ("silent_noop:70%,timeout:40%", "more than 100%"),
        ("silnt_noop:40%", "did you mean 'silent_noop'"),
        ("wrong_entity:x%", "not a rate"),
    ],
)
def test_bad_implicit_specs_raise_config_error(spec: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        FaultPlan.parse(spec)
    assert words in str(err.value)


def test_adding_an_implicit_kind_moves_no_explicit_fault() -> None:
    alone = FaultPlan.parse("timeout:10%,rate_limited:5%")
    mixed = FaultPlan.parse("timeout:10%,rate_limited:5%,silent_noop:30%,error_in_body:5%")
    for k in range(2000):
        key = (4, f"s{k % 9}", k % 3, "t", k)
        drawn = mixed.draw_fault(*key)
        assert alone.draw(*key) == (drawn if isinstance(drawn, ErrorClass) else None)
        assert mixed.draw(*key) == alone.draw(*key)


def test_implicit_rates_are_near_the_spec_and_seeded() -> None:
    plan = FaultPlan.parse("silent_noop:30%,corrupted_value:10%")
    n = 20_000
    counts = Counter(plan.draw_fault(2, f"s{k % 40}", k % 5, "t", k) for k in range(n))
    for kind, p in plan.implicit.items():
        assert abs(counts[kind] - n * p) / math.sqrt(n * p * (1 - p)) < 4.5, kind
    again = [plan.draw_fault(2, "s", 0, "t", k) for k in range(300)]
    assert again == [plan.draw_fault(2, "s", 0, "t", k) for k in range(300)]
    assert again != [plan.draw_fault(3, "s", 0, "t", k) for k in range(300)]


def test_the_taxonomy_describes_every_implicit_kind() -> None:
    assert set(IMPLICIT_TAXONOMY) == set(K)
    nature = {k: s.applies_to for k, s in IMPLICIT_TAXONOMY.items()}
    assert nature[K.silent_noop] is nature[K.duplicate_write] is CallNature.write
    assert nature[K.error_in_body] is CallNature.any
    reads = {K.stale_read, K.wrong_entity, K.partial_result, K.corrupted_value}
    assert {k for k, n in nature.items() if n is CallNature.read} == reads
    for sem in IMPLICIT_TAXONOMY.values():
        assert sem.changes and sem.needs and sem.transient and sem.permanent and sem.cannot_apply
    assert not IMPLICIT_TAXONOMY[K.error_in_body].forwarded
