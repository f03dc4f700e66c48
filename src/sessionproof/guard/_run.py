"""The decision procedure for one guarded call, shared by the production and harness paths.

The procedure, per call: check the arguments (repair, no call), check the breaker (fail
fast, no call), then attempt; after each attempt judge the outcome once:

- success → validate the output (output_invalid) or pass;
- escalate class → escalate (hook called, the agent told to stop and inform/transfer);
- not retryable → pass the error through (the agent must read it);
- retryable but a write whose outcome is unknown and carries no idempotency key →
  no_retry_write (the agent told to check before retrying);
- retryable and the breaker just opened → breaker_open;
- retryable and safe → retry after Retry-After (when the failure names one) or exponential
  backoff with jitter, until attempts or the wait budget run out (then pass, with advice).

The retry loop itself is tenacity's; `_Again` is how a judged attempt asks it for another.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tenacity import RetryCallState

from ..records import ErrorClass
from ..taxonomy import ErrorAction, semantics
from ..taxonomy._internal import may_replay
from ._hints import RepairHint, SchemaCheck
from ._records import Decision, Escalation, GuardDecision

if TYPE_CHECKING:
    from ._core import Guard

_UNSET: Any = object()


@dataclass(slots=True)
class ToolPolicy:
    """What the guard knows about one tool."""

    name: str
    write: bool = False
    idempotent: bool = False
    idempotency_key: str | None = None
    args_check: SchemaCheck | None = None
    output_check: SchemaCheck | None = None


@dataclass(slots=True)
class Attempt:
    """What one call of the tool gave."""

    ok: bool
    text: str
    value: Any = None
    error_class: ErrorClass | None = None
    retry_after: float | None = None
    injected: bool = False
    data: Any = _UNSET
    """The answer as JSON data, for output validation (parsed from `text` when unset)."""

    def parsed(self) -> Any:
        """The answer as JSON data (the text itself when it is not JSON)."""
        if self.data is _UNSET:
            try:
                self.data = json.loads(self.text)
            except ValueError:
                self.data = self.text
        return self.data


@dataclass(slots=True)
class Final:
    """How a guarded call ended."""

    decision: Decision
    output: str
    error_class: ErrorClass | None = None
    attempt: Attempt | None = None
    attempts: int = 0
    hints: list[RepairHint] = field(default_factory=list)


class _Again(Exception):
    """Raised inside the tenacity loop: this attempt failed and may be retried."""

    def __init__(self, attempt: Attempt, number: int) -> None:
        super().__init__(attempt.text)
        self.attempt = attempt
        self.number = number


class GuardRun:
    """One guarded call in progress: judges attempts and reports decisions."""

    def __init__(
        self,
        guard: Guard,
        policy: ToolPolicy,
        call_id: str | None,
        args: dict[str, Any] | None,
        parse_error: str | None = None,
        emit: Callable[[GuardDecision], None] | None = None,
    ) -> None:
        self.guard = guard
        self.policy = policy
        self.call_id = call_id
        self.args = args
        self.parse_error = parse_error
        self.emit = emit
        key = policy.idempotency_key
        self.has_idempotency_key = bool(key and args and args.get(key) not in (None, ""))
        self.attempts = 0
        self.decisions: list[GuardDecision] = []

    def report(
        self,
        decision: Decision,
        error_class: ErrorClass | None = None,
        *,
        attempt: int | None = None,
        wait_s: float = 0.0,
        detail: str = "",
        injected: bool = False,
    ) -> None:
        """Record one decision and tell whoever listens."""
        record = GuardDecision(
            tool=self.policy.name,
            decision=decision,
            call_id=self.call_id,
            error_class=error_class,
            attempt=self.attempts if attempt is None else attempt,
            wait_s=wait_s,
            detail=detail,
            injected=injected,
        )
        self.decisions.append(record)
        if self.emit is not None:
            self.emit(record)
        if self.guard.on_decision is not None:
            self.guard.on_decision(record)

    def finish(self, final: Final, detail: str = "") -> Final:
        """Report the final decision and return it."""
        final.attempts = self.attempts
        injected = final.attempt.injected if final.attempt else False
        self.report(final.decision, final.error_class, detail=detail, injected=injected)
        return final

    def precheck(self) -> Final | None:
        """Repair or breaker answers that need no call; None when the call may go."""
        name, args, parse_error = self.policy.name, self.args, self.parse_error
        if args is None:
            hint = RepairHint(
                path="(arguments)",
                rule="json",
                problem=f"the arguments are not a JSON object ({parse_error or 'no object'})",
                expected="a JSON object of named arguments",
            )
            return self.finish(self._repair([hint]), hint.problem)
        check = self.policy.args_check
        if check is not None and self.guard.config.validate_arguments:
            hints = check.hints(args)
            if hints:
                return self.finish(self._repair(hints), "; ".join(h.text() for h in hints))
        breaker = self.guard.breaker(name)
        if not breaker.allow():
            wait = breaker.retry_in()
            text = (
                f"Error: {name} is temporarily unavailable: its circuit breaker is open after "
                f"{breaker.failures} consecutive failures, so the call was not sent. Try again "
                f"in about {wait:.0f} seconds, or tell the user the service is having problems."
            )
            final = Final(Decision.breaker_open, text, ErrorClass.unavailable)
            return self.finish(final, f"open for {wait:.1f}s more")
        return None

    def _repair(self, hints: list[RepairHint]) -> Final:
        lines = "\n".join(f"- {h.text()}" for h in hints)
        text = (
            f"Error: invalid arguments for {self.policy.name}; the call was not sent. "
            f"Fix these and call again:\n{lines}"
        )
        return Final(Decision.repair, text, ErrorClass.validation_error, hints=hints)

    def judge(self, attempt: Attempt) -> Final:
        """Decide after one attempt; raises `_Again` to ask tenacity for another."""
        self.attempts += 1
        policy, breaker = self.policy, self.guard.breaker(self.policy.name)
        if attempt.ok:
            breaker.record(True)
            check = policy.output_check
            if check is not None and self.guard.config.validate_outputs:
                problems = check.problems(attempt.parsed())
                if problems:
                    return self._output_invalid(attempt, problems)
            return self.finish(Final(Decision.pass_, attempt.text, None, attempt))
        error_class = attempt.error_class or ErrorClass.unknown
        sem = semantics(error_class)
        breaker.record(not sem.trips_breaker)
        if sem.action is ErrorAction.escalate:
            return self._escalate(attempt, error_class)
        if not sem.retryable:
            return self.finish(Final(Decision.pass_, attempt.text, error_class, attempt))
        if not may_replay(
            error_class,
            write=policy.write,
            idempotent=policy.idempotent,
            has_idempotency_key=self.has_idempotency_key,
        ):
            text = (
                f"{attempt.text}\n{policy.name} changes data, and after this failure "
                f"({error_class}) the operation may or may not have happened. Check its "
                "current state (look the record up) before retrying; never repeat it blindly."
            )
            final = Final(Decision.no_retry_write, text, error_class, attempt)
            return self.finish(final, "write with unknown outcome and no idempotency key")
        if breaker.opened_at is not None:
            text = (
                f"{attempt.text}\n{policy.name} failed {breaker.failures} times in a row; "
                "the guard stopped calling it for now. Tell the user the service is having "
                "problems."
            )
            final = Final(Decision.breaker_open, text, error_class, attempt)
            return self.finish(final, f"breaker opened after {breaker.failures} failures")
        limit = self.guard.config.max_retry_after_s
        if attempt.retry_after is not None and attempt.retry_after > limit:
            text = (
                f"{attempt.text}\nThe service asks to wait {attempt.retry_after:g} seconds, "
                "too long to wait now: tell the user and offer to try again later."
            )
            final = Final(Decision.pass_, text, error_class, attempt)
            return self.finish(final, f"retry-after {attempt.retry_after:g}s above {limit:g}s")
        raise _Again(attempt, self.attempts)

    def _output_invalid(self, attempt: Attempt, problems: list[str]) -> Final:
        shown = attempt.text if len(attempt.text) <= 2000 else attempt.text[:2000] + "..."
        text = (
            f"Error: the response of {self.policy.name} does not match its output schema "
            f"({'; '.join(problems[:5])}). Treat its content with care.\nResponse: {shown}"
        )
        final = Final(Decision.output_invalid, text, ErrorClass.schema_mismatch, attempt)
        return self.finish(final, "; ".join(problems[:5]))

    def _escalate(self, attempt: Attempt, error_class: ErrorClass) -> Final:
        name = self.policy.name
        text = (
            f"{attempt.text}\nThis cannot be fixed by retrying ({error_class}). Do not call "
            f"{name} again for this request: tell the user what happened, or transfer to a "
            "human agent if the user needs it done."
        )
        if self.guard.on_escalate is not None:
            self.guard.on_escalate(
                Escalation(
                    tool=name, error_class=error_class, message=attempt.text, call_id=self.call_id
                )
            )
        return self.finish(Final(Decision.escalate, text, error_class, attempt), str(error_class))

    def gave_up(self, again: _Again) -> Final:
        """The final answer once retries ran out."""
        attempt = again.attempt
        text = (
            f"{attempt.text}\nThe call failed {self.attempts} times; the tool keeps failing. "
            "Tell the user it is having problems and offer to try again later."
        )
        final = Final(Decision.pass_, text, attempt.error_class, attempt)
        return self.finish(final, f"gave up after {self.attempts} attempts")

    def before_sleep(self, state: RetryCallState) -> None:
        """tenacity hook: report the retry and the wait it chose."""
        exc = state.outcome.exception() if state.outcome else None
        if not isinstance(exc, _Again):
            return
        wait = float(state.upcoming_sleep)
        source = "retry-after" if exc.attempt.retry_after is not None else "backoff"
        self.report(
            Decision.retry,
            exc.attempt.error_class,
            attempt=exc.number,
            wait_s=wait,
            detail=f"{source} {wait:.3g}s",
            injected=exc.attempt.injected,
        )
