"""The banking DB: named tables of records, as tau2-bench's banking_knowledge keeps them.

Each table is `{"data": {record_id: record}, "notes": text}`; records are plain JSON objects
(tau2 stores them untyped). The table set is fixed: a write to a table outside it fails, as
in tau2. A task's `initialization_data.agent_data` is merged into the DB key by key, nested
objects merged and everything else replaced (tau2's update of the DB with the task's data).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from ....errors import InputFileError
from .._tau import read_package_json

TABLES = (
    "users",
    "accounts",
    "debit_cards",
    "referrals",
    "credit_card_applications",
    "user_discoverable_tools",
    "user_discoverable_tool_calls",
    "verification_history",
    "credit_card_transaction_history",
    "cash_back_disputes",
    "bank_account_transaction_history",
    "credit_card_accounts",
    "agent_discoverable_tools",
    "task_config",
    "human_transfer_requests",
    "transaction_disputes",
    "credit_card_orders",
    "debit_card_orders",
    "credit_card_closure_reasons",
    "credit_card_account_flags",
    "credit_limit_increase_requests",
    "payment_history",
    "debit_card_disputes",
)
"""Every table of tau2's banking DB, in its order."""


class BankingDB(BaseModel):
    """The whole banking state: table name → `{"data": {...}, "notes": "..."}`."""

    model_config = ConfigDict(extra="forbid")

    tables: dict[str, dict[str, Any]]

    def digest(self) -> str:
        """The state hash: blake2b of the tables as sorted-key JSON (what the generic
        `state_hash` computes, without pydantic's dump of every record)."""
        data = orjson.dumps({"tables": self.tables}, option=orjson.OPT_SORT_KEYS)
        return hashlib.blake2b(data, digest_size=16).hexdigest()

    def rows(self, table: str) -> dict[str, dict[str, Any]]:
        """The records of one table by id (the live dict: writes go through it)."""
        data: dict[str, dict[str, Any]] = self.tables[table]["data"]
        return data

    def find(self, table: str, **equal: Any) -> list[tuple[str, dict[str, Any]]]:
        """(id, record) of each record whose fields equal `equal`, in table order."""
        if table not in self.tables:
            return []
        return [
            (rid, rec)
            for rid, rec in self.rows(table).items()
            if all(rec.get(k) == v for k, v in equal.items())
        ]

    def add(self, table: str, record_id: str, record: dict[str, Any]) -> bool:
        """Insert a record; False when the table is unknown or the id is taken."""
        if table not in self.tables or record_id in self.rows(table):
            return False
        self.rows(table)[record_id] = record
        return True

    def update(self, table: str, record_id: str, changes: Mapping[str, Any]) -> bool:
        """Set fields of a record; False when there is no such record."""
        if table not in self.tables or record_id not in self.rows(table):
            return False
        self.rows(table)[record_id].update(changes)
        return True


def merge(into: dict[str, Any], update: Mapping[str, Any]) -> None:
    """Merge `update` into `into` in place: nested objects merged, other values replaced."""
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = orjson.loads(orjson.dumps(value))


def tables_from(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    """Validated tables from a db.json object (missing tables start empty)."""
    if not isinstance(raw, dict):
        raise InputFileError(f"{where}: expected an object of tables")
    unknown = sorted(set(raw) - set(TABLES))
    if unknown:
        raise InputFileError(f"{where}: unknown tables: {', '.join(unknown)}")
    tables: dict[str, dict[str, Any]] = {}
    for name in TABLES:
        table = raw.get(name, {"data": {}, "notes": ""})
        if not isinstance(table, dict) or not isinstance(table.get("data", {}), dict):
            raise InputFileError(f"{where}: table {name!r} needs a 'data' object of records")
        tables[name] = {"data": dict(table.get("data", {})), "notes": table.get("notes", "")}
    return tables


@functools.cache
def base_bytes() -> bytes:
    """The shipped db.json, validated once, as canonical JSON to copy sessions from."""
    raw = read_package_json("sessionproof.suites.tau2.banking", "db.json")
    return orjson.dumps(tables_from(raw, "banking data/db.json"))


def fresh_db(agent_data: Mapping[str, Any] | None = None) -> BankingDB:
    """A private copy of the base DB, with a task's `agent_data` merged in."""
    tables = orjson.loads(base_bytes())
    if agent_data:
        unknown = sorted(set(agent_data) - set(TABLES))
        if unknown:
            raise InputFileError(f"initialization data names unknown tables: {unknown}")
        merge(tables, agent_data)
    return BankingDB.model_construct(tables=tables)
