"""Toolkits: tools are typed, docstringed methods; JSON Schemas are generated from the code."""

from __future__ import annotations

import hashlib
import inspect
import time
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, get_type_hints

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ..errors import ToolArgumentError, UnknownToolError, describe_validation
from ..records import ToolCall, ToolResult, ToolSpec
from ._results import result_from_exception, result_from_value, unparsed_result
from ._source import ToolContext

DBT = TypeVar("DBT", bound=BaseModel)
F = TypeVar("F", bound=Callable[..., Any])

_TOOL_MARK = "__sessionproof_tool__"


def state_hash(db: BaseModel) -> str:
    """Canonical hash of a DB: sorted-key JSON, blake2b. Stable across processes and runs."""
    data = orjson.dumps(db.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def tool(*, write: bool = False) -> Callable[[F], F]:
    """Mark a toolkit method as a tool; `write=True` when it changes the DB."""

    def mark(fn: F) -> F:
        setattr(fn, _TOOL_MARK, {"write": write})
        return fn

    return mark


def _strip_titles(schema: Any) -> Any:
    # pydantic adds a "title" to every property; models read them as noise. Keys of
    # "properties" and "$defs" are names, not keywords: a parameter may be called "title".
    if isinstance(schema, dict):
        return {
            k: (
                {name: _strip_titles(sub) for name, sub in v.items()}
                if k in ("properties", "$defs") and isinstance(v, dict)
                else _strip_titles(v)
            )
            for k, v in schema.items()
            if k != "title"
        }
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


class _ToolInfo:
    """One tool of a toolkit class. Its arguments model and its spec (the JSON Schemas of
    its parameters and its return model) are built on first use: a class is checked when it
    is defined, but a process that never calls or lists a tool (or a class only subclassed,
    like a benchmark's shared core) does not pay for their schemas."""

    __slots__ = (
        "_args_model",
        "_fields",
        "_model_name",
        "_ret",
        "_spec",
        "method_name",
        "name",
        "summary",
        "write",
    )

    def __init__(
        self,
        name: str,
        summary: str,
        write: bool,
        method_name: str,
        model_name: str,
        fields: dict[str, Any],
        ret: Any,
    ) -> None:
        self.name = name
        self.summary = summary
        self.write = write
        self.method_name = method_name
        self._model_name = model_name
        self._fields = fields
        self._ret = ret
        self._args_model: type[BaseModel] | None = None
        self._spec: ToolSpec | None = None

    @property
    def args_model(self) -> type[BaseModel]:
        """The pydantic model the call's arguments are validated with."""
        if self._args_model is None:
            self._args_model = create_model(  # type: ignore[call-overload]
                self._model_name, __config__=ConfigDict(extra="forbid"), **self._fields
            )
        return self._args_model

    @property
    def spec(self) -> ToolSpec:
        """What the agent sees: name, description, parameters and output schemas."""
        if self._spec is None:
            params = _strip_titles(self.args_model.model_json_schema())
            params.setdefault("properties", {})
            ret = self._ret
            output_schema = None
            if isinstance(ret, type) and issubclass(ret, BaseModel):
                output_schema = _strip_titles(ret.model_json_schema())
            self._spec = ToolSpec(
                name=self.name,
                description=self.summary,
                parameters=params,
                write=self.write,
                output_schema=output_schema,
            )
        return self._spec


_Described = tuple[str, dict[str, tuple[Any, Any, str | None]], Any]
"""A tool method's description, parameters (hint, default, description) and return hint."""
_described: dict[tuple[Callable[..., Any], str], _Described] = {}
"""Each tool method read once: a subclass (tau-bench's variant of a shared core) inherits
the same methods, and their docstrings and hints say the same for every class."""


def _read_method(cls: type, name: str, fn: Callable[..., Any]) -> _Described:
    found = _described.get((fn, name))
    if found is not None:
        return found
    import docstring_parser  # only where a toolkit's schemas are built from its docstrings

    doc = docstring_parser.parse(inspect.getdoc(fn) or "")
    summary = "\n\n".join(p for p in (doc.short_description, doc.long_description) if p)
    if not summary:
        raise TypeError(
            f"tool {cls.__name__}.{name} needs a docstring: it is the tool's description"
        )
    param_docs = {p.arg_name: p.description or "" for p in doc.params}
    hints = get_type_hints(fn)
    params: dict[str, tuple[Any, Any, str | None]] = {}
    for pname, param in inspect.signature(fn).parameters.items():
        if pname == "self":
            continue
        if pname not in hints:
            raise TypeError(
                f"tool {cls.__name__}.{name}: parameter {pname!r} has no type annotation"
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        params[pname] = (hints[pname], default, param_docs.get(pname) or None)
    found = _described[fn, name] = (summary, params, hints.get("return"))
    return found


def _describe(cls: type, name: str, fn: Callable[..., Any], write: bool) -> _ToolInfo:
    summary, params, ret = _read_method(cls, name, fn)
    fields = {
        pname: (hint, Field(default, description=text))
        for pname, (hint, default, text) in params.items()
    }
    model_name = f"{cls.__name__}_{name}_args"
    return _ToolInfo(name, summary, write, fn.__name__, model_name, fields, ret)


class Toolkit(Generic[DBT]):
    """Base of every domain toolkit: subclass it and decorate methods with `@tool`.

    Schemas are built once per class from signatures and docstrings (Args sections). A
    toolkit is a `ToolSource` over its DB.
    """

    _tools: ClassVar[dict[str, _ToolInfo]]

    fast: ClassVar[bool] = True
    """True: every tool is a quick, pure-Python edit of the DB, run inline on the event loop
    (a worker thread would cost more than the tool; see benchmarks/harness_overhead.py).
    Set False in a toolkit whose tools block (I/O, sleeps): its calls then run on a worker
    thread, so other sessions go on meanwhile."""

    def __init__(self, db: DBT) -> None:
        self.db = db

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        tools: dict[str, _ToolInfo] = {}
        for base in reversed(cls.__mro__):
            for name, fn in vars(base).items():
                mark = getattr(fn, _TOOL_MARK, None)
                if mark is not None:
                    tools[name] = _describe(cls, name, fn, bool(mark["write"]))
        cls._tools = tools

    @classmethod
    def specs(cls) -> list[ToolSpec]:
        """Every tool's spec, in definition order."""
        return [t.spec for t in cls._tools.values()]

    @classmethod
    def tool_names(cls, *, write: bool | None = None) -> list[str]:
        """The tools' names in definition order (only the write tools, or only the reads,
        with `write`), without building their schemas."""
        return [n for n, t in cls._tools.items() if write is None or t.write == write]

    @classmethod
    def spec(cls, name: str) -> ToolSpec:
        """One tool's spec; raises `UnknownToolError`."""
        info = cls._tools.get(name)
        if info is None:
            raise UnknownToolError(name, list(cls._tools))
        return info.spec

    def invoke(self, name: str, args: dict[str, Any]) -> Any:
        """Validate `args` against the tool's parameters and call it.

        Raises `UnknownToolError`, `ToolArgumentError`, or whatever the tool raises.
        """
        info = self._tools.get(name)
        if info is None:
            raise UnknownToolError(name, list(self._tools))
        try:
            parsed = info.args_model.model_validate(args)
        except ValidationError as exc:
            problems = describe_validation(exc, whole="(arguments)", limit=None)
            raise ToolArgumentError(f"invalid arguments for {name}: {problems}") from None
        kwargs = {k: getattr(parsed, k) for k in info.args_model.model_fields}
        return getattr(self, info.method_name)(**kwargs)

    # -- the ToolSource protocol ----------------------------------------------------------

    async def list_tools(self, ctx: ToolContext) -> list[ToolSpec]:
        """Every tool's spec (they do not change during a session)."""
        return self.specs()

    async def call_tool(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run one call on the DB: inline when the toolkit is `fast`, else on a thread."""
        start = time.perf_counter()
        if call.arguments is None:
            return unparsed_result(call, start)
        try:
            if self.fast:
                value = self.invoke(call.name, call.arguments)
            else:
                import asyncio  # the event loop that awaits this has loaded it

                value = await asyncio.to_thread(self.invoke, call.name, call.arguments)
        except Exception as exc:  # a tool that raises must not end the run
            return result_from_exception(call, exc, start)
        return result_from_value(call, value, start)

    async def aclose(self) -> None:
        """Nothing to release: the DB is in memory."""

    def state_hash(self) -> str | None:
        """Canonical hash of the DB."""
        return state_hash(self.db)
