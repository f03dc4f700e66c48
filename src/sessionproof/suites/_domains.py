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
Each reference is validated (`DomainRef`) and resolved to a `DomainSpec` at load, so a bad
reference fails before any session runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..domains import DomainSpec, domain_names, register_domain
from ..errors import ConfigError, InputFileError, SessionproofError
from ..records import ErrorClass

if TYPE_CHECKING:
    # The tool sources (httpx, the OpenAPI reader) and the YAML reader load when a
    # reference is resolved: a file without `domains:` (every `score`) does without them.
    from ..domains.sources import FixtureBook

_BUILTIN_NAMES = frozenset({"demo", "retail", "airline", "taubench-retail", "taubench-airline"})


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


def resolve_reference(name: str, ref: DomainRef, base: Path) -> DomainSpec:
    """The domain `ref` describes, named `name`; paths relative to `base`."""
    from ..domains.sources import (
        FixtureDomainSpec,
        HttpDomainSpec,
        OpenAPIError,
        python_domain,
        read_openai_tools,
        read_openapi,
    )

    policy = _policy(ref, base)
    transfer = frozenset(ref.transfer_tools)
    if ref.python is not None:
        state = ref.state
        if isinstance(state, str):
            loaded = _read_data(base / state)
            if not isinstance(loaded, dict):
                raise InputFileError(f"{base / state}: expected a mapping (the initial DB)")
            state = loaded
        return python_domain(name, ref.python, base, state, policy, transfer)
    if ref.mcp is not None:
        from ..domains.sources.mcp_source import McpDomainSpec

        cwd = str(base / ref.mcp.cwd) if ref.mcp.cwd else str(base)
        return McpDomainSpec(
            name,
            command=ref.mcp.command,
            url=ref.mcp.url,
            env=ref.mcp.env,
            cwd=cwd,
            shared=ref.mcp.shared,
            policy=policy or "",
            transfer_tools=transfer,
            timeout_s=ref.timeout_s,
        )
    document = base / (ref.tools or ref.openapi or "")
    try:
        if ref.tools is not None:
            specs = read_openai_tools(_read_data(document))
            return FixtureDomainSpec(
                name, specs, _fixtures(ref.fixtures or [], base), policy or "", transfer
            )
        api = read_openapi(_read_data(document))
        if ref.base_url is not None:
            return HttpDomainSpec(
                name, api, ref.base_url, policy or "", transfer, ref.timeout_s, ref.headers
            )
        return FixtureDomainSpec(
            name, api.specs, _fixtures(ref.fixtures or [], base), policy or "", transfer
        )
    except (OpenAPIError, ValueError) as exc:
        raise InputFileError(f"{document}: {exc}") from None


def register_references(data: object, source: str, base: Path, lines: dict[str, int]) -> list[str]:
    """Validate, resolve and register a `domains:` mapping; the names registered.

    `lines` maps a domain name to its line (YAML) for the error. Raises `InputFileError`.
    """
    if not isinstance(data, dict):
        raise InputFileError(f"{source}: domains: expected a mapping of name -> reference")
    names = []
    for name, raw in data.items():
        where = f"{source}: domains.{name}" + (f" at line {lines[name]}" if name in lines else "")
        if not isinstance(name, str) or not name or name in _BUILTIN_NAMES:
            raise InputFileError(f"{where}: a domain name must be a new, non-empty name")
        try:
            ref = DomainRef.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            msg = str(err["msg"]).removeprefix("Value error, ")
            raise InputFileError(f"{where}: {field + ': ' if field else ''}{msg}") from None
        try:
            spec = resolve_reference(name, ref, base)
        except InputFileError:
            raise
        except SessionproofError as exc:
            raise InputFileError(f"{where}: {exc}") from None
        spec.name = name
        register_domain(spec)
        names.append(name)
    return names


def register_inline(domain: str, base: Path, where: str) -> None:
    """Register a scenario's inline `python:pkg.mod:Class` domain (once per name)."""
    if not domain.startswith("python:") or domain in domain_names():
        return
    from ..domains.sources import python_domain

    try:
        spec = python_domain(domain, domain.removeprefix("python:"), base)
    except ConfigError as exc:
        raise InputFileError(f"{where}: domain: {exc}") from None
    spec.name = domain
    register_domain(spec)
