"""`python:pkg.module:function`: a user's own agent function, wrapped as an `Agent`."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

from ..errors import InfraError, ModelSpecError
from ..records import ErrorClass, Message
from ._parse import unusable_reply
from ._protocol import AgentRequest, AgentResponse, OutputIssue


def load_function(target: str) -> Callable[..., Any]:
    """Import `pkg.module:function` (the function may be a dotted attribute path).

    Raises `ModelSpecError` when the module cannot be imported or the name is not callable.
    """
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ModelSpecError(f"expected python:pkg.module:function, got python:{target}")
    try:
        module = _import(module_name)
    except Exception as exc:  # any failure inside the user's module is a bad spec for us
        raise ModelSpecError(
            f"cannot import {module_name!r} for python:{target}: {type(exc).__name__}: {exc}"
        ) from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ModelSpecError(f"{module_name!r} has no attribute {attr!r} (python:{target})")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ModelSpecError(f"python:{target} is not callable")
    fn: Callable[..., Any] = obj
    return fn


def _import(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # A console script does not put the working directory on sys.path the way
        # `python -m` does; users expect their agent file next to them to be found.
        top = module_name.split(".")[0]
        cwd = os.getcwd()
        if exc.name != top or cwd in sys.path:
            raise
        sys.path.insert(0, cwd)
        return importlib.import_module(module_name)


class PythonAgent:
    """Calls a user function (sync or async) with each `AgentRequest`.

    The function returns an `AgentResponse` or a `Message`. A wrong return type, or an
    exception other than `InfraError`, becomes a classified issue on an empty reply, so one
    bad step is the agent's failure and not a crashed run; `InfraError` passes through.
    """

    plays_users = False
    """A user function is not assumed to be a language model: it is never asked to play
    the simulated user (a function that wants to must be wrapped in an agent that says so)."""

    def __init__(self, fn: Callable[..., Any], name: str) -> None:
        self.name = name
        self._fn = fn

    async def respond(self, request: AgentRequest) -> AgentResponse:
        """Call the function and normalise its answer."""
        try:
            reply = self._fn(request)
            if inspect.isawaitable(reply):
                reply = await reply
        except InfraError:
            raise
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
        """Nothing to release."""
