"""Domain references: how a suite file names a team's own tools.

A suite file (or a project directory's `domains.yaml`) may declare domains by name::

    domains:
      shop:    {python: shop_tools:ShopTools, state: state.json}
      shop-mcp: {mcp: {command: [python, shop_mcp.py]}}
      catalog: {tools: tools.json, fixtures: fixtures.yaml}
      billing: {openapi: openapi.yaml, fixtures: billing_fixtures.yaml}
      live:    {openapi: openapi.yaml, base_url: "http://127.0.0.1:8080"}

and a scenario then says `domain: shop`. A scenario may also name a toolkit class inline,
`domain: "python:shop_tools:ShopTools"`. Paths are relative to the file that declares them.
Each reference is validated and resolved to a `DomainSpec` at load, so a bad reference fails
before any session runs.

The key that names the source (`python`, `mcp`, `tools`, `openapi`) is a tool-source kind,
looked up in a registry: a package adds its own kind (say `grpc:`) with a
`sessionproof.tool_sources` entry point or `register_tool_source`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .._plugins import Registry
from ..domains import DomainSpec, domain_names, register_domain
from ..errors import ConfigError, InputFileError, SessionproofError
from ..records import ErrorClass

if TYPE_CHECKING:
    # The tool sources (httpx, the OpenAPI reader) and the YAML reader load when a
    # reference is resolved: a file without `domains:` (every `score`) does without them.
    from ..domains.sources import FixtureBook


class McpRef(BaseModel):
    """An MCP server: a command started over stdio, or the URL of a streamable HTTP one."""

    model_config = ConfigDict(extra="forbid")

    command: list[str] | None = Field(default=None, min_length=1)
    """The server's command line (stdio), e.g. `[python, server.py]`; run in the file's
    directory unless `cwd` says otherwise."""
    url: str | None = None
    """A streamable HTTP endpoint, e.g. `http://127.0.0.1:8000/mcp`."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment for the server process."""
    cwd: str | None = None
    shared: bool = Field(
        default=False,
        description="Refused when true: each session starts its own server, so every "
        "session starts from the same state. To share one server, run it yourself and give "
        "its `url` (its state between sessions is then yours to keep clean).",
    )
    """Refused when true (see `mcp_source.SHARED_REFUSED` for why); kept so the refusal
    names the field and says what to do instead."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpRef:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of `command` (stdio) or `url` (streamable HTTP)")
        return self


class FixtureEntry(BaseModel):
    """One canned response of a schema-only tool."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    args: dict[str, Any] | None = None
    """The arguments it answers (each must be equal in the call); omitted: any call."""
    output: Any = None
    error: str | None = None
    """Answer with this error message instead of an output."""
    error_class: ErrorClass = ErrorClass.server_error


class DomainRef(BaseModel):
    """Where a domain's tools come from: exactly one of `python`, `mcp`, `tools`, `openapi`."""

    model_config = ConfigDict(extra="forbid")

    python: str | None = None
    """A toolkit class (or DomainSpec, or a factory of one): `pkg.module:Name`; the file's
    directory is importable."""
    mcp: McpRef | None = None
    tools: str | None = None
    """An OpenAI `tools` JSON file (schema-only; answered from `fixtures`)."""
    openapi: str | None = None
    """An OpenAPI 3 document (answered from `fixtures`, or live at `base_url`)."""
    base_url: str | None = None
    fixtures: str | list[FixtureEntry] | None = None
    """A fixtures file (YAML/JSON list of entries) or the entries inline."""
    state: str | dict[str, Any] | None = None
    """The initial DB of a `python` toolkit: a JSON/YAML file or inline."""
    policy: str | None = None
    """The agent's policy text, or a `.md`/`.txt` file holding it."""
    transfer_tools: list[str] = Field(default_factory=list)
    """Tools whose successful call ends the session as a transfer."""
    timeout_s: float = Field(default=30.0, gt=0)
    """Seconds one call (HTTP or MCP) may take before it is a `timeout` result."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers for a live `base_url` (e.g. a test token)."""
    kind: Literal["python", "mcp", "tools", "openapi"] | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _one_source(self) -> DomainRef:
        given = [k for k in ("python", "mcp", "tools", "openapi") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of `python`, `mcp`, `tools` or `openapi`"
                + (f" (got {', '.join(given)})" if given else "")
            )
        self.kind = given[0]  # type: ignore[assignment]
        if self.base_url is not None and self.kind != "openapi":
            raise ValueError("`base_url` goes with `openapi`")
        if self.kind == "tools" and self.fixtures is None:
            raise ValueError("`tools` needs `fixtures` to answer its calls")
        if self.kind == "openapi" and (self.fixtures is None) == (self.base_url is None):
            raise ValueError("`openapi` needs exactly one of `fixtures` or `base_url`")
        if self.state is not None and self.kind != "python":
            raise ValueError("`state` goes with `python` (other sources keep their own)")
        return self


