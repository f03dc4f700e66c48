"""Verdicts for tau2 and tau-bench scenarios, component by component.

tau2 (`evaluate_tau2`): a session that did not end with the user or the agent stopping (a
transfer counts as the user stopping, as tau2's user does on a transfer) gets reward 0.
Otherwise each component of the task's reward basis is judged and the reward is their
product:
- DB: the state after the session's writes equals the state after the gold actions, both
  replayed on a fresh DB (a task with neither actions nor env assertions passes);
- ENV_ASSERTION: each assertion function, run on the session's final state, returns the value
  the task expects;
- COMMUNICATE: each `communicate_info` text appears, lower-cased, in some agent reply
  lower-cased with commas removed;
- ACTION: each gold action is matched by some call of the session (same tool; the call's
  arguments equal the gold's, or only the `compare_args` when the task names them);
- NL_ASSERTION: judged by a model when one is given; otherwise the criterion is reported with
  passed=None ("not evaluated") and the session is not a success, whatever the reward of the
  other components.

tau-bench (`evaluate_taubench`): reward 1 iff the DB after the recorded calls equals the DB
after the gold actions (transfers excluded) AND every `outputs` text appears lower-cased in
some agent reply lower-cased with commas removed; a session that hit the step limit scores 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ...domains import Domain, DomainSpec, get_domain
from ...records import CriterionResult, Outcome, Scenario, Session, TerminationReason
from ...records._internal import Mismatch
from ...scoring._internal import MAX_DETAILS, state_diff
from ...scoring._internal import normalise_text as normalise  # tau2's fact search is ours exactly
from .._judges import Judgement
from .._nl_judge import NLJudge, transcript_text
from ._replay import DEFAULT_GOLD_CACHE, GoldCache, GoldState, replay, replayed_calls
from ._tau2task import Tau2Task
from ._taubench_task import TauBenchTask

STOPPED = frozenset({"user_stop", "agent_stop", "transfer"})
"""Terminations tau2 evaluates; any other ends the session with reward 0."""
TERMINATE_TOOLS = frozenset({"transfer_to_human_agents"})
"""tau-bench leaves these out of its gold replay (they end the episode, not change the DB)."""


def _agent_texts(session: Session) -> list[str]:
    return [normalise(text) for text in session.agent_texts() if text]


def _termination(session: Session) -> str:
    original = session.metadata.get("tau2_termination")
    return original if isinstance(original, str) else session.termination.value


def _said(facts: Sequence[str], session: Session) -> CriterionResult:
    texts = _agent_texts(session) if facts else []  # most tasks name no fact to say
    missing = [f for f in facts if not any(f.lower() in t for t in texts)]
    return CriterionResult(
        name="communicate",
        passed=not missing,
        evidence=("missing: " + "; ".join(missing)) if missing else f"all {len(facts)} stated",
    )


def _call_matches(
    gold_name: str,
    gold_args: Mapping[str, Any],
    compare: list[str] | None,
    name: str,
    args: Mapping[str, Any],
) -> bool:
    if gold_name != name:
        return False
    keys = list(args) if compare is None else compare
    if not keys:
        return True
    return {k: v for k, v in args.items() if k in keys} == {
        k: v for k, v in gold_args.items() if k in keys
    }


def _diff_records(final: Domain[Any], gold: GoldState) -> list[str]:
    """ "table/key" of each record where `final` and the gold state differ (as a replay of
    the gold actions would show them: its written records, the base DB elsewhere)."""
    return [f"{table}/{key}" for table, key, _, _ in _differing_records(final, gold)]


def _differing_records(final: Domain[Any], gold: GoldState) -> list[tuple[str, str, Any, Any]]:
    """(table, key, final record, gold record) of each record `_diff_records` names."""
    cow = getattr(final, "cow", None)
    if cow is None or gold.records is None:
        return []
    from ._tau import record_digest

    keys = set(cow.changed_records()) | set(gold.changed)
    out = []
    for table, key in sorted(keys):
        a = getattr(final.db, table).get(key)
        if (table, key) in gold.records:
            b = gold.records[(table, key)]
        else:
            b = getattr(gold.base.db, table).get(key)
        if record_digest(a) != record_digest(b):
            out.append((table, key, a, b))
    return out


def _dump(record: Any) -> Any:
    return record.model_dump(mode="json") if isinstance(record, BaseModel) else record


def _record_details(differing: list[tuple[str, str, Any, Any]]) -> list[Mismatch]:
    """The differing fields of the differing records (`table.key.field`, expected = gold,
    actual = final), at most `MAX_DETAILS` in all."""
    rows: list[Mismatch] = []
    for table, key, final, gold in differing:
        room = MAX_DETAILS - len(rows)
        if room <= 0:
            break
        found, _ = state_diff(_dump(final), _dump(gold), limit=room)
        for row in found:
            where = f"{table}.{key}" + ("" if row.where == "(state)" else f".{row.where}")
            rows.append(row.model_copy(update={"where": where}))
    return rows


def _db(
    spec: DomainSpec,
    gold_actions: Sequence[tuple[str, dict[str, Any]]],
    session: Session,
    final_domain: Domain[Any] | None,
    cache: GoldCache,
) -> tuple[CriterionResult, bool, Domain[Any], list[str]]:
    gold = cache.get(spec, gold_actions)
    if final_domain is None:
        final_domain, _ = replay(
            spec, ((c.name, c.arguments or {}) for c in replayed_calls(session))
        )
    got = final_domain.state_hash()
    match = got == gold.state_hash
    changed: list[str] = []
    details: list[Mismatch] = []
    if not match:
        differing = _differing_records(final_domain, gold)
        changed = [f"{table}/{key}" for table, key, _, _ in differing]
        details = _record_details(differing)
    evidence = "final state equals the gold state" if match else "final state differs from gold"
    if changed:
        evidence += " in " + ", ".join(changed[:8]) + (" ..." if len(changed) > 8 else "")
    if gold.failures:
        evidence += "; gold actions that failed: " + "; ".join(gold.failures)
    result = CriterionResult(name="db", passed=match, evidence=evidence, details=details)
    return result, match, final_domain, changed


def judge_tau2(
    scenario: Scenario,
    session: Session,
    final_domain: Domain[Any] | None = None,
    judge: NLJudge | None = None,
    cache: GoldCache = DEFAULT_GOLD_CACHE,
) -> Judgement:
    """Our verdict on a session of a tau2 scenario (`metadata["tau2_task"]`), in full."""
    task = cache.parsed(scenario.metadata["tau2_task"], Tau2Task.model_validate)
    ended = _termination(session)
    if ended not in STOPPED:
        result = CriterionResult(
            name="termination", passed=False, evidence=f"ended as {ended}: tau2 scores it 0"
        )
        return Judgement(outcome=Outcome(success=False, reward=0.0, criteria=[result]))
    if scenario.domain == "telecom":  # a dual-control world: both sides judged
        from .telecom._internal import judge_telecom

        return judge_telecom(scenario, session, task, final_domain, judge)
    crit = task.evaluation_criteria
    if crit is None:
        note = CriterionResult(name="criteria", passed=True, evidence="the task has no criteria")
        return Judgement(outcome=Outcome(success=True, reward=1.0, criteria=[note]), db_match=True)
    basis = set(crit.reward_basis)
    spec = get_domain(scenario.domain)
    results: list[CriterionResult] = []
    breakdown: dict[str, float] = {}
    db_match: bool | None = None
    changed: list[str] = []
    domain = final_domain
    if crit.actions is None and crit.env_assertions is None:
        db_match = True
        db_result = CriterionResult(name="db", passed=True, evidence="no actions to replay")
    else:
        gold = [(a.name, a.arguments) for a in crit.actions or [] if a.requestor == "assistant"]
        db_result, db_match, domain, changed = _db(spec, gold, session, final_domain, cache)
    if "DB" in basis:
        results.append(db_result)
        breakdown["DB"] = 1.0 if db_match else 0.0
    if "ENV_ASSERTION" in basis:
        if domain is None:
            domain, _ = replay(spec, ((c.name, c.arguments or {}) for c in replayed_calls(session)))
        failed = []
        for assertion in crit.env_assertions or []:
            func = getattr(domain.toolkit, assertion.func_name, None)
            try:
                value = func(**assertion.arguments) if callable(func) else None
            except Exception as exc:  # an assertion that raises has not held
                value = f"raised {type(exc).__name__}: {exc}"
            if value is not assertion.assert_value:
                failed.append(f"{assertion.func_name} gave {value!r}")
        results.append(
            CriterionResult(
                name="env_assertion",
                passed=not failed,
                evidence="; ".join(failed) if failed else "all assertions hold",
            )
        )
        breakdown["ENV_ASSERTION"] = 0.0 if failed else 1.0
    if "COMMUNICATE" in basis:
        said = _said(crit.communicate_info or [], session)
        results.append(said)
        breakdown["COMMUNICATE"] = 1.0 if said.passed else 0.0
    if "ACTION" in basis:
        calls = [(c.name, c.arguments or {}) for c in session.tool_calls()]
        results.append(actions_made(crit.actions or [], calls, breakdown, lambda a: a.name))
    if "NL_ASSERTION" in basis:
        results.append(_nl(crit.nl_assertions or [], session, judge, breakdown))
    return Judgement(
        outcome=rewarded(results, breakdown),
        db_match=db_match,
        breakdown=breakdown,
        changed=changed,
    )


def actions_made(
    actions: Sequence[Any],
    made: Sequence[tuple[str, dict[str, Any]]],
    breakdown: dict[str, float],
    label: Callable[[Any], str],
) -> CriterionResult:
    """tau2's ACTION component: every gold action (`name`, `arguments`, `compare_args`) matched
    by some call `made` (name, arguments); `breakdown["ACTION"]` set, and the unmatched ones
    named by `label` in the evidence."""
    unmatched = [
        label(a)
        for a in actions
        if not any(_call_matches(a.name, a.arguments, a.compare_args, n, g) for n, g in made)
    ]
    breakdown["ACTION"] = 0.0 if unmatched else 1.0
    return CriterionResult(
        name="action",
        passed=not unmatched,
        evidence=("not made: " + ", ".join(unmatched)) if unmatched else "all gold calls made",
    )


def rewarded(results: list[CriterionResult], breakdown: dict[str, float]) -> Outcome:
    """tau2's reward, the product of the components in `breakdown`; a success needs reward 1
    and every criterion passed (one not evaluated is no pass)."""
    reward = 1.0
    for value in breakdown.values():
        reward *= value
    success = reward == 1.0 and all(r.passed is True for r in results)
    return Outcome(success=success, reward=reward, criteria=results)


def _nl(
    assertions: Sequence[str], session: Session, judge: NLJudge | None, breakdown: dict[str, float]
) -> CriterionResult:
    if not assertions:
        breakdown["NL_ASSERTION"] = 1.0
        return CriterionResult(name="nl_assertion", passed=True, evidence="no assertions")
    if judge is None:
        return CriterionResult(
            name="nl_assertion", passed=None, evidence="not evaluated: no judge model"
        )
    verdicts = judge.judge(assertions, transcript_text(session))
    if any(met is None for met, _ in verdicts):
        return CriterionResult(
            name="nl_assertion",
            passed=None,
            evidence=f"not evaluated: {judge.name} could not judge every assertion",
        )
    failed = [f"{a} ({why})" for a, (met, why) in zip(assertions, verdicts, strict=True) if not met]
    breakdown["NL_ASSERTION"] = 0.0 if failed else 1.0
    return CriterionResult(
        name="nl_assertion",
        passed=not failed,
        evidence=(f"{judge.name}: not met: " + "; ".join(failed))
        if failed
        else f"{judge.name}: all met",
    )


def evaluate_tau2(
    scenario: Scenario,
    session: Session,
    final_domain: Domain[Any] | None = None,
    judge: NLJudge | None = None,
) -> Outcome:
    """The verdict on a session of a tau2 scenario (see the module docstring)."""
    return judge_tau2(scenario, session, final_domain, judge).outcome


def judge_taubench(
    scenario: Scenario,
    session: Session,
    final_domain: Domain[Any] | None = None,
    cache: GoldCache = DEFAULT_GOLD_CACHE,
) -> Judgement:
    """Our verdict on a session of a tau-bench scenario (`metadata["taubench_task"]`)."""
    task = cache.parsed(scenario.metadata["taubench_task"], TauBenchTask.model_validate)
    if session.termination is TerminationReason.max_steps:
        result = CriterionResult(
            name="termination", passed=False, evidence="hit the step limit: tau-bench scores it 0"
        )
        return Judgement(outcome=Outcome(success=False, reward=0.0, criteria=[result]))
    spec = get_domain(scenario.domain)
    gold = [(a.name, a.kwargs) for a in task.actions if a.name not in TERMINATE_TOOLS | {"respond"}]
    db_result, db_match, _, changed = _db(spec, gold, session, final_domain, cache)
    results = [db_result]
    if task.outputs:
        said = _said(task.outputs, session)
        said.name = "outputs"
        results.append(said)
    success = all(r.passed for r in results)
    return Judgement(
        outcome=Outcome(success=success, reward=1.0 if success else 0.0, criteria=results),
        db_match=db_match,
        breakdown={r.name: 1.0 if r.passed else 0.0 for r in results},
        changed=changed,
    )


def evaluate_taubench(scenario: Scenario, session: Session) -> Outcome:
    """The verdict on a session of a tau-bench scenario (see the module docstring)."""
    return judge_taubench(scenario, session).outcome
