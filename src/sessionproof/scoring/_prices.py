"""Model prices: the table shipped with sessionproof (with its date), a user's file over it,
and `--price` flags over both.

Prices are USD per 1 million tokens: `input`, `output` and, when the provider discounts
prompt-cache hits, `cached_input`. A model is found by "provider:model", then by its bare
name, each also with a dated snapshot suffix removed. A model found nowhere has no price:
its tokens are counted and its cost is not made up.
"""

from __future__ import annotations

import functools
import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigError

_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")
"""A dated snapshot suffix: gpt-4o-mini-2024-07-18, claude-sonnet-4-20250514."""
_FIELDS = ("input", "output", "cached_input")


class Price(BaseModel):
    """One model's rates, USD per 1 million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float
    """Input tokens not served from the prompt cache."""
    output: float
    """Output tokens."""
    cached_input: float | None = None
    """Input tokens served from the prompt cache; None bills them at `input`."""

    def usd(self, input_tokens: int, output_tokens: int, cached_tokens: int) -> float:
        """The cost of one usage; `input_tokens` includes the cached ones (as calls record)."""
        cached = min(max(cached_tokens, 0), input_tokens)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return (
            (input_tokens - cached) * self.input
            + cached * cached_rate
            + output_tokens * self.output
        ) / 1e6


class PriceTable(BaseModel):
    """Prices by model key ("provider:model" or "model"), and where they came from."""

    model_config = ConfigDict(extra="forbid")

    as_of: str | None = None
    """The date of the shipped table (a user's file may give its own)."""
    source: str | None = None
    """Where the shipped prices were read."""
    models: dict[str, Price] = {}
    overridden_by: list[str] = []
    """The files and flags laid over the shipped table, in order."""

    def price_for(self, provider: str, model: str) -> Price | None:
        """The price of `model` as called through `provider`, or None (no price)."""
        base = _SNAPSHOT.sub("", model)
        for key in (f"{provider}:{model}", f"{provider}:{base}", model, base):
            found = self.models.get(key)
            if found is not None:
                return found
        return None

    def merged(self, models: Mapping[str, Price], origin: str) -> PriceTable:
        """This table with `models` laid over it (theirs win), `origin` noted."""
        return self.model_copy(
            update={
                "models": {**self.models, **models},
                "overridden_by": [*self.overridden_by, origin],
            }
        )


@functools.cache
def shipped_prices() -> PriceTable:
    """The price table shipped with sessionproof (`scoring/prices.toml`), with its date (read
    once; every override makes a new table, never changes this one)."""
    text = resources.files(__package__).joinpath("prices.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    models = _models(data.get("models"), text, "the shipped price table")
    return PriceTable(as_of=data.get("as_of"), source=data.get("source"), models=models)


def load_price_file(path: str | Path) -> dict[str, Price]:
    """The prices in a user's file: TOML (`[models."provider:model"]` tables, as the shipped
    table) or JSON (`{"models": {"provider:model": {"input": .., "output": ..}}}`). A file
    that does not parse, or an entry that is not a price, is a `ConfigError` naming the file
    and the line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"price file {p}: cannot be read ({exc})") from None
    data: Any
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{p}, line {exc.lineno}: not JSON ({exc.msg})") from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: not TOML ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise ConfigError(f"{p}, line 1: no `models` table of prices")
    return _models(data["models"], text, str(p))


def parse_price_flag(flag: str) -> tuple[str, Price]:
    """`MODEL=IN/OUT[/CACHED]` (USD per 1M tokens; MODEL is "provider:model" or "model")."""
    key, sep, rates = flag.partition("=")
    parts = rates.split("/")
    bad = f"--price {flag!r}: expected MODEL=IN/OUT or MODEL=IN/OUT/CACHED (USD per 1M tokens)"
    if not sep or not key.strip() or len(parts) not in (2, 3):
        raise ConfigError(bad)
    try:
        values = [float(v) for v in parts]
    except ValueError:
        raise ConfigError(bad) from None
    if not all(math.isfinite(v) and v >= 0 for v in values):
        raise ConfigError(f"--price {flag!r}: prices must be finite and not negative")
    cached = values[2] if len(values) == 3 else None
    return key.strip(), Price(input=values[0], output=values[1], cached_input=cached)


def price_table(files: Iterable[str | Path] = (), flags: Iterable[str] = ()) -> PriceTable:
    """The shipped table, each file over it in order, then each `--price` flag."""
    table = shipped_prices()
    for path in files:
        table = table.merged(load_price_file(path), str(path))
    for flag in flags:
        key, price = parse_price_flag(flag)
        table = table.merged({key: price}, f"--price {key}")
    return table


def _models(raw: Any, text: str, where: str) -> dict[str, Price]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}, line 1: `models` is not a table of prices")
    out: dict[str, Price] = {}
    for key, entry in raw.items():
        found = _problem(key, entry)
        if found is not None:
            field, problem = found
            line = _line_of(text, key, field)
            raise ConfigError(f"{where}, line {line}: {key!r}: {problem}")
        out[key] = Price(**entry)
    return out


def _problem(key: str, entry: Any) -> tuple[str | None, str] | None:
    """(the field at fault, or None for the entry, and what is wrong), or None if fine."""
    if not key.strip():
        return None, "an empty model name"
    if not isinstance(entry, dict):
        return None, "not a table of prices (input, output, cached_input)"
    unknown = sorted(set(entry) - set(_FIELDS))
    nested = [k for k in unknown if isinstance(entry[k], dict)]
    if nested:  # [models.gpt-4.1] is a table "1" inside "gpt-4": the name needs quotes
        return None, f'a model name with a dot must be quoted: [models."{key}.{nested[0]}"]'
    if unknown:
        return unknown[0], f"unknown field {unknown[0]!r} (prices are input, output, cached_input)"
    for name in ("input", "output"):
        if name not in entry:
            return None, f"no {name} price"
    for name, value in entry.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            return name, f"{name} = {value!r} is not a number of USD per 1M tokens"
        if not math.isfinite(value) or value < 0:
            return name, f"{name} = {value!r} must be finite and not negative"
    return None


def _line_of(text: str, key: str, field: str | None) -> int:
    """The 1-based line where `key`'s entry is written (its TOML table header or JSON key)
    or, given `field`, where that field of it is; 1 if neither is seen."""
    lines = text.splitlines()
    quoted = (f'"{key}"', f"'{key}'")
    bare = re.compile(rf"(^|[.\[\s]){re.escape(key)}\s*[\]=]")
    at = next(
        (i for i, line in enumerate(lines) if any(q in line for q in quoted) or bare.search(line)),
        None,
    )
    if at is None:
        return 1
    if field is not None:
        named = re.compile(rf"(^|[\s{{,]|\.)\"?{re.escape(field)}\"?\s*[=:]")
        for i in range(at, len(lines)):
            if i > at and lines[i].lstrip().startswith("["):
                break  # the next TOML table: the field is not written out below the key
            if named.search(lines[i][lines[i].find(key) + len(key) :] if i == at else lines[i]):
                return i + 1
    return at + 1