def _read_data(path: Path) -> Any:
    from ._yaml import load_yaml

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read: {exc.strerror}") from None
    return load_yaml(raw, str(path)).data  # YAML is a superset of JSON, and bounded here


def _fixtures(value: str | list[FixtureEntry], base: Path) -> FixtureBook:
    from ..domains.sources import Fixture, FixtureBook

    if isinstance(value, str):
        path = base / value
        data = _read_data(path)
        if not isinstance(data, list):
            raise InputFileError(f"{path}: expected a list of fixtures")
        entries = []
        for i, item in enumerate(data):
            try:
                entries.append(FixtureEntry.model_validate(item))
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(p) for p in err["loc"]) or "(fixture)"
                raise InputFileError(f"{path}: fixture #{i}: {field}: {err['msg']}") from None
    else:
        entries = value
    return FixtureBook([Fixture(e.tool, e.args, e.output, e.error, e.error_class) for e in entries])


def _policy(ref: DomainRef, base: Path) -> str | None:
    if ref.policy is not None and ref.policy.endswith((".md", ".txt")):
        path = base / ref.policy
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputFileError(f"{path}: cannot read: {exc.strerror}") from None
    return ref.policy


def _python_source(name: str, ref: DomainRef, base: Path) -> DomainSpec:
    from ..domains.sources._internal import python_domain

    assert ref.python is not None  # the kind says so
    state = ref.state
    if isinstance(state, str):
        loaded = _read_data(base / state)
        if not isinstance(loaded, dict):
            raise InputFileError(f"{base / state}: expected a mapping (the initial DB)")
        state = loaded
    policy, transfer = _policy(ref, base), frozenset(ref.transfer_tools)
    return python_domain(name, ref.python, base, state, policy, transfer)


def _mcp_source(name: str, ref: DomainRef, base: Path) -> DomainSpec:
    from ..domains.sources.mcp_source import McpDomainSpec

    assert ref.mcp is not None  # the kind says so
    cwd = str(base / ref.mcp.cwd) if ref.mcp.cwd else str(base)
    return McpDomainSpec(
        name,
        command=ref.mcp.command,
        url=ref.mcp.url,
        env=ref.mcp.env,
        cwd=cwd,
        shared=ref.mcp.shared,
        policy=_policy(ref, base) or "",
        transfer_tools=frozenset(ref.transfer_tools),
        timeout_s=ref.timeout_s,
    )


def _document_source(name: str, ref: DomainRef, base: Path) -> DomainSpec:
    """A `tools` JSON file or an OpenAPI document: answered from fixtures, or live."""
    from ..domains.sources import FixtureDomainSpec
    from ..domains.sources._internal import (
        HttpDomainSpec,
        OpenAPIError,
        read_openai_tools,
        read_openapi,
    )

    policy, transfer = _policy(ref, base) or "", frozenset(ref.transfer_tools)
    document = base / (ref.tools or ref.openapi or "")
    try:
        if ref.tools is not None:
            specs = read_openai_tools(_read_data(document))
            return FixtureDomainSpec(
                name, specs, _fixtures(ref.fixtures or [], base), policy, transfer
            )
        api = read_openapi(_read_data(document))
        if ref.base_url is not None:
            return HttpDomainSpec(
                name, api, ref.base_url, policy, transfer, ref.timeout_s, ref.headers
            )
        return FixtureDomainSpec(
            name, api.specs, _fixtures(ref.fixtures or [], base), policy, transfer
        )
    except (OpenAPIError, ValueError) as exc:
        raise InputFileError(f"{document}: {exc}") from None


ToolSourceBuilder = Callable[[str, dict[str, Any], Path], DomainSpec]
"""Builds the domain `name` from its `domains:` entry (the mapping as written, its kind's key
among the others) and the directory its paths are relative to. Raises `ValueError` or a
`SessionproofError` with a plain reason for an entry it cannot use."""


