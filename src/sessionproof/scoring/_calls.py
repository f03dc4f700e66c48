"""Single-call accuracy and call validity inside multi-turn sessions.

Every tool call an agent makes in a session is judged twice, independently:

- **valid**: the call names a tool of the scenario's domain, its arguments parsed as a JSON
  object, and they satisfy the tool's JSON Schema (jsonschema, the schema the agent was shown).
  Counted for every call.
- **matched**: the call equals an expected call of the scenario (`Criteria.gold_actions`) that
  no earlier call has used up. Equal means the same tool name and the same arguments after JSON
  normalisation (YAML dates and tuples become JSON text and lists; an int equals the float of
  the same value, as in BFCL; a bool never equals a number; strings compare exactly); an
  argument left out on one side and given its schema default on the other counts as equal, and
  a gold action with `compare_args` (tau2's) compares only those arguments. A scenario whose
  criteria name `call_rules` (BFCL questions: acceptable-value lists, "" = may be omitted...)
  is judged by that registered rule set instead, imported only for such scenarios. Calls are
  paired with expected calls by a maximum matching, so the count of matched calls never
  depends on the order of repeated calls.

Sessions that ended in `infra_error` are left out, as they are from accuracy. After a schema
drift (`drift_applied` with `applied: true`) the agent was shown another schema than the domain
has; its calls to the drifted tool from that turn on are neither valid nor invalid here, only
counted apart (`drift_unjudged`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson
from pydantic import BaseModel, ConfigDict, Field

from .._plugins import Registry
from ..domains import DomainSpec
from ..errors import ConfigError
from ..records import Scenario, Session, ToolCall, ToolSpec
from ._content import recorded_without_content
from ._identity import ByIdentity
from ._matching import maximum_matching
from ._trace import TraceCache, calls_of, drifted_tools, made_once, under_drift

if TYPE_CHECKING:
    import jsonschema  # loaded by the first validity check: a suite file's load needs none

CALL_DEFINITIONS: dict[str, str] = {
    "single_call_accuracy": "matched calls ÷ calls to a tool that appears in the scenario's "
    "expected calls (gold actions). A call is matched when it equals an expected call not used "
    "up by another call: same tool, same arguments after JSON normalisation (defaults may be "
    "omitted; a gold action's compare_args respected; scenarios naming call rules, such as BFCL "
    "questions, judged by those rules). Calls to "
    "tools the gold never uses, and scenarios without gold actions, are outside this ratio.",
    "write_call_accuracy": "the same ratio over calls to write tools only (reads are often "
    "exploratory lookups a correct agent may make beyond the reference).",
    "gold_recall": "expected calls matched by some agent call ÷ all expected calls.",
    "call_validity_rate": "schema-valid calls ÷ all calls: a known tool, arguments that parsed "
    "as a JSON object and satisfy the tool's JSON Schema. Calls to a tool the agent saw drifted "
    "are counted apart (drift_unjudged). Infra-error sessions are left out of every call metric, "
    "and so are sessions recorded without content (unmeasured_sessions): with none measured "
    "the rates are not measured (null), never 0.",
}


# -- validity -----------------------------------------------------------------------------------


class CallValidators:
    """jsonschema validators, each built once per (domain, tool), and each scenario's
    expected calls: one instance serves every session of a run (`call_accuracy` shares one;
    so may callers of `check_calls`)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], jsonschema.protocols.Validator] = {}
        self._tools: ByIdentity[_Tools] = ByIdentity()

    def tools_for(self, scenario: Scenario, spec: DomainSpec) -> _Tools:
        """`spec`'s tools by name and `scenario`'s expected calls, made once per pair."""

        def make() -> _Tools:
            by_name = {t.name: t for t in spec.tools()}
            return _Tools(by_name, _Expected(scenario, by_name))

        return self._tools.get((scenario, spec), make)

    def problem(self, domain: str, tool: ToolSpec, args: dict[str, Any]) -> str | None:
        """The most relevant schema violation of `args`, or None when they are valid."""
        import jsonschema

        key = (domain, tool.name)
        validator = self._cache.get(key)
        if validator is None:
            cls = jsonschema.validators.validator_for(tool.parameters)
            validator = self._cache[key] = cls(tool.parameters)
        error = jsonschema.exceptions.best_match(validator.iter_errors(args))
        if error is None:
            return None
        where = ".".join(str(p) for p in error.absolute_path) or "(arguments)"
        return f"{where}: {error.message}"


def _invalid(
    call: ToolCall, tools: Mapping[str, ToolSpec], domain: str, validators: CallValidators
) -> tuple[str, str] | None:
    """(reason kind, detail) when the call is not valid; None when it is."""
    if call.arguments is None:
        return "unparsed_arguments", call.parse_error or "arguments are not a JSON object"
    spec = tools.get(call.name)
    if spec is None:
        return "unknown_tool", f"no tool {call.name!r}"
    problem = validators.problem(domain, spec, call.arguments)
    return None if problem is None else ("schema_violation", problem)


# -- expected calls -----------------------------------------------------------------------------


