"""The guard: wraps plain Python tools with validation, classified retries and a breaker."""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Awaitable, Callable, Mapping
from types import EllipsisType
from typing import Any, overload

from tenacity import AsyncRetrying, RetryCallState, Retrying, retry_if_exception_type
from tenacity.wait import wait_exponential

from ..errors import ConfigError
from ..records import ErrorClass
from ..records._internal import parse_arguments
from ._breaker import CircuitBreaker
from ._calls import (
    attempt_from_exception,
    attempt_from_value,
    unknown_tool_hint,
    unknown_tool_text,
)
from ._clock import Clock, SystemClock
from ._hints import SchemaCheck
from ._records import Decision, Escalation, GuardConfig, GuardDecision, GuardResult
from ._run import Attempt, Final, GuardRun, ToolPolicy, _Again
from ._timeout import await_in_thread, call_in_thread, check_timeout, is_async, timed_out

ToolFn = Callable[..., Any]
"""A tool: a sync or async callable taking keyword arguments."""


class Guard:
    """Production scaffolding around tool calls: validate, classify, retry, break, escalate.

    One guard holds one circuit breaker per tool name; share it across the calls of a
    process (or, in the harness, of a session). `clock` decides how time passes: the real
    one by default, a `VirtualClock` in tests. `timeout_s` bounds every call of a wrapped
    tool (default `config.timeout_s`, 30 s, for async tools; a sync tool is timed, on a
    worker thread, only when a timeout is asked for explicitly here, in the config or in
    `wrap`; None: no limit).
    """

    def __init__(
        self,
        config: GuardConfig | None = None,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        on_decision: Callable[[GuardDecision], None] | None = None,
        on_escalate: Callable[[Escalation], None] | None = None,
        timeout_s: float | EllipsisType | None = ...,
    ) -> None:
        self.config = config or GuardConfig()
        if timeout_s is not ...:
            # model_copy does not validate, so the value is checked here.
            checked = check_timeout(timeout_s, "Guard")
            self.config = self.config.model_copy(update={"timeout_s": checked})
        self.clock: Clock = clock or SystemClock()
        self.rng = rng or random.Random()
        """Jitter source; seed it for reproducible waits."""
        self.on_decision = on_decision
        """Called with every decision (retries included), as it is taken."""
        self.on_escalate = on_escalate
        """Called when a failure needs a human (expired credentials, a policy refusal)."""
        self._breakers: dict[str, CircuitBreaker] = {}
        self._tools: dict[str, GuardedTool] = {}
        c = self.config
        self._exp = wait_exponential(
            multiplier=c.wait_initial_s, exp_base=c.wait_exp_base, max=c.wait_max_s
        )
        self._retry_on = retry_if_exception_type(_Again)

    # -- registration -------------------------------------------------------------------

    def wrap(
        self,
        fn: ToolFn,
        *,
        name: str | None = None,
        schema: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        write: bool = False,
        idempotent: bool = False,
        idempotency_key: str | None = None,
        timeout_s: float | EllipsisType | None = ...,
    ) -> GuardedTool:
        """Guard `fn` and register it under `name` (default: the function's name).

        `schema` is the JSON Schema of its arguments (checked before every call),
        `output_schema` that of its result; `write=True` marks a tool that changes state
        (never blindly re-sent), unless `idempotent` or the call carries `idempotency_key`.
        `timeout_s` bounds each call (default: the guard's for an async tool, and for a sync
        tool only when the guard's was set explicitly; None: no limit); a sync tool with a
        limit runs on a worker thread, so it never blocks the event loop.
        Raises `ConfigError` for an invalid schema or timeout.
        """
        tool_name = name or getattr(fn, "__name__", None)
        if not tool_name or not callable(fn):
            raise ConfigError("guard.wrap needs a callable with a name (pass name=...)")
        policy = ToolPolicy(
            name=tool_name,
            write=write,
            idempotent=idempotent,
            idempotency_key=idempotency_key,
            args_check=SchemaCheck(schema, f"{tool_name} arguments") if schema else None,
            output_check=SchemaCheck(output_schema, f"{tool_name} output")
            if output_schema
            else None,
        )
        if timeout_s is not ...:
            limit = timeout_s
        elif is_async(fn) or "timeout_s" in self.config.model_fields_set:
            limit = self.config.timeout_s
        else:
            # The default alone does not move a sync tool onto a worker thread: thread-bound
            # tools (an sqlite connection, a non-thread-safe client) would break, and an
            # inline call costs ~10 µs where a thread hand-off costs ~150 µs. Asking for a
            # timeout, here or on the guard, opts in.
            limit = None
        guarded = GuardedTool(self, fn, policy, check_timeout(limit, tool_name))
        self._tools[tool_name] = guarded
        return guarded

    @overload
    def tool(self, fn: ToolFn, /) -> GuardedTool: ...

    @overload
    def tool(self, fn: None = None, /, **options: Any) -> Callable[[ToolFn], GuardedTool]: ...

    def tool(
        self, fn: ToolFn | None = None, /, **options: Any
    ) -> GuardedTool | Callable[[ToolFn], GuardedTool]:
        """Decorator form of `wrap`: `@guard.tool` or `@guard.tool(schema=..., write=True)`."""
        if fn is not None:
            return self.wrap(fn, **options)
        return lambda f: self.wrap(f, **options)

    def breaker(self, tool: str) -> CircuitBreaker:
        """The circuit breaker of one tool (created closed on first use)."""
        breaker = self._breakers.get(tool)
        if breaker is None:
            c = self.config
            breaker = CircuitBreaker(c.breaker_threshold, c.breaker_cooldown_s, self.clock)
            self._breakers[tool] = breaker
        return breaker

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        call_id: str | None = None,
    ) -> GuardResult:
        """Run a registered tool by name, as a model asked for it (arguments may be JSON)."""
        tool = self._tools.get(name)
        if tool is None:
            return self._unknown(name, call_id)
        return await tool(arguments, call_id=call_id)

    def _unknown(self, name: str, call_id: str | None) -> GuardResult:
        hint = unknown_tool_hint(name, list(self._tools))
        run = GuardRun(self, ToolPolicy(name=name), call_id, {})
        final = Final(Decision.repair, unknown_tool_text(hint), ErrorClass.validation_error)
        final.hints.append(hint)
        run.finish(final, hint.problem)
        return _result(name, final, run)

    # -- the retry loop (tenacity's) ------------------------------------------------------

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Again) and exc.attempt.retry_after is not None:
            return exc.attempt.retry_after
        c = self.config
        jitter = self.rng.uniform(0.0, c.wait_jitter_s) if c.wait_jitter_s else 0.0
        return float(min(c.wait_max_s, self._exp(state) + jitter))

    def _stop(self, state: RetryCallState) -> bool:
        c = self.config
        waited = state.idle_for + (state.upcoming_sleep or 0.0)
        return state.attempt_number >= c.max_attempts or waited > c.max_total_wait_s

    async def run_async(self, run: GuardRun, attempt: Callable[[], Awaitable[Attempt]]) -> Final:
        """Drive one call: prechecks, then attempts under tenacity until judged final."""
        early = run.precheck()
        if early is not None:
            return early
        # tenacity's async loop costs tens of µs even when nothing fails, so the first
        # attempt runs outside it; a failure is replayed into the loop as its attempt 1, so
        # every wait, stop and attempt number after it is still tenacity's.
        try:
            return run.judge(await attempt())
        except _Again as failed:
            first: _Again | None = failed

        async def once() -> Final:
            nonlocal first
            if first is not None:
                replay, first = first, None
                raise replay
            return run.judge(await attempt())

        retrying = AsyncRetrying(
            sleep=self.clock.sleep,
            stop=self._stop,
            wait=self._wait,
            retry=self._retry_on,
            before_sleep=run.before_sleep,
            reraise=True,
        )
        try:
            final: Final = await retrying(once)
        except _Again as again:
            final = run.gave_up(again)
        return final

    def run_sync(self, run: GuardRun, attempt: Callable[[], Attempt]) -> Final:
        """`run_async` for synchronous tools, waiting with `clock.sleep_sync`."""
        early = run.precheck()
        if early is not None:
            return early
        try:
            return run.judge(attempt())
        except _Again as failed:
            first: _Again | None = failed

        def once() -> Final:
            nonlocal first
            if first is not None:
                replay, first = first, None
                raise replay
            return run.judge(attempt())

        retrying = Retrying(
            sleep=self.clock.sleep_sync,
            stop=self._stop,
            wait=self._wait,
            retry=self._retry_on,
            before_sleep=run.before_sleep,
            reraise=True,
        )
        try:
            final: Final = retrying(once)
        except _Again as again:
            final = run.gave_up(again)
        return final


