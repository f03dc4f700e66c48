"""Judge one decoded model output against one BFCL question, with BFCL's verdict semantics.

Parallel categories differ from BFCL in one deliberate way: the calls are paired with the
expected calls by a maximum bipartite matching instead of BFCL's first-match-wins loop, so an
output is valid whenever *some* pairing works. What the greedy loop would have decided is
kept in every verdict (`greedy_valid`), so the two can be compared line by line.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from ...scoring._internal import maximum_matching
from ._rules import CallRule, Failure


class CheckKind(StrEnum):
    """Which BFCL checker judges a category."""

    simple = "simple"
    """Exactly one call, checked against the first function of the question."""
    multiple = "multiple"
    """As many calls as expected; the first is checked against the expected function."""
    parallel = "parallel"
    """Every expected call matched by a distinct output call, in any order."""
    irrelevance = "irrelevance"
    """Valid iff the output holds no function call."""
    relevance = "relevance"
    """Valid iff the output holds at least one function call."""


def check_kind(category: str) -> CheckKind | None:
    """The checker for a BFCL category name (None for categories not judged by the AST)."""
    if "multi_turn" in category or "java" in category:
        return None
    if "irrelevance" in category:
        return CheckKind.irrelevance
    if "relevance" in category:
        return CheckKind.relevance
    if "parallel" in category:
        return CheckKind.parallel
    if "multiple" in category:
        return CheckKind.multiple
    return CheckKind.simple


class BfclVerdict(BaseModel):
    """The verdict on one model output."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    valid: bool
    """True when the output is accepted (parallel: by the optimal pairing)."""
    error_type: str | None = None
    """BFCL's error_type string for the first problem found (None when valid)."""
    error: str | None = None
    """What was wrong, in words."""
    greedy_valid: bool
    """What BFCL's first-match-wins matcher decides; differs from `valid` only for parallel."""
    assignment: list[int] | None = None
    """Parallel, when valid: the output call index paired with each expected call."""

    @property
    def greedy_differs(self) -> bool:
        """True when the optimal pairing accepts what BFCL's greedy matcher rejects."""
        return self.valid != self.greedy_valid


_FORMAT = "ast_decoder:decoder_wrong_output_format"


def decoded_calls(output: Any) -> list[tuple[str, dict[str, Any]]] | None:
    """`[{name: {arg: value}}, ...]` as (name, args) pairs; None when not in that shape."""
    if type(output) is not list:
        return None
    calls = []
    for item in output:
        if type(item) is not dict or len(item) != 1:
            return None
        ((name, args),) = item.items()
        if type(args) is not dict:
            return None
        calls.append((name, args))
    return calls


def _has_call(output: Any) -> bool:
    # BFCL counts [] and [{}] (and anything not in call format) as "no call".
    if type(output) is not list or not output:
        return False
    if len(output) == 1 and type(output[0]) is dict and not output[0]:
        return False
    return decoded_calls(output) is not None


_VALID = BfclVerdict(valid=True, greedy_valid=True)


def _rejected(error_type: str, message: str) -> BfclVerdict:
    return BfclVerdict(valid=False, error_type=error_type, error=message, greedy_valid=False)


def _verdict(failure: Failure | None) -> BfclVerdict:
    # Verdicts are frozen, so every plain acceptance can share one instance.
    if failure is None:
        return _VALID
    return _rejected(failure.error_type, failure.message())


class QuestionRule:
    """A BFCL question compiled for matching: its checker and its expected calls."""

    __slots__ = ("calls", "category", "id", "kind")

    def __init__(self, qid: str, category: str, kind: CheckKind, calls: list[CallRule]) -> None:
        self.id = qid
        self.category = category
        self.kind = kind
        self.calls = calls

    def judge(self, output: Any) -> BfclVerdict:
        """The verdict on one decoded model output (`model_output_decoded`)."""
        kind = self.kind
        if kind is CheckKind.irrelevance:
            if _has_call(output):
                return _rejected("irrelevance_error:decoder_success", "a call was made")
            return _VALID
        if kind is CheckKind.relevance:
            if _has_call(output):
                return _VALID
            return _rejected("relevance_error:decoder_failed", "no call was made")
        calls = decoded_calls(output)
        if calls is None:
            return _rejected(_FORMAT, "output is not a list of {function: {argument: value}}")
        expected = self.calls
        if kind is CheckKind.parallel:
            return self._parallel(calls)
        if len(calls) != (1 if kind is CheckKind.simple else len(expected)):
            checker = "simple" if kind is CheckKind.simple else "multiple"
            return _rejected(
                f"{checker}_function_checker:wrong_count",
                f"{len(calls)} calls, expected {1 if checker == 'simple' else len(expected)}",
            )
        return _verdict(expected[0].check(*calls[0]))

    def _parallel(self, calls: list[tuple[str, dict[str, Any]]]) -> BfclVerdict:
        expected = self.calls
        n = len(expected)
        if len(calls) != n:
            return _rejected(
                "parallel_function_checker_no_order:wrong_count",
                f"{len(calls)} calls, expected {n}",
            )
        # Greedy first (BFCL's order of checks), keeping every result for the optimal pass.
        seen: list[list[Failure | bool | None]] = [[False] * n for _ in range(n)]
        used = [False] * n
        greedy = [-1] * n
        stuck = -1
        for i, rule in enumerate(expected):
            row = seen[i]
            for j in range(n):
                if used[j]:
                    continue
                failure = row[j] = rule.check(*calls[j])
                if failure is None:
                    used[j] = True
                    greedy[i] = j
                    break
            else:
                stuck = i
                break
        if stuck == -1:
            return BfclVerdict(valid=True, greedy_valid=True, assignment=greedy)
        # `False` marks a pairing not checked yet. If no call at all fits the expected call
        # greedy could not place, no pairing can work and the other checks are not needed.
        row = seen[stuck]
        for j in range(n):
            if row[j] is False:
                row[j] = expected[stuck].check(*calls[j])
        if None not in row:
            return self._no_partner(stuck, [], row)
        candidates: list[list[int]] = []
        for i, rule in enumerate(expected):
            row = seen[i]
            for j in range(n):
                if row[j] is False:
                    row[j] = rule.check(*calls[j])
            candidates.append([j for j in range(n) if row[j] is None])
        pairing = maximum_matching(candidates, n)
        if -1 not in pairing:
            return BfclVerdict(valid=True, greedy_valid=False, assignment=pairing)
        missing = pairing.index(-1)
        return self._no_partner(missing, candidates[missing], seen[missing])

    def _no_partner(
        self, missing: int, fits: list[int], row: list[Failure | bool | None]
    ) -> BfclVerdict:
        if fits:
            reasons = f"the calls it fits {fits} are needed by other expected calls"
        else:
            tried = [(j, f) for j, f in enumerate(row) if isinstance(f, Failure)]
            reasons = ", ".join(f"call {j}: {f.error_type}" for j, f in tried)
            # Spell out one failure in full: the first call to the right function, if any.
            closest = next(
                (f for _, f in tried if not f.error_type.endswith("wrong_func_name")), None
            )
            if closest is not None:
                reasons += f" (e.g. {closest.message()})"
        return BfclVerdict(
            valid=False,
            error_type="parallel_function_checker_no_order:cannot_find_match",
            error=f"expected call {missing} ({self.calls[missing].name}) has no partner: {reasons}",
            greedy_valid=False,
        )