def json_normal(value: Any) -> Any:
    """`value` as JSON would carry it (dates to text, tuples to lists, keys to strings)."""
    return orjson.loads(orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS))


def same_value(a: Any, b: Any) -> bool:
    """JSON-value equality: int and float of one value are equal; bools equal only bools."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _defaults(tool: ToolSpec | None) -> dict[str, Any]:
    props = (tool.parameters.get("properties") or {}) if tool else {}
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


def comparable_args(
    args: Mapping[str, Any], tool: ToolSpec | None, keys: Sequence[str] | None = None
) -> dict[str, Any]:
    """Arguments ready for `same_value`: JSON-normal, defaults dropped, `keys` only if given."""
    normal: dict[str, Any] = json_normal(dict(args))
    defaults = _defaults(tool)
    out = {k: v for k, v in normal.items() if not (k in defaults and same_value(v, defaults[k]))}
    if keys is not None:
        out = {k: v for k, v in out.items() if k in keys}
    return out


ArgumentCheck = Callable[[dict[str, Any]], bool]
"""Whether a call's arguments satisfy one expected call of a benchmark's own rules."""

CallRules = Callable[[Scenario], list[tuple[str, ArgumentCheck]] | None]
"""A call-matching rule set: per expected call of a scenario, the tool name and an
`ArgumentCheck` (None when the scenario is not the rule set's)."""


def _check_rules(name: str, obj: Any) -> CallRules:
    if not callable(obj):
        raise ConfigError(f"call rules {name!r} are a {type(obj).__name__}, not a function")
    rules: CallRules = obj
    return rules


CALL_RULES: Registry[CallRules] = Registry("call_rules", check=_check_rules)
"""Call-matching rule sets by the name a scenario gives in `Criteria.call_rules`: those
registered at run time and the `sessionproof.call_rules` entry points (a benchmark's among
them). Each is imported only when a scenario names it, so generic scoring imports none."""


def register_call_rules(name: str, factory_path: str | CallRules) -> None:
    """Declare a call-matching rule set under `name`: a `CallRules` function or its
    `module:function`, imported when a scenario first names it."""
    CALL_RULES.add(name, factory_path)


def call_rule_names() -> list[str]:
    """The names `Criteria.call_rules` may give, sorted (imports no rule set)."""
    return CALL_RULES.names()


def _own_rules(scenario: Scenario) -> list[tuple[str, ArgumentCheck]] | None:
    name = scenario.criteria.call_rules
    if name is None:
        return None
    factory = CALL_RULES.get(name)
    if factory is None:
        raise ConfigError(
            f"scenario {scenario.id!r} names call rules {name!r}; known: "
            + ", ".join(call_rule_names())
        )
    return factory(scenario)


class _Expected:
    """A scenario's expected calls, as predicates over (tool name, arguments)."""

    def __init__(self, scenario: Scenario, tools: Mapping[str, ToolSpec]) -> None:
        self.tools: list[str] = []
        self._rules: list[ArgumentCheck] | None = None
        self._gold: list[dict[str, Any]] = []
        self._keys: list[list[str] | None] = []
        self._specs = tools
        own = _own_rules(scenario)
        if own is not None:
            self.tools = [name for name, _ in own]
            self._rules = [check for _, check in own]
            return
        for action in scenario.criteria.gold_actions:
            spec = tools.get(action.tool)
            self.tools.append(action.tool)
            self._gold.append(comparable_args(action.args, spec, action.compare_args))
            self._keys.append(action.compare_args)

    def fits(self, index: int, call: ToolCall) -> bool:
        """True when `call` equals expected call `index`."""
        if call.arguments is None or call.name != self.tools[index]:
            return False
        if self._rules is not None:
            return self._rules[index](call.arguments)
        got = comparable_args(call.arguments, self._specs.get(call.name), self._keys[index])
        return same_value(got, self._gold[index])


class _Tools(NamedTuple):
    by_name: dict[str, ToolSpec]
    expected: _Expected


def _pair(expected: _Expected, calls: Sequence[ToolCall]) -> list[int]:
    candidates = [[j for j in range(len(expected.tools)) if expected.fits(j, c)] for c in calls]
    return maximum_matching(candidates, len(expected.tools))


def match_gold(
    calls: Sequence[ToolCall], scenario: Scenario, tools: Sequence[ToolSpec]
) -> list[int]:
    """For each call, the index of the expected call it is paired with, or -1.

    A maximum matching between calls and expected calls: every expected call is used at most
    once, and as many calls as possible are matched.
    """
    return _pair(_Expected(scenario, {t.name: t for t in tools}), calls)


# -- per-session checks and the aggregate ---------------------------------------------------------


class CallCheck(BaseModel):
    """One agent call, judged."""

    model_config = ConfigDict(extra="forbid")

    call_id: str
    step: int
    tool: str
    write: bool
    """The tool changes the DB (by the domain's own marking)."""
    valid: bool | None
    """None when the call was made against a drifted schema (not judged)."""
    invalid_reason: str | None = None
    """unknown_tool, unparsed_arguments or schema_violation, with its detail."""
    targets_gold_tool: bool
    matched_gold: int | None = None
    """Index of the expected call this call is paired with."""


def check_calls(
    session: Session,
    scenario: Scenario,
    spec: DomainSpec,
    validators: CallValidators | None = None,
) -> list[CallCheck]:
    """Every call of `session` judged for validity and against the scenario's expected calls;
    `validators` (kept across the sessions of a run) saves building each tool's again."""
    return _check(session, scenario, spec, validators or CallValidators())[0]


def _check(
    session: Session,
    scenario: Scenario,
    spec: DomainSpec,
    validators: CallValidators,
    traces: TraceCache | None = None,
) -> tuple[list[CallCheck], int]:
    """The checks, and how many expected calls the scenario has (made once through
    `traces` when given)."""
    return made_once(traces, "calls", (session, scenario, spec), _checks, validators, traces)


def _checks(
    session: Session,
    scenario: Scenario,
    spec: DomainSpec,
    validators: CallValidators,
    traces: TraceCache | None,
) -> tuple[list[CallCheck], int]:
    by_name, expected = validators.tools_for(scenario, spec)
    calls = calls_of(session, traces)
    drift = drifted_tools(session)
    judged = [c for c in calls if not under_drift(c, drift)]
    pairing = _pair(expected, [c.call for c in judged])
    paired = {c.position: j for c, j in zip(judged, pairing, strict=True) if j != -1}
    gold_tools = set(expected.tools)
    out = []
    for traced in calls:
        call = traced.call
        drifted = under_drift(traced, drift)
        problem = None if drifted else _invalid(call, by_name, spec.name, validators)
        spec_of = by_name.get(call.name)
        out.append(
            CallCheck(
                call_id=call.id,
                step=traced.step,
                tool=call.name,
                write=bool(spec_of and spec_of.write),
                valid=None if drifted else problem is None,
                invalid_reason=None if problem is None else f"{problem[0]}: {problem[1]}",
                targets_gold_tool=not drifted and call.name in gold_tools,
                matched_gold=paired.get(traced.position),
            )
        )
    return out, len(expected.tools)


class CallAccuracy(BaseModel):
    """Single-call accuracy and validity over a set of sessions (definitions in the module)."""

    model_config = ConfigDict(extra="forbid")

    sessions: int = 0
    """Sessions whose calls were judged (infra errors and sessions without a scenario left out)."""
    calls: int = 0
    valid: int = 0
    validity_judged: int = 0
    call_validity_rate: float | None = None
    drift_unjudged: int = 0
    invalid_by_reason: dict[str, int] = Field(default_factory=dict)
    gold_tool_calls: int = 0
    matched_calls: int = 0
    single_call_accuracy: float | None = None
    gold_tool_write_calls: int = 0
    matched_write_calls: int = 0
    write_call_accuracy: float | None = None
    gold_actions: int = 0
    gold_actions_matched: int = 0
    gold_recall: float | None = None
    sessions_without_gold: int = 0
    """Judged sessions whose scenario names no expected call (validity only)."""
    unmeasured_sessions: int = 0
    """Sessions recorded without content (no arguments to check): left out of every rate
    here, which is None (not measured), never 0, when no session could be measured."""


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def call_accuracy(
    sessions: Sequence[Session],
    scenarios: Mapping[str, Scenario],
    domain_for: Callable[[Scenario], DomainSpec],
    traces: TraceCache | None = None,
) -> CallAccuracy:
    """Aggregate call metrics; sessions whose scenario is not in `scenarios` are left out.
    `traces`: the traced calls shared with the other metrics of these sessions."""
    acc = CallAccuracy()
    validators = CallValidators()
    reasons: Counter[str] = Counter()
    for session in sessions:
        scenario = scenarios.get(session.scenario_id)
        if session.infra_error or scenario is None:
            continue
        if recorded_without_content(session):
            acc.unmeasured_sessions += 1  # not 0% valid: nothing to measure
            continue
        checks, gold = _check(session, scenario, domain_for(scenario), validators, traces)
        acc.sessions += 1
        acc.gold_actions += gold
        acc.sessions_without_gold += gold == 0
        for check in checks:
            acc.calls += 1
            if check.valid is None:
                acc.drift_unjudged += 1
                continue
            acc.validity_judged += 1
            acc.valid += check.valid
            if check.invalid_reason:
                reasons[check.invalid_reason.split(":", 1)[0]] += 1
            matched = check.matched_gold is not None
            acc.gold_actions_matched += matched
            if check.targets_gold_tool:
                acc.gold_tool_calls += 1
                acc.matched_calls += matched
                if check.write:
                    acc.gold_tool_write_calls += 1
                    acc.matched_write_calls += matched
    acc.invalid_by_reason = dict(sorted(reasons.items()))
    acc.call_validity_rate = _ratio(acc.valid, acc.validity_judged)
    acc.single_call_accuracy = _ratio(acc.matched_calls, acc.gold_tool_calls)
    acc.write_call_accuracy = _ratio(acc.matched_write_calls, acc.gold_tool_write_calls)
    acc.gold_recall = _ratio(acc.gold_actions_matched, acc.gold_actions)
    return acc
