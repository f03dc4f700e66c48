"""BFCL single-call questions as one-turn scenarios, and their sessions judged by the matcher."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ...records import Action, Criteria, CriterionResult, Outcome, Scenario, ToolCall, UserSpec
from ._data import BfclQuestion, compile_question, packaged_questions
from ._domain import bfcl_metadata
from ._expected import CALL_RULES
from ._match import BfclVerdict
from ._schema import safe_tool_names


def _first(acceptable: Any) -> tuple[bool, Any]:
    # (found, value): the first acceptable value other than "" ("may be omitted").
    for value in acceptable if isinstance(acceptable, list) else [acceptable]:
        if not (type(value) is str and value == ""):
            return True, _concrete(value)
    return False, None


def _concrete(value: Any) -> Any:
    # Dict answers hold lists of acceptable values per key; pick one value for each.
    if isinstance(value, dict):
        picked = {k: _first(v) for k, v in value.items()}
        return {k: v for k, (found, v) in picked.items() if found}
    if isinstance(value, list):
        return [_concrete(v) if isinstance(v, dict) else v for v in value]
    return value


def oracle_arguments(
    answer: dict[str, list[Any]], declared: Collection[str] | None = None
) -> dict[str, Any]:
    """A reference call's arguments: each parameter's first acceptable value; a parameter
    whose only acceptable value is "" is left out, and so is one the function does not
    declare (`declared`: its parameters) when "" is among its values.

    A few of BFCL's possible answers name an argument the function does not take, with ""
    (may be omitted) among its values (`parallel_multiple_12`'s `permeability`, `_26`'s
    `type`): BFCL's checker refuses the call that passes it and accepts the one that leaves
    it out, so the reference leaves it out."""
    args = {}
    for param, acceptable in answer.items():
        omissible = isinstance(acceptable, list) and any(
            type(v) is str and v == "" for v in acceptable
        )
        if declared is not None and param not in declared and omissible:
            continue
        found, value = _first(acceptable)
        if found:
            args[param] = value
    return args


def _declared(functions: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Each function's name -> the parameters its schema declares."""
    out: dict[str, set[str]] = {}
    for f in functions:
        params = f.get("parameters") or {}
        props = params.get("properties") if isinstance(params, dict) else None
        out[str(f.get("name"))] = set(props) if isinstance(props, dict) else set()
    return out


def question_scenario(question: BfclQuestion) -> Scenario:
    """One BFCL question as a one-turn scenario (scripted user, no-op tools).

    `metadata["bfcl"]` holds what judging needs: the functions, the possible answer and the
    map from the tool names the agent sees (dots replaced) to BFCL's names. The gold actions
    are one reference call per expected call, for the oracle agent; the criteria name BFCL's
    call rules, so the session call metrics match calls as BFCL does.
    """
    text = "\n\n".join(
        str(m.get("content") or "") for m in question.messages if m.get("role") == "user"
    )
    names = safe_tool_names([f["name"] for f in question.functions])
    to_safe = {original: safe for safe, original in names.items()}
    declared = _declared(question.functions)
    gold = [
        Action(tool=to_safe.get(name, name), args=oracle_arguments(answer, declared.get(name)))
        for call in question.ground_truth or []
        for name, answer in call.items()
    ]
    return Scenario(
        id=question.id,
        domain=f"bfcl:{question.category}",
        description=f"BFCL v4 {question.category} question {question.id}",
        tags=["bfcl", question.category],
        user=UserSpec(turns=[text or "(empty question)"]),
        criteria=Criteria(
            gold_actions=gold, compare_state=False, evaluator="bfcl", call_rules=CALL_RULES
        ),
        metadata={
            "bfcl": {
                "id": question.id,
                "category": question.category,
                "functions": question.functions,
                "ground_truth": question.ground_truth,
                "tool_names": names,
            }
        },
    )


def load_bfcl_suite(category: str) -> list[Scenario]:
    """The shipped BFCL v4 questions of `category` as scenarios, in file order.

    Categories: simple_python, multiple, parallel, parallel_multiple, irrelevance. Raises
    `UnknownSuiteError` for any other.
    """
    return [question_scenario(q) for q in packaged_questions(category).values()]


def judge_calls(scenario: Scenario, calls: list[ToolCall]) -> BfclVerdict:
    """The matcher's verdict on a session's calls (tool names mapped back to BFCL's).

    A call whose arguments did not parse is a decoding failure, as in BFCL: for irrelevance
    it counts as no call; elsewhere the output is rejected as `ast_decoder:decoder_failed`.
    """
    meta = bfcl_metadata(scenario)
    question = BfclQuestion(
        id=str(meta.get("id", scenario.id)),
        category=str(meta.get("category", "")),
        messages=[],
        functions=meta["functions"],
        ground_truth=meta.get("ground_truth"),
    )
    rule = compile_question(question)
    names: dict[str, str] = meta.get("tool_names") or {}
    broken = [c for c in calls if c.arguments is None]
    if broken:
        if rule.kind.value == "irrelevance":
            return rule.judge([])
        why = broken[0].parse_error or "arguments are not a JSON object"
        return BfclVerdict(
            valid=False,
            error_type="ast_decoder:decoder_failed",
            error=f"call {broken[0].name!r}: {why}",
            greedy_valid=False,
        )
    output = [{names.get(c.name, c.name): c.arguments} for c in calls]
    return rule.judge(output)


def evaluate_bfcl(scenario: Scenario, calls: list[ToolCall]) -> Outcome:
    """A BFCL session's outcome from the calls the agent made (irrelevance: success iff none).

    Every call of the session counts, in order, so an agent that spreads parallel calls over
    several steps is judged on all of them; a repeated call is an extra call. The criterion
    `bfcl_ast` carries BFCL's error type, and says when BFCL's greedy matcher would differ.
    """
    verdict = judge_calls(scenario, calls)
    evidence = f"{len(calls)} call(s)"
    if not verdict.valid:
        evidence += f"; {verdict.error_type}: {verdict.error}"
    if verdict.greedy_differs:
        evidence += "; BFCL's greedy matcher would reject this pairing (optimal pairing accepts)"
    return Outcome(
        success=verdict.valid,
        reward=1.0 if verdict.valid else 0.0,
        criteria=[CriterionResult(name="bfcl_ast", passed=verdict.valid, evidence=evidence)],
    )
