"""`sessionproof schema`: the published JSON Schemas of the files a team writes."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from ..errors import ConfigError
from ._app import app


def _suite_schema() -> dict[str, Any]:
    from ..records import Scenario
    from ..suites._internal import DomainRef

    scenario = Scenario.model_json_schema()
    domain = DomainRef.model_json_schema()
    defs = {**scenario.pop("$defs", {}), **domain.pop("$defs", {})}
    defs["Scenario"] = scenario
    defs["DomainRef"] = domain
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "sessionproof suite file",
        "description": "A list of scenarios, or a mapping with `scenarios` and/or `domains`.",
        "anyOf": [
            {"type": "array", "items": {"$ref": "#/$defs/Scenario"}},
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "scenarios": {"type": "array", "items": {"$ref": "#/$defs/Scenario"}},
                    "domains": {
                        "type": "object",
                        "additionalProperties": {"$ref": "#/$defs/DomainRef"},
                    },
                },
            },
        ],
        "$defs": defs,
    }


def schema_for(kind: str) -> dict[str, Any]:
    """The JSON Schema of `kind`: scenario, domain or suite; raises `ConfigError`."""
    from ..records import Scenario
    from ..suites._internal import DomainRef

    if kind == "scenario":
        out = Scenario.model_json_schema()
    elif kind == "domain":
        out = DomainRef.model_json_schema()
    elif kind == "suite":
        return _suite_schema()
    else:
        raise ConfigError(f"unknown schema {kind!r}; use scenario, domain or suite")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **out}


@app.command("schema")
def schema(
    kind: Annotated[str, typer.Argument(help="scenario | domain | suite")] = "scenario",
) -> None:
    """Print the JSON Schema of a scenario, a domain reference, or a whole suite file."""
    typer.echo(json.dumps(schema_for(kind), indent=2))
