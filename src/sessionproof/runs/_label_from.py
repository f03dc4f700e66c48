"""`LabelFrom`: the config field naming where each session's outcome label is (`rerun`,
`import`); apart from the configs' base so a `RunConfig` loads no importer."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator

from ..importers._internal import LabelRule, label_rule


def _label_rule(value: object) -> object:
    return label_rule(value) if isinstance(value, str) else value


LabelFrom = Annotated[LabelRule | None, BeforeValidator(_label_rule)]
"""A config field naming where each session's outcome label is: a `LabelRule`, or its spec
(`NAME` or `NAME>=N`), parsed when the config is built (a bad one is a `ConfigError`)."""