def _result(name: str, final: Final, run: GuardRun) -> GuardResult:
    attempt = final.attempt
    ok = final.decision is Decision.pass_ and final.error_class is None
    return GuardResult(
        tool=name,
        ok=ok,
        output=final.output,
        value=attempt.value if ok and attempt is not None else None,
        error_class=final.error_class,
        decision=final.decision,
        attempts=final.attempts,
        hints=final.hints,
        decisions=run.decisions,
    )


class GuardedTool:
    """A tool wrapped by a `Guard`. Await it with the model's arguments; get a `GuardResult`."""

    def __init__(
        self, guard: Guard, fn: ToolFn, policy: ToolPolicy, timeout_s: float | None = None
    ) -> None:
        self.guard = guard
        self.fn = fn
        self.policy = policy
        self.name = policy.name
        self.timeout_s = timeout_s
        """Seconds one call may take (None: no limit)."""
        self._async = is_async(fn)

    async def _invoke(self, args: dict[str, Any]) -> Any:
        if self.timeout_s is None or self._async:
            value = self.fn(**args)  # no limit to keep: called inline, the cheapest way
        else:
            value = await await_in_thread(self.fn, args)
        if inspect.isawaitable(value):
            value = await value
        return value

    def _run(
        self, arguments: Mapping[str, Any] | str | None, call_id: str | None, kwargs: dict[str, Any]
    ) -> GuardRun:
        if arguments is None and kwargs:
            arguments = kwargs
        raw = dict(arguments) if isinstance(arguments, Mapping) else arguments
        args, why = parse_arguments(raw)
        return GuardRun(self.guard, self.policy, call_id, args, why or "")

    async def __call__(
        self,
        arguments: Mapping[str, Any] | str | None = None,
        /,
        *,
        call_id: str | None = None,
        **kwargs: Any,
    ) -> GuardResult:
        """Call the tool under the guard (a sync tool with a timeout runs in a thread)."""
        run = self._run(arguments, call_id, kwargs)
        args = run.args or {}

        async def attempt() -> Attempt:
            timer = asyncio.timeout(self.timeout_s)
            try:
                async with timer:
                    value = await self._invoke(args)
            except Exception as exc:
                # A TimeoutError the tool raised itself is its own failure, not ours.
                if isinstance(exc, TimeoutError) and timer.expired():
                    return timed_out(self.name, self.timeout_s or 0.0)
                return attempt_from_exception(exc)
            return attempt_from_value(value)

        final = await self.guard.run_async(run, attempt)
        return _result(self.name, final, run)

    def call_sync(
        self,
        arguments: Mapping[str, Any] | str | None = None,
        /,
        *,
        call_id: str | None = None,
        **kwargs: Any,
    ) -> GuardResult:
        """Call a synchronous tool under the guard, from synchronous code."""
        if inspect.iscoroutinefunction(self.fn):
            raise ConfigError(f"{self.name} is async: await the guarded tool instead")
        run = self._run(arguments, call_id, kwargs)
        args = run.args or {}

        def attempt() -> Attempt:
            try:
                if self.timeout_s is None:
                    value = self.fn(**args)
                else:
                    answered, value = call_in_thread(self.fn, args, self.timeout_s)
                    if not answered:
                        return timed_out(self.name, self.timeout_s)
            except Exception as exc:
                return attempt_from_exception(exc)
            return attempt_from_value(value)

        final = self.guard.run_sync(run, attempt)
        return _result(self.name, final, run)
