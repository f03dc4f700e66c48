"""BFCL multi-turn execution: call strings parsed safely, run on BFCL's own class instances.

BFCL executes a model's decoded calls with `eval` on instances it keeps in module globals.
This module follows the same semantics without `eval`: a call string is parsed with `ast`
(a function name, literal positional and keyword arguments, nested calls allowed as
arguments), dispatched to the method of that name on the involved instances (a name several
classes define goes to the last of them, as in BFCL), and its result rendered as BFCL renders
it: text as is, a dict as JSON (its `str` when not serialisable), anything else by `str`;
a failure as `Error during execution: <message>`.
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ._mt_package import STATELESS_CLASSES, api_class

BLOCKED = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
"""Function names BFCL refuses to execute, whatever class defines them."""

ERROR_PREFIX = "Error during execution: "


class CallSyntaxError(Exception):
    """A call string that is not `name(literal args...)`."""


@dataclass(frozen=True)
class ParsedCall:
    """One decoded call: a function name and its arguments."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    nested: bool = False
    """True when some argument is itself a call (executed before this one)."""
    node: ast.Call | None = None


def parse_call(text: str) -> ParsedCall:
    """`"cd(folder='document')"` → ParsedCall("cd", (), {"folder": "document"}).

    Raises `CallSyntaxError` (message as Python's `SyntaxError` would word it when the text
    does not parse) for anything but a single call of a plain name.
    """
    try:
        tree = ast.parse(text.strip(), filename="<string>", mode="eval")
    except SyntaxError as exc:
        raise CallSyntaxError(str(exc)) from None
    node = tree.body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise CallSyntaxError(f"not a function call: {text[:80]!r}")
    nested = any(isinstance(n, ast.Call) for a in _arg_nodes(node) for n in ast.walk(a))
    if nested:
        return ParsedCall(node.func.id, nested=True, node=node)
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise CallSyntaxError(f"unsupported argument in {text[:80]!r}: {exc}") from None
    if any(k.arg is None for k in node.keywords):
        raise CallSyntaxError(f"`**` arguments are not supported: {text[:80]!r}")
    return ParsedCall(node.func.id, args, kwargs, node=node)


def _arg_nodes(node: ast.Call) -> list[ast.expr]:
    return [*node.args, *(k.value for k in node.keywords)]


def render_result(value: Any) -> str:
    """A call's return value as BFCL records it for the response comparison."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


class BfclWorld:
    """The instances of one BFCL multi-turn entry, in their current state."""

    def __init__(
        self,
        involved_classes: Iterable[str],
        initial_config: dict[str, Any],
        *,
        long_context: bool = False,
    ) -> None:
        self.instances: dict[str, Any] = {}
        self.methods: dict[str, tuple[str, Any]] = {}
        for class_name in involved_classes:
            instance = api_class(class_name)()
            if class_name not in STATELESS_CLASSES:
                config = copy.deepcopy(initial_config.get(class_name, {}))
                instance._load_scenario(config, long_context=long_context)
            self.instances[class_name] = instance
            for name, method in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not name.startswith("_"):
                    self.methods[name] = (class_name, method)

    def public_state(self, class_name: str) -> dict[str, Any]:
        """The attributes BFCL's state check compares (those not starting with `_`)."""
        return {k: v for k, v in vars(self.instances[class_name]).items() if not k.startswith("_")}

    def keyword_arguments(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Positional arguments of a call to `name` bound to their parameter names (for a
        tool call's argument object); the arguments unchanged when they do not bind."""
        found = self.methods.get(name)
        if found is None or not args:
            return dict(kwargs)
        try:
            bound = inspect.signature(found[1]).bind(*args, **kwargs)
        except TypeError:
            return None
        return dict(bound.arguments)

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run method `name`; raises what it raises (NameError for an unknown name)."""
        if name in BLOCKED:
            raise PermissionError(f"Function call {name} is not allowed.")
        found = self.methods.get(name)
        if found is None:
            raise NameError(f"name '{name}' is not defined")
        return found[1](*args, **kwargs)

    def _evaluate(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = tuple(self._evaluate(a) for a in node.args)
            kwargs = {k.arg: self._evaluate(k.value) for k in node.keywords if k.arg}
            return self.call(node.func.id, args, kwargs)
        return ast.literal_eval(node)

    def execute(self, text: str) -> str:
        """Run one call string; its result as BFCL records it (errors included)."""
        try:
            parsed = parse_call(text)
            if parsed.nested and parsed.node is not None:
                if parsed.name in BLOCKED:
                    raise PermissionError(f"Function call {parsed.name} is not allowed.")
                value = self._evaluate(parsed.node)
            else:
                value = self.call(parsed.name, parsed.args, parsed.kwargs)
        except Exception as exc:  # every failure is a result, as in BFCL
            return ERROR_PREFIX + str(exc)
        return render_result(value)

    def execute_all(self, calls: Iterable[str]) -> list[str]:
        """Run call strings in order."""
        return [self.execute(c) for c in calls]


def call_string(name: str, arguments: dict[str, Any]) -> str:
    """A tool call (name and argument object) as a BFCL call string, keywords only."""
    inner = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    return f"{name}({inner})"
