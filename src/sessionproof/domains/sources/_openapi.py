"""OpenAPI documents → tools: one tool per operation, its parameters and JSON body merged
into one arguments object, and the route to call it on a live server."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...records import ToolSpec

_METHODS = ("get", "post", "put", "patch", "delete")
MAX_REF_DEPTH = 20
"""How deep local `$ref`s are inlined (deeper, and a ref back into a schema being inlined,
stops as a bare object)."""
MAX_INLINED_NODES = 200_000
"""Most nodes the inlined schemas of one document may have (a `$ref` bomb is refused)."""


class OpenAPIError(ValueError):
    """A document this reader cannot turn into tools (the message says where)."""


@dataclass(frozen=True)
class Operation:
    """How to call one tool over HTTP."""

    method: str
    path: str
    path_params: tuple[str, ...] = ()
    query_params: tuple[str, ...] = ()
    header_params: tuple[str, ...] = ()
    body_params: tuple[str, ...] = ()
    """Arguments sent as the JSON body's fields."""
    body_whole: bool = False
    """The body is not an object: it is the `body` argument itself."""


@dataclass
class OpenAPITools:
    """A document's tools, and each one's route."""

    specs: list[ToolSpec] = field(default_factory=list)
    operations: dict[str, Operation] = field(default_factory=dict)


class _Inliner:
    """Inlines local `$ref`s within a budget: a ref to a schema already being inlined on the
    same path (recursion) becomes a bare object at once, and the whole document may grow to
    at most `MAX_INLINED_NODES` nodes (three refs to one schema, nested twenty deep, would
    otherwise be 3^20 nodes from a few hundred bytes)."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.nodes = 0
        self.open: list[str] = []

    def _count(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_INLINED_NODES:
            raise OpenAPIError(
                f"inlining its $refs would make the schemas larger than {MAX_INLINED_NODES} "
                "nodes (refs repeated many times over, nested deep)"
            )

    def inline(self, schema: Any) -> Any:
        """`schema` with every local `$ref` replaced by what it points at."""
        # Local references only (`#/components/schemas/X`): a document that points
        # elsewhere is refused rather than fetched.
        self._count()
        if isinstance(schema, list):
            return [self.inline(s) for s in schema]
        if not isinstance(schema, dict):
            return schema
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if ref in self.open or len(self.open) >= MAX_REF_DEPTH:
                return {"type": "object"}
            if not ref.startswith("#/"):
                raise OpenAPIError(f"only local $ref are supported, not {ref!r}")
            target: Any = self.doc
            for part in ref[2:].split("/"):
                if not isinstance(target, dict) or part not in target:
                    raise OpenAPIError(f"$ref {ref!r} points nowhere")
                target = target[part]
            self.open.append(ref)
            try:
                return self.inline(target)
            finally:
                self.open.pop()
        return {k: self.inline(v) for k, v in schema.items()}


def _tool_name(method: str, path: str, op: dict[str, Any]) -> str:
    op_id = op.get("operationId")
    if isinstance(op_id, str) and op_id:
        return re.sub(r"[^A-Za-z0-9_-]", "_", op_id)[:64]
    return re.sub(r"[^A-Za-z0-9_]+", "_", f"{method}_{path}").strip("_")[:64]


def _operation(
    doc: _Inliner, method: str, path: str, op: dict[str, Any], shared: list[Any]
) -> tuple[ToolSpec, Operation]:
    name = _tool_name(method, path, op)
    props: dict[str, Any] = {}
    required: list[str] = []
    where: dict[str, list[str]] = {"path": [], "query": [], "header": []}
    for raw in [*shared, *op.get("parameters", [])]:
        param = doc.inline(raw)
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            raise OpenAPIError(f"{method.upper()} {path}: a parameter without a name")
        loc = param.get("in")
        if loc not in where:
            continue  # cookies are not a model's business
        pname = param["name"]
        schema = dict(param.get("schema") or {"type": "string"})
        if param.get("description"):
            schema.setdefault("description", param["description"])
        props[pname] = schema
        where[loc].append(pname)
        if param.get("required") or loc == "path":
            required.append(pname)
    body_params: list[str] = []
    body_whole = False
    body = doc.inline(op.get("requestBody") or {})
    content = body.get("content", {}) if isinstance(body, dict) else {}
    body_schema = (content.get("application/json") or {}).get("schema")
    if isinstance(body_schema, dict):
        if body_schema.get("type") == "object" and isinstance(body_schema.get("properties"), dict):
            for bname, bschema in body_schema["properties"].items():
                props[bname] = bschema
                body_params.append(bname)
            required += [r for r in body_schema.get("required", []) if r in body_params]
        else:
            props["body"] = body_schema
            body_whole = True
            if body.get("required"):
                required.append("body")
    parameters: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        parameters["required"] = sorted(set(required))
    description = op.get("description") or op.get("summary") or f"{method.upper()} {path}"
    spec = ToolSpec(
        name=name, description=str(description), parameters=parameters, write=method != "get"
    )
    route = Operation(
        method.upper(),
        path,
        tuple(where["path"]),
        tuple(where["query"]),
        tuple(where["header"]),
        tuple(body_params),
        body_whole,
    )
    return spec, route


def read_openapi(doc: Any) -> OpenAPITools:
    """Every operation of an OpenAPI 3 document as a tool; raises `OpenAPIError`."""
    if not isinstance(doc, dict) or not isinstance(doc.get("paths"), dict):
        raise OpenAPIError("not an OpenAPI document: no `paths` mapping")
    out = OpenAPITools()
    inliner = _Inliner(doc)
    for path, item in doc["paths"].items():
        if not isinstance(item, dict):
            raise OpenAPIError(f"paths.{path}: expected a mapping")
        shared = item.get("parameters", [])
        for method in _METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            spec, route = _operation(inliner, method, str(path), op, shared)
            if spec.name in out.operations:
                raise OpenAPIError(f"{method.upper()} {path}: tool name {spec.name!r} twice")
            out.specs.append(spec)
            out.operations[spec.name] = route
    if not out.specs:
        raise OpenAPIError("the document has no operations")
    return out


def read_openai_tools(data: Any) -> list[ToolSpec]:
    """An OpenAI `tools` list (or `{"tools": [...]}`; bare function objects too) as specs;
    raises `OpenAPIError` naming the bad entry."""
    if isinstance(data, dict) and "tools" in data:
        data = data["tools"]
    if not isinstance(data, list) or not data:
        raise OpenAPIError("expected a non-empty list of tools")
    specs = []
    for i, entry in enumerate(data):
        fn = entry.get("function", entry) if isinstance(entry, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise OpenAPIError(f"tools.{i}: expected {{type: function, function: {{name, ...}}}}")
        params = fn.get("parameters") or {"type": "object", "properties": {}}
        if not isinstance(params, dict):
            raise OpenAPIError(f"tools.{i}.function.parameters: expected an object")
        specs.append(
            ToolSpec(
                name=fn["name"], description=str(fn.get("description") or ""), parameters=params
            )
        )
    return specs