def _ref(entry: object) -> DomainRef:
    return DomainRef.model_validate(entry)


def _builtin(build: Callable[[str, DomainRef, Path], DomainSpec]) -> ToolSourceBuilder:
    def from_entry(name: str, entry: dict[str, Any], base: Path) -> DomainSpec:
        return build(name, _ref(entry), base)

    return from_entry


def _check_builder(kind: str, obj: Any) -> ToolSourceBuilder:
    if not callable(obj):
        raise ConfigError(f"tool source {kind!r} is a {type(obj).__name__}, not a function")
    builder: ToolSourceBuilder = obj
    return builder


BUILTIN_KINDS = ("python", "mcp", "tools", "openapi")
TOOL_SOURCES: Registry[ToolSourceBuilder] = Registry("tool_sources", check=_check_builder)
"""Tool-source kinds by the key a `domains:` entry names: the built-in ones, the
`sessionproof.tool_sources` entry points and `register_tool_source`'s."""
for _kind, _build in zip(
    BUILTIN_KINDS, (_python_source, _mcp_source, _document_source, _document_source), strict=True
):
    TOOL_SOURCES.add(_kind, _builtin(_build))


def register_tool_source(kind: str, builder: ToolSourceBuilder | str) -> None:
    """Add a tool-source kind: `domains: {name: {KIND: ..., ...}}` entries are then built by
    `builder` (a `ToolSourceBuilder` or its `module:function`, imported on first use)."""
    if kind in BUILTIN_KINDS or not kind.isidentifier():
        raise ConfigError(f"tool source kind {kind!r} must be a new identifier")
    TOOL_SOURCES.add(kind, builder)


def _source_kind(entry: Mapping[str, Any]) -> str | None:
    """The one registered kind `entry` names; None when it names none (the built-in
    reference's checks then say what is wrong)."""
    known = TOOL_SOURCES.names()
    kinds = [key for key in entry if key in known]
    if len(kinds) > 1:
        listed = ", ".join(f"`{k}`" for k in known)
        raise ValueError(f"give exactly one of {listed} (got {', '.join(kinds)})")
    return kinds[0] if kinds else None


def resolve_reference(name: str, ref: DomainRef | Mapping[str, Any], base: Path) -> DomainSpec:
    """The domain `ref` describes, named `name`; paths relative to `base`. `ref` is a
    validated `DomainRef` or a `domains:` entry as written (of any registered kind)."""
    entry = ref.model_dump(exclude_defaults=True) if isinstance(ref, DomainRef) else dict(ref)
    kind = _source_kind(entry)
    if kind is None:
        _ref(entry)  # says which key is missing or unknown
        raise ValueError(f"names no tool source; known: {', '.join(TOOL_SOURCES.names())}")
    return TOOL_SOURCES.require(kind)(name, entry, base)


def register_references(data: object, source: str, base: Path, lines: dict[str, int]) -> list[str]:
    """Validate, resolve and register a `domains:` mapping; the names registered.

    `lines` maps a domain name to its line (YAML) for the error. Raises `InputFileError`.
    """
    if not isinstance(data, dict):
        raise InputFileError(f"{source}: domains: expected a mapping of name -> reference")
    names = []
    for name, raw in data.items():
        where = f"{source}: domains.{name}" + (f" at line {lines[name]}" if name in lines else "")
        if not isinstance(name, str) or not name or name in domain_names(installed=True):
            raise InputFileError(f"{where}: a domain name must be a new, non-empty name")
        try:
            spec = resolve_reference(name, raw if isinstance(raw, dict) else _ref(raw), base)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            msg = str(err["msg"]).removeprefix("Value error, ")
            raise InputFileError(f"{where}: {field + ': ' if field else ''}{msg}") from None
        except InputFileError:
            raise
        except (SessionproofError, ValueError) as exc:
            raise InputFileError(f"{where}: {exc}") from None
        spec.name = name
        register_domain(spec)
        names.append(name)
    return names


def register_inline(domain: str, base: Path, where: str) -> None:
    """Register a scenario's inline `python:pkg.mod:Class` domain (once per name)."""
    if not domain.startswith("python:") or domain in domain_names():
        return
    from ..domains.sources._internal import python_domain

    try:
        spec = python_domain(domain, domain.removeprefix("python:"), base)
    except ConfigError as exc:
        raise InputFileError(f"{where}: domain: {exc}") from None
    spec.name = domain
    register_domain(spec)
