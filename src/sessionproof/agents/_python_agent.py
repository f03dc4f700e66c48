"""`python:pkg.module:function`: a user's own agent function, wrapped as an `Agent`."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from .._plugins import resolve
from ..errors import ConfigError, InfraError, ModelSpecError
from ..records import ErrorClass, Message
from ._parse import unusable_reply
from ._protocol import AgentFailure, AgentRequest, AgentResponse, OutputIssue


def load_function(target: str) -> Callable[..., Any]:
    """Import `pkg.module:function` (the function may be a dotted attribute path).

    Raises `ModelSpecError` when the module cannot be imported or the name is not callable.
    """
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ModelSpecError(f"expected python:pkg.module:function, got python:{target}")
    try:
        obj = _resolve(target, module_name)
    except ConfigError as exc:
        missing = exc.__cause__
        if isinstance(missing, ModuleNotFoundError):
            raise ModelSpecError(_cannot_import(module_name, target, missing)) from None
        if module_name not in sys.modules:  # the module itself raised it
            raise ModelSpecError(_cannot_import(module_name, target, exc)) from None
        raise ModelSpecError(
            f"{module_name!r} has no attribute {attr!r} (python:{target})"
        ) from None
    except Exception as exc:  # any failure inside the user's module is a bad spec for us
        raise ModelSpecError(_cannot_import(module_name, target, exc)) from None
    if not callable(obj):
        raise ModelSpecError(f"python:{target} is not callable")
    fn: Callable[..., Any] = obj
    return fn


def _cannot_import(module_name: str, target: str, exc: BaseException) -> str:
    return f"cannot import {module_name!r} for python:{target}: {type(exc).__name__}: {exc}"


def _resolve(target: str, module_name: str) -> Any:
    try:
        return resolve(target, what="python agent")
    except ConfigError as exc:
        # A console script does not put the working directory on sys.path the way
        # `python -m` does; users expect their agent file next to them to be found.
        missing, cwd = exc.__cause__, os.getcwd()
        top = module_name.split(".")[0]
        if not isinstance(missing, ModuleNotFoundError) or missing.name != top or cwd in sys.path:
            raise
        sys.path.insert(0, cwd)
        return resolve(target, what="python agent")


def _is_async(fn: Callable[..., Any]) -> bool:
    """True for a coroutine function (or an object whose `__call__` is one)."""
    call = getattr(fn, "__call__", None)  # noqa: B004  an object's own __call__ is asked too
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


class PythonAgent:
    """Calls a user function (sync or async) with each `AgentRequest`.

    The function returns an `AgentResponse` or a `Message`. A wrong return type, or an
    exception other than `InfraError`, becomes a classified issue on an empty reply, so one
    bad step is the agent's failure and not a crashed run; `InfraError` passes through. A
    `SystemExit` (`sys.exit()` in the function) ends that session as the agent's failure
    (`AgentFailure`), not the run.

    A plain (sync) function runs in a worker thread: one that blocks (an HTTP call to a
    model) holds neither the event loop nor the other sessions, and `--agent-timeout` ends
    the decision when it is due (the thread itself cannot be stopped: it finishes in the
    background and its answer is dropped).
    """

    plays_users = False
    """A user function is not assumed to be a language model: it is never asked to play
    the simulated user (a function that wants to must be wrapped in an agent that says so)."""

    def __init__(self, fn: Callable[..., Any], name: str) -> None:
        self.name = name
        self._fn = fn
        self._async = _is_async(fn)

    async def _call(self, request: AgentRequest) -> Any:
        if self._async:
            return await self._fn(request)
        reply = await _in_thread(self._fn, request)
        if inspect.isawaitable(reply):  # a plain function handing back a coroutine
            reply = await reply
        return reply

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Call the function and normalise its answer."""
        try:
            reply = await self._call(request)
        except InfraError:
            raise
        except SystemExit as exc:
            # A function asking the interpreter to exit stops its own session, as the
            # agent's failure; the run (the other sessions, the store) goes on.
            raise AgentFailure(
                ErrorClass.unknown, f"the agent function called exit({exc.code!r})"
            ) from None
        except Exception as exc:
            return unusable_reply(
                ErrorClass.unknown, f"the agent function raised {type(exc).__name__}: {exc}"
            )
        if isinstance(reply, AgentResponse):
            return reply
        if isinstance(reply, Message):
            if reply.role == "assistant":
                return AgentResponse(message=reply)
            fixed = Message.assistant(reply.content, reply.tool_calls)
            issue = OutputIssue(
                error_class=ErrorClass.malformed_output,
                message=f"the agent function returned a {reply.role!r} message; read as assistant",
            )
            return AgentResponse(message=fixed, issues=[issue])
        return unusable_reply(
            ErrorClass.malformed_output,
            f"the agent function returned {type(reply).__name__}, "
            "expected an AgentResponse or a Message",
        )

    async def aclose(self) -> None:
        """Nothing to release (a thread still blocked in the function ends with it)."""


async def _in_thread(fn: Callable[..., Any], request: AgentRequest) -> Any:
    """`fn(request)` on a daemon thread of its own. Not a thread pool: a pool's threads are
    joined when the interpreter exits, so one agent function blocked for good would keep a
    finished run from ever exiting; nor would a bounded pool let every session block at once."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: Any) -> None:
        if answer.done():  # the decision timed out, or the session was cancelled
            return
        if ok:
            answer.set_result(value)
        else:
            answer.set_exception(value)

    def work() -> None:
        try:
            result: tuple[bool, Any] = (True, context.run(fn, request))
        except BaseException as exc:  # SystemExit too: the session's, not the thread's
            result = (False, exc)
        # A closed loop (RuntimeError): nobody waits for this answer any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *result)

    threading.Thread(target=work, name="python-agent", daemon=True).start()
    return await answer
