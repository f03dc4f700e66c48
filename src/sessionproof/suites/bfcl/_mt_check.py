"""BFCL's multi-turn verdict, turn by turn.

The semantics of BFCL's `multi_turn_checker` (bfcl-eval 2026.3.23), implemented on
`BfclWorld` (no `eval`, no module-global instances) and extended to give every turn its own
verdict instead of stopping at the first failure:

- the model's calls of a turn run step by step on the model's instances; the turn's gold calls
  run on separate gold instances; both persist across turns;
- a turn whose gold list is not empty fails as `multi_turn:empty_turn_model_response` when the
  model's turn is empty (no step, or one empty step);
- such a turn then fails as `multi_turn:instance_state_mismatch` when a public attribute of
  some involved instance differs from the gold instance's, else as
  `multi_turn:execution_response_mismatch` when the gold results of the turn are not an
  unordered sub-multiset of the model's results of every turn so far;
- a turn whose gold list is empty is not checked (BFCL 2026.3.23 never calls its irrelevance
  checker); `strict_empty_turns` fails such a turn when the model made a call there
  (`multi_turn:irrelevance_error:decoder_success`, the rule BFCL's unused checker states).

The session is valid when every turn is (BFCL's verdict); the error is the first failing
turn's. With `gold_prefix`, turns before it are the gold calls (the "gold prefix" reading).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._mt_exec import BfclWorld

EMPTY_TURN = "multi_turn:empty_turn_model_response"
STATE_MISMATCH = "multi_turn:instance_state_mismatch"
RESPONSE_MISMATCH = "multi_turn:execution_response_mismatch"
IRRELEVANCE = "multi_turn:irrelevance_error:decoder_success"
TURN_COUNT = "multi_turn:turn_count_mismatch"


@dataclass(frozen=True)
class TurnCheck:
    """One turn's verdict."""

    turn: int
    valid: bool
    error_type: str | None = None
    error: str | None = None
    checked: bool = True
    """False for a turn whose gold list is empty (BFCL does not judge it)."""


@dataclass
class MultiTurnVerdict:
    """A session's verdict: BFCL's, and each turn's."""

    valid: bool
    error_type: str | None = None
    error: str | None = None
    turns: list[TurnCheck] = field(default_factory=list)


def is_empty_turn(steps: Sequence[Sequence[str]]) -> bool:
    """BFCL's emptiness rule: no step, or exactly one step with no call."""
    return len(steps) == 0 or (len(steps) == 1 and len(steps[0]) == 0)


def _differences(model: BfclWorld, gold: BfclWorld) -> str | None:
    for class_name in gold.instances:
        ours = vars(model.instances[class_name])
        for attr, expected in vars(gold.instances[class_name]).items():
            if attr.startswith("_"):
                continue
            if ours.get(attr, _MISSING) != expected:
                return f"{class_name}.{attr} differs from the gold state"
    return None


_MISSING = object()


def _missing(gold: list[str], model: list[str]) -> list[str]:
    pool = list(model)
    missing = []
    for item in gold:
        try:
            pool.remove(item)
        except ValueError:
            missing.append(item)
    return missing


def check_multi_turn(
    entry: dict[str, Any],
    ground_truth: Sequence[Sequence[str]],
    decoded: Sequence[Sequence[Sequence[str]]],
    *,
    strict_empty_turns: bool = False,
) -> MultiTurnVerdict:
    """The verdict on `decoded` ([turn][step][call string]) for BFCL entry `entry`
    (`initial_config`, `involved_classes`, `id`) with possible answer `ground_truth`."""
    if len(decoded) != len(ground_truth):
        # BFCL's harness always records one list per turn; a file that does not is rejected.
        message = f"{len(decoded)} turns of model output for {len(ground_truth)} gold turns"
        return MultiTurnVerdict(False, TURN_COUNT, message)
    category = str(entry.get("id", "")).rsplit("_", 1)[0]
    long_context = "long_context" in category or "composite" in category
    classes = list(entry.get("involved_classes") or [])
    config = entry.get("initial_config") or {}
    model = BfclWorld(classes, config, long_context=long_context)
    gold = BfclWorld(classes, config, long_context=long_context)
    so_far: list[str] = []
    turns: list[TurnCheck] = []
    for index, (gold_calls, steps) in enumerate(zip(ground_truth, decoded, strict=True)):
        for step in steps:
            so_far.extend(model.execute_all(step))
        gold_results = gold.execute_all(gold_calls)
        turns.append(
            _judge_turn(
                index, gold_calls, steps, model, gold, gold_results, so_far, strict_empty_turns
            )
        )
    first = next((t for t in turns if not t.valid), None)
    if first is None:
        return MultiTurnVerdict(True, turns=turns)
    return MultiTurnVerdict(False, first.error_type, first.error, turns)


def _judge_turn(
    index: int,
    gold_calls: Sequence[str],
    steps: Sequence[Sequence[str]],
    model: BfclWorld,
    gold: BfclWorld,
    gold_results: list[str],
    so_far: list[str],
    strict_empty_turns: bool,
) -> TurnCheck:
    if not gold_calls:
        if strict_empty_turns and not is_empty_turn(steps):
            return TurnCheck(
                index, False, IRRELEVANCE, f"calls made in turn {index}, whose gold is empty"
            )
        return TurnCheck(index, True, checked=False)
    if is_empty_turn(steps):
        return TurnCheck(index, False, EMPTY_TURN, f"Model response list is empty for turn {index}")
    why = _differences(model, gold)
    if why is not None:
        return TurnCheck(index, False, STATE_MISMATCH, f"turn {index}: {why}")
    missing = _missing(gold_results, so_far)
    if missing:
        return TurnCheck(
            index,
            False,
            RESPONSE_MISMATCH,
            f"turn {index}: {len(missing)} gold result(s) not among the model's results so "
            f"far, e.g. {missing[0][:120]!r}",
        )
    return TurnCheck(index, True)
