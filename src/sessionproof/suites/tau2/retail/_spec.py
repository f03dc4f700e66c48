"""The retail domain spec: the tau2 DB loaded once per process, forked per session."""

from __future__ import annotations

import functools
from importlib import resources

from pydantic import ValidationError

from ....errors import InputFileError, describe_validation
from .._tau import SharedBase, TauDomainSpec, read_package_json
from ._models import TABLES, RetailDB
from ._tools import RetailCore, RetailTools

PACKAGE = "sessionproof.suites.tau2.retail"


@functools.cache
def load_retail_base() -> SharedBase[RetailDB]:
    """tau2-bench's retail `db.json`, validated once and shared read-only."""
    raw = read_package_json(PACKAGE, "db.json")
    try:
        db = RetailDB.model_validate(raw)
    except ValidationError as exc:
        raise InputFileError(f"retail data/db.json: {describe_validation(exc)}") from None
    return SharedBase(db, TABLES)


@functools.cache
def retail_policy() -> str:
    """The agent's system prompt for the retail domain."""
    return (resources.files(PACKAGE) / "policy.md").read_text(encoding="utf-8")


def make_spec(name: str, toolkit: type[RetailCore]) -> TauDomainSpec[RetailDB]:
    """A retail spec with the given toolkit (tau2's, or a variant's)."""
    return TauDomainSpec(name, toolkit, retail_policy(), load_retail_base)


def spec() -> TauDomainSpec[RetailDB]:
    """The `retail` domain (tau2-bench semantics); the registry calls this lazily."""
    return make_spec("retail", RetailTools)
