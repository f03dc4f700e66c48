"""Schema drift: the agent-visible schema really changes and the task stays solvable."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from sessionproof.errors import ConfigError
from sessionproof.faults import DriftKind, DriftPlan
from sessionproof.faults._internal import DriftHooks, ToolDrift, choose_drift
from sessionproof.records import ErrorClass, EventKind, ToolCall, ToolSpec

from .world import Events, context, make_domain

CALL_KINDS = {
    DriftKind.rename_param,
    DriftKind.add_required_param,
    DriftKind.change_param_type,
    DriftKind.rename_tool,
    DriftKind.enum_change,
}
"""Kinds after which the old call form must fail."""

LEND = {"book_id": "B1", "member": "M7", "kind": "standard"}


def test_parse() -> None:
    assert DriftPlan.parse("rename_param") == DriftPlan(
        spec="rename_param", kind=DriftKind.rename_param, at_turn=1
    )
    plan = DriftPlan.parse(" enum_change@3 ")
    assert (plan.kind, plan.at_turn) == (DriftKind.enum_change, 3)
    assert not plan.active(1) and plan.active(2)  # the engine's turns count from 0


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "KIND or KIND@TURN"),
        ("rename_parm", "unknown drift kind"),
        ("rename_param@", "KIND or KIND@TURN"),
        ("rename_param@x", "KIND or KIND@TURN"),
        ("rename_param@0", "turns count from 1"),
        ("rename_param@-1", "KIND or KIND@TURN"),
        ("Rename_Param", "KIND or KIND@TURN"),
    ],
)
def test_bad_specs(spec: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        DriftPlan.parse(spec)
    assert words in str(err.value)


def _to_drifted(drift: ToolDrift, args: dict[str, Any]) -> dict[str, Any]:
    """Rewrite a call into the drifted form by reading the drifted schema (as an agent would)."""
    before = drift.original.parameters["properties"]
    after = drift.drifted.parameters["properties"]
    out = dict(args)
    if drift.kind is DriftKind.rename_param:
        [old] = set(before) - set(after)
        [new] = set(after) - set(before)
        out[new] = out.pop(old)
    elif drift.kind is DriftKind.add_required_param:
        [new] = set(after) - set(before)
        out[new] = after[new].get("const", "the member asked for it")
    elif drift.kind is DriftKind.change_param_type:
        [name] = [n for n in before if before[n].get("type") != after[n].get("type")]
        out[name] = {"value": out[name]} if after[name]["type"] == "object" else str(out[name])
    elif drift.kind is DriftKind.enum_change:
        [name] = [n for n in before if before[n].get("enum") != after[n].get("enum")]
        out[name] = after[name]["enum"][before[name]["enum"].index(out[name])]
    return out


def _spec(tools: list[ToolSpec], name: str) -> ToolSpec:
    return next(t for t in tools if t.name == name)


@pytest.mark.parametrize("kind", list(DriftKind))
async def test_each_kind_changes_the_schema_and_stays_solvable(kind: DriftKind) -> None:
    domain, events = make_domain(), Events()
    hooks = DriftHooks(DriftPlan.parse(kind.value), seed=3, prefer_tools=["lend_book"])
    original = domain.tools()
    visible = hooks.tools(original, 0, events)
    drift = hooks.drift
    assert drift is not None and drift.original.name == "lend_book"
    drifted = _spec(visible, drift.drifted.name)
    assert drifted != drift.original  # the agent really sees something else
    assert drifted.model_dump() != _spec(original, "lend_book").model_dump()
    [applied] = events.of(EventKind.drift_applied)
    assert applied["kind"] == kind.value and applied["tool"] == "lend_book"
    assert applied["applied"] is True
    hooks.tools(original, 1, events)
    assert len(events.of(EventKind.drift_applied)) == 1  # announced once

    boundary = hooks.wrap(domain).call_tool
    ctx = context(events)
    if kind in CALL_KINDS:
        old = await boundary(ToolCall(id="old", name="lend_book", arguments=LEND), ctx)
        assert old.error_class is ErrorClass.validation_error, old.output
        assert domain.db.books["B1"].status == "available"
    args = _to_drifted(drift, LEND)
    # The new form is valid against the schema the agent sees...
    jsonschema.validate(args, drifted.parameters)
    result = await boundary(ToolCall(id="new", name=drifted.name, arguments=args), ctx)
    # ...and does the job on the domain.
    assert result.ok, result.output
    assert result.name == drifted.name
    book = domain.db.books["B1"]
    assert (book.status, book.borrower, book.loan_kind) == ("loaned", "M7", "standard")
    if drifted.output_schema is not None:
        jsonschema.validate(json.loads(result.output), drifted.output_schema)


@pytest.mark.parametrize("kind", [DriftKind.remove_response_field, DriftKind.rename_response_field])
async def test_response_kinds_change_what_comes_back(kind: DriftKind) -> None:
    domain, events = make_domain(), Events()
    hooks = DriftHooks(DriftPlan.parse(kind.value), seed=5, prefer_tools=["get_book"])
    hooks.tools(domain.tools(), 0, events)
    drift = hooks.drift
    assert drift is not None and drift.original.output_schema is not None
    assert drift.drifted.output_schema is not None
    gone = set(drift.original.output_schema["properties"]) - set(
        drift.drifted.output_schema["properties"]
    )
    assert len(gone) == 1
    result = await hooks.wrap(domain).call_tool(
        ToolCall(id="c", name="get_book", arguments={"book_id": "B1"}), context(events)
    )
    plain = await domain.call_tool(
        ToolCall(id="p", name="get_book", arguments={"book_id": "B1"}), context(events)
    )
    before, after = json.loads(plain.output), json.loads(result.output)
    assert gone <= set(before) and not gone & set(after)
    jsonschema.validate(after, drift.drifted.output_schema)
    if kind is DriftKind.rename_response_field:
        [new] = set(after) - set(before)
        assert after[new] == before[gone.pop()]
    else:
        # The field chosen to disappear is optional: the record still validates without it.
        assert gone.isdisjoint(drift.original.output_schema.get("required", []))


async def test_drift_switches_at_the_given_turn() -> None:
    domain, events = make_domain(), Events()
    hooks = DriftHooks(DriftPlan.parse("rename_tool@2"), seed=1, prefer_tools=["get_book"])
    original = domain.tools()
    assert hooks.tools(original, 0, events) == original
    assert events.of(EventKind.drift_applied) == []
    boundary = hooks.wrap(domain).call_tool
    call = ToolCall(id="a", name="get_book", arguments={"book_id": "B1"})
    assert (await boundary(call, context(events, turn=0))).ok
    later = hooks.tools(original, 1, events)
    assert hooks.drift is not None
    new_name = hooks.drift.drifted.name
    assert new_name != "get_book" and new_name in {t.name for t in later}
    assert events.of(EventKind.drift_applied)[0]["turn"] == 1
    stale = await boundary(call.model_copy(update={"id": "b"}), context(events, turn=1))
    assert stale.error_class is ErrorClass.validation_error
    assert new_name in stale.output  # like a real API, it lists what exists now
    fresh = ToolCall(id="c", name=new_name, arguments={"book_id": "B1"})
    assert (await boundary(fresh, context(events, turn=1))).ok


def test_choice_is_seeded_and_spreads_over_tools() -> None:
    tools = make_domain().tools()
    first = choose_drift(DriftKind.description_change, tools, 42)
    again = choose_drift(DriftKind.description_change, tools, 42)
    assert first is not None and again is not None
    assert first.original.name == again.original.name
    chosen = {
        d.original.name
        for seed in range(60)
        if (d := choose_drift(DriftKind.rename_tool, tools, seed)) is not None
    }
    assert len(chosen) >= 2
    assert "transfer_to_human_agents" not in chosen  # the engine spots transfers by name


def test_tools_with_parameters_are_preferred() -> None:
    tools = make_domain().tools()
    bare = [
        t.model_copy(update={"parameters": {"type": "object", "properties": {}}}) for t in tools
    ]
    mixed = [bare[0], *tools[1:]]
    for seed in range(30):
        drift = choose_drift(DriftKind.rename_tool, mixed, seed)
        assert drift is not None and drift.original.name != bare[0].name


async def test_kind_that_applies_nowhere_leaves_tools_alone() -> None:
    domain, events = make_domain(), Events()
    no_enums = [t for t in domain.tools() if t.name != "lend_book"]
    hooks = DriftHooks(DriftPlan.parse("enum_change"), seed=1)
    assert hooks.tools(no_enums, 0, events) == no_enums
    [applied] = events.of(EventKind.drift_applied)
    assert applied["applied"] is False and applied["tool"] is None


async def test_broken_call_under_drift_is_classified() -> None:
    domain, events = make_domain(), Events()
    hooks = DriftHooks(DriftPlan.parse("rename_param"), seed=3, prefer_tools=["get_book"])
    hooks.tools(domain.tools(), 0, events)
    boundary = hooks.wrap(domain).call_tool
    unparsable = ToolCall(
        id="x", name="get_book", arguments=None, raw_arguments="{oops", parse_error="bad JSON"
    )
    result = await boundary(unparsable, context(events))
    assert result.error_class is ErrorClass.validation_error
    wrong_type = await boundary(
        ToolCall(id="y", name="get_book", arguments={"book_ref": 12}), context(events)
    )
    assert wrong_type.error_class is ErrorClass.validation_error
    assert "book_ref" in wrong_type.output
