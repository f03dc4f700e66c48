"""The audit's checks that run no session: can a scenario's criteria be met at all (every
tool and argument they name exists), and does its gold replay change anything."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..domains import DomainSpec
from ..records import Scenario, ToolSpec
from ..suites import replay

Severity = Literal["error", "warning", "note"]
"""error: the task cannot be trusted (exit 1); warning: it checks less than it seems; note:
something could not be checked, said rather than skipped."""


class Flag(BaseModel):
    """One finding of an audit about one task."""

    model_config = ConfigDict(extra="forbid")

    scenario: str
    """The task's id."""
    check: str
    """Which check found it (`oracle`, `gold_replay`, `criteria`, `do_nothing`, ...)."""
    severity: Severity
    reason: str
    """What was found, in one line."""


def _named_calls(scenario: Scenario) -> Iterator[tuple[str, str, dict[str, Any] | None]]:
    """(where, tool, arguments or None) of every call the criteria name."""
    crit = scenario.criteria
    for i, a in enumerate(crit.gold_actions):
        yield f"gold action {i}", a.tool, a.args
    for i, e in enumerate(crit.expected_calls):
        yield f"expected call {i}", e.tool, dict(e.args)
    for i, f in enumerate(crit.forbidden):
        yield f"forbidden call {i}", f.tool, f.args


def criteria_flags(scenario: Scenario, tools: list[ToolSpec]) -> list[Flag]:
    """What in the criteria can never be met: a tool the domain does not have, an argument
    the tool does not take (its schema closes its properties), a required argument a gold
    action leaves out."""
    by_name = {t.name: t for t in tools}
    out: list[Flag] = []
    for where, tool, args in _named_calls(scenario):
        spec = by_name.get(tool)
        if spec is None:
            out.append(
                Flag(
                    scenario=scenario.id,
                    check="criteria",
                    severity="error",
                    reason=f"{where} names tool {tool!r}, which the domain does not have",
                )
            )
            continue
        if args is None:
            continue
        schema = spec.parameters or {}
        props = schema.get("properties")
        if isinstance(props, dict) and schema.get("additionalProperties") is not True:
            unknown = sorted(set(args) - set(props))
            if unknown:
                out.append(
                    Flag(
                        scenario=scenario.id,
                        check="criteria",
                        severity="error",
                        reason=f"{where} ({tool}) passes {', '.join(unknown)}, which the tool "
                        "does not take",
                    )
                )
        if where.startswith("gold"):
            missing = sorted(set(schema.get("required") or []) - set(args))
            if missing:
                out.append(
                    Flag(
                        scenario=scenario.id,
                        check="criteria",
                        severity="error",
                        reason=f"{where} ({tool}) leaves out required {', '.join(missing)}",
                    )
                )
    return out


def _walk(value: Any, path: str) -> bool:
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False
    return True


def gold_state_flags(scenario: Scenario, spec: DomainSpec) -> list[Flag]:
    """The gold replay on a fresh domain: a gold state equal to the initial one (the state
    check then passes a session that writes nothing), and state assertions whose path the
    gold state does not have. A domain without a state of its own says so in a note."""
    gold = scenario.criteria.gold_actions
    if not gold and not scenario.criteria.state and not scenario.criteria.compare_state:
        return []
    fresh = spec.create()
    before = fresh.state_hash()
    domain, _ = replay(spec, [(a.tool, dict(a.args)) for a in gold])
    after = domain.state_hash()
    out: list[Flag] = []
    if before is None or after is None:
        return [
            Flag(
                scenario=scenario.id,
                check="gold_state",
                severity="note",
                reason="the domain has no state of its own: gold state not compared",
            )
        ]
    if before == after and scenario.criteria.compare_state:
        what = "the gold actions leave the state as it started" if gold else "no gold action"
        reason = f"{what}: the final state's comparison with the gold replay passes any session "
        reason += "that writes nothing"
        if scenario.criteria.state:
            # Said apart: the task's own state assertions still fail such a session.
            reason += f" (its {len(scenario.criteria.state)} state assertion(s) still apply)"
        out.append(
            Flag(scenario=scenario.id, check="gold_state", severity="warning", reason=reason)
        )
    db = getattr(domain, "db", None)
    if scenario.criteria.state and isinstance(db, BaseModel):
        dumped = db.model_dump(mode="json")
        for path in scenario.criteria.state:
            if not _walk(dumped, path):
                out.append(
                    Flag(
                        scenario=scenario.id,
                        check="criteria",
                        severity="error",
                        reason=f"state assertion {path!r} names nothing in the gold state",
                    )
                )
    return out
