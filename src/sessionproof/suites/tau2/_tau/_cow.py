"""Copy-on-write DB forks and an incremental state hash for the tau domains.

A tau DB is a handful of top-level tables (`dict[str, Record]`) holding a few thousand
records. Loading and validating it costs far more than a whole session's tool calls, so it is
loaded once per process (`SharedBase`) and each session gets a fork whose tables are shallow
copies: records are shared with the base until a tool owns one for writing, which replaces it
with a private deep copy (`CowTracker.own`). The base is never written.

The state hash covers only the records a session touched: the digest of the base, plus the
sorted (table, key, record digest) triples of every record whose content now differs from the
base. Equal states give equal hashes (a record restored to its base content drops out), and a
difference anywhere shows, because every write goes through `own`/`put`.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any, Generic, TypeVar

import orjson
from pydantic import BaseModel

from ....records._internal import instance

DBT = TypeVar("DBT", bound=BaseModel)
RecordT = TypeVar("RecordT", bound=BaseModel)

_ABSENT = b"-"
_ATOMIC = frozenset({str, int, float, bool, type(None)})


def private_copy(value: Any) -> Any:
    """A deep copy of a DB record (or part of one): what `model_copy(deep=True)` gives.

    About four times faster than `copy.deepcopy`, which keeps a memo of every object it
    copied: a record validated from JSON shares no object between two places, so there is
    nothing for the memo to preserve. Models are rebuilt the way pydantic copies them (the
    field values copied, the set of fields given kept); any other object goes through
    `copy.deepcopy`. Strings and numbers are shared without a call (most of a record).
    """
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _ATOMIC else private_copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _ATOMIC else private_copy(v) for v in value]
    if kind in _ATOMIC:
        return value
    if (
        isinstance(value, BaseModel)
        and value.__pydantic_extra__ is None
        and value.__pydantic_private__ is None
    ):
        fields = {
            k: v if type(v) in _ATOMIC else private_copy(v) for k, v in value.__dict__.items()
        }
        return instance(kind, fields, set(value.__pydantic_fields_set__))
    return copy.deepcopy(value)


def canonical_bytes(value: Any) -> bytes:
    """Sorted-key JSON of a model or JSON-able value: the one byte form every hash reads."""
    # The serializer itself: model_dump's argument handling is a third of a small record's.
    data = (
        value.__pydantic_serializer__.to_python(value, mode="json")
        if isinstance(value, BaseModel)
        else value
    )
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def record_digest(record: BaseModel | None) -> bytes:
    """Digest of one record's canonical JSON (`-` for a record that does not exist)."""
    if record is None:
        return _ABSENT
    return hashlib.blake2b(canonical_bytes(record), digest_size=16).digest()


class SharedBase(Generic[DBT]):
    """A loaded, validated DB shared read-only by every session of the process."""

    def __init__(self, db: DBT, tables: tuple[str, ...]) -> None:
        for table in tables:
            if not isinstance(getattr(db, table, None), dict):
                raise TypeError(f"{type(db).__name__}.{table} is not a table (dict of records)")
        self.db = db
        self.tables = tables
        self._digest: bytes | None = None
        self._record_digests: dict[tuple[str, str], bytes] = {}

    def fork(self) -> DBT:
        """A session's view: new table dicts over the shared records (cheap, O(records))."""
        kind = type(self.db)
        fields = {name: getattr(self.db, name) for name in kind.model_fields}
        for table in self.tables:
            fields[table] = dict(fields[table])
        # What model_construct(**fields) builds (every field given), without its Python loop
        # over the fields' aliases and defaults.
        return instance(kind, fields, set(fields))

    def digest(self) -> bytes:
        """Digest of the whole base DB, computed once."""
        if self._digest is None:
            self._digest = hashlib.blake2b(canonical_bytes(self.db), digest_size=16).digest()
        return self._digest

    def record_digest(self, table: str, key: str) -> bytes:
        """Digest of one base record (cached; `-` when the base has no such record)."""
        slot = (table, key)
        found = self._record_digests.get(slot)
        if found is None:
            found = record_digest(getattr(self.db, table).get(key))
            self._record_digests[slot] = found
        return found


class CowTracker(Generic[DBT]):
    """Which records of one fork were written, and how to hash the fork from them."""

    def __init__(self, base: SharedBase[DBT], db: DBT) -> None:
        self.base = base
        self.db = db
        self.dirty: dict[str, set[str]] = {table: set() for table in base.tables}

    def own(self, table: str, key: str, kind: type[RecordT]) -> RecordT:
        """The record at `table[key]`, made private to this fork so it may be mutated.

        Raises KeyError when the record does not exist (callers check existence first, with
        the domain's own error message).
        """
        records: dict[str, Any] = getattr(self.db, table)
        record = records[key]
        if key not in self.dirty[table]:
            record = private_copy(record)
            records[key] = record
            self.dirty[table].add(key)
        if not isinstance(record, kind):
            raise TypeError(f"{table}[{key!r}] is a {type(record).__name__}, not {kind.__name__}")
        return record

    def put(self, table: str, key: str, record: BaseModel) -> None:
        """Insert or replace a record (the caller hands over a record no one else holds)."""
        getattr(self.db, table)[key] = record
        self.dirty[table].add(key)

    def snapshot(self) -> tuple[dict[str, dict[str, Any]], dict[str, set[str]]]:
        """What `restore` needs to undo every write made after it: each table's entries
        (shared records as they are, the fork's own records copied, since a tool edits those
        in place) and which records the fork owns. Cheap: O(records), no record copied but
        the few the session wrote."""
        rows: dict[str, dict[str, Any]] = {}
        for table, keys in self.dirty.items():
            records: dict[str, Any] = getattr(self.db, table)
            copied = dict(records)
            for key in keys:
                if key in copied:
                    copied[key] = private_copy(copied[key])
            rows[table] = copied
        return rows, {table: set(keys) for table, keys in self.dirty.items()}

    def restore(self, snapshot: tuple[dict[str, dict[str, Any]], dict[str, set[str]]]) -> None:
        """Put the fork back as it was at `snapshot` (in place: the toolkit holds the DB)."""
        rows, dirty = snapshot
        for table, copied in rows.items():
            records: dict[str, Any] = getattr(self.db, table)
            records.clear()
            # Copied again: a later write edits the fork's own records in place, and the
            # snapshot may be restored more than once.
            records.update({k: private_copy(copied[k]) if k in dirty[table] else v
                            for k, v in copied.items()})  # fmt: skip
            self.dirty[table] = set(dirty[table])

    def state_hash(self) -> str:
        """Hash of the fork's state, reading only the records it wrote."""
        changed: list[bytes] = []
        for table, keys in self.dirty.items():
            records: dict[str, Any] = getattr(self.db, table)
            for key in keys:
                now = record_digest(records.get(key))
                if now != self.base.record_digest(table, key):
                    changed.append(b"\x00".join((table.encode(), key.encode(), now)))
        changed.sort()
        h = hashlib.blake2b(self.base.digest(), digest_size=16)
        for entry in changed:
            h.update(b"\x01" + entry)
        return h.hexdigest()

    def changed_records(self) -> list[tuple[str, str]]:
        """(table, key) of every record whose content differs from the base, sorted."""
        out: list[tuple[str, str]] = []
        for table, keys in self.dirty.items():
            records: dict[str, Any] = getattr(self.db, table)
            out.extend(
                (table, key)
                for key in keys
                if record_digest(records.get(key)) != self.base.record_digest(table, key)
            )
        return sorted(out)
