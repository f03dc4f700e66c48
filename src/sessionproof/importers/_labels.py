"""Outcome labels in foreign traces: which attribute carries a session's verdict
(`--label-from NAME`, `NAME>=N` for a numeric score), and how its value reads as pass or fail.

Teams record outcomes every which way: a boolean, 1/0, "pass", "success", a thumbs-up from a
user, a 0..1 score. One table maps the words; a number other than 0 or 1 needs a threshold,
because no default cut-off between pass and fail is right for every score.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..errors import ConfigError
from ..records import CriterionResult, Event, EventKind, Outcome, Session
from ..records._internal import VerdictEvent, make_event
from ._common import RecordError

_PASS = frozenset(
    {
        "true",
        "t",
        "yes",
        "y",
        "pass",
        "passed",
        "success",
        "succeeded",
        "successful",
        "ok",
        "correct",
        "c",
        "resolved",
        "good",
        "positive",
        "thumbs_up",
        "thumbsup",
        "up",
        "👍",
        "+1",
    }
)
_FAIL = frozenset(
    {
        "false",
        "f",
        "no",
        "n",
        "fail",
        "failed",
        "failure",
        "error",
        "incorrect",
        "i",
        "unresolved",
        "bad",
        "negative",
        "thumbs_down",
        "thumbsdown",
        "down",
        "👎",
        "-1",
    }
)
KNOWN_LABELS = (
    "true/false, 1/0, pass/fail, success/failure, correct/incorrect (C/I), thumbs_up/down"
)
"""What the error for an unmappable value lists."""

_SPEC = re.compile(r"^\s*(?P<name>[^<>=\s][^<>=]*?)\s*(?:>=\s*(?P<threshold>\S+))?\s*$")

LABEL_CRITERION = "label"
"""Name of the criterion an outcome read from a label carries (its evidence names the label)."""


@dataclass(frozen=True)
class LabelRule:
    """Where a session's outcome label is (`name`) and, for a numeric score, the pass mark."""

    name: str
    threshold: float | None = None

    @classmethod
    def parse(cls, spec: str) -> LabelRule:
        """`NAME` or `NAME>=N`; raises ConfigError for anything else."""
        match = _SPEC.match(spec)
        if match is None:
            raise ConfigError(
                f"--label-from {spec!r}: expected NAME or NAME>=N (a number: pass at or above it)"
            )
        raw = match.group("threshold")
        threshold = None
        if raw is not None:
            try:
                threshold = float(raw)
            except ValueError:
                threshold = math.nan
            if not math.isfinite(threshold):
                raise ConfigError(f"--label-from {spec!r}: the threshold {raw!r} is not a number")
        return cls(match.group("name"), threshold)

    def __str__(self) -> str:
        return self.name if self.threshold is None else f"{self.name}>={self.threshold:g}"

    def outcome(self, value: object) -> Outcome:
        """The outcome `value` says; raises ValueError (saying what would do) when it is no
        pass/fail label."""
        success, reward = self._read(value)
        evidence = f"{self}: {value!r}"
        return Outcome(
            success=success,
            reward=reward,
            criteria=[CriterionResult(name=LABEL_CRITERION, passed=success, evidence=evidence)],
        )

    def _read(self, value: object) -> tuple[bool, float]:
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if isinstance(value, bool):
            return value, float(value)
        if isinstance(value, int | float):
            return self._number(float(value))
        if isinstance(value, str):
            word = value.strip().lower().replace("-", "_").replace(" ", "_")
            try:
                number = float(word)
            except ValueError:
                number = math.nan
            if math.isfinite(number) and word not in ("+1", "-1"):
                return self._number(number)
            if word in _PASS:
                return True, 1.0
            if word in _FAIL:
                return False, 0.0
        raise ValueError(f"{self.name}={value!r} is not a pass/fail label (known: {KNOWN_LABELS})")

    def _number(self, number: float) -> tuple[bool, float]:
        if not math.isfinite(number):
            raise ValueError(f"{self.name}={number!r} is not a finite number")
        if self.threshold is not None:
            return number >= self.threshold, number
        if number in (0.0, 1.0):
            return number == 1.0, number
        raise ValueError(
            f"{self.name}={number:g} is a score, not a pass/fail label: give the pass mark, "
            f"--label-from '{self.name}>=N'"
        )


def label_rule(spec: str | LabelRule | None) -> LabelRule | None:
    """`spec` as a rule (None stays None)."""
    if spec is None or isinstance(spec, LabelRule):
        return spec
    return LabelRule.parse(spec)


def set_outcome(session: Session, outcome: Outcome | None) -> None:
    """Make `outcome` the session's verdict: its `outcome` and its verdict event (the one it
    had is replaced, else one is appended, as the engine records it). None clears both."""
    session.outcome = outcome
    events: list[Event] = [e for e in session.events if not isinstance(e, VerdictEvent)]
    if outcome is not None:
        last = events[-1] if events else None
        events.append(
            make_event(
                EventKind.verdict,
                outcome,
                run_id=session.run_id,
                session_id=session.session_id,
                seq=0,
                turn=last.turn if last else 0,
                step=last.step if last else 0,
                t_wall=last.t_wall if last else session.ended_at,
                t_mono=last.t_mono if last else 0.0,
            )
        )
    session.events = [e.model_copy(update={"seq": i}) for i, e in enumerate(events)]


def label_session(
    session: Session, rule: LabelRule, value: object, *, index: int, where: str = ""
) -> RecordError | None:
    """Make the outcome `rule` reads in `value` the session's verdict. A value that reads as
    neither pass nor fail leaves the session without an outcome (a guessed verdict would be
    worse than none) and comes back as a non-fatal `RecordError`, `where` naming what
    carried the value."""
    try:
        outcome = rule.outcome(value)
    except ValueError as exc:
        set_outcome(session, None)
        return RecordError(
            index=index,
            field=rule.name,
            message=f"{where}{exc}; kept without an outcome",
            record_id=session.session_id,
            fatal=False,
        )
    set_outcome(session, outcome)
    return None
