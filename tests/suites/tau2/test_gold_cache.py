"""GoldCache: tasks parsed once (by identity, then by content), gold diffs without replays."""

from __future__ import annotations

import copy
from typing import Any

from sessionproof.domains import get_domain
from sessionproof.suites.tau2._evaluate import _diff_records
from sessionproof.suites.tau2._replay import GoldCache, replay
from sessionproof.suites.tau2._tau import record_digest

from ._data import RETAIL_GPT, load


def test_a_task_is_built_once_per_content() -> None:
    built: list[Any] = []

    def build(raw: Any) -> Any:
        built.append(raw)
        return {"parsed": raw["id"]}

    cache = GoldCache()
    task = {"id": "7", "x": [1, 2]}
    first = cache.parsed(task, build)
    assert cache.parsed(task, build) is first  # the same object
    assert cache.parsed(copy.deepcopy(task), build) is first  # the same content
    assert cache.parsed({"x": [1, 2], "id": "7"}, build) is first  # key order aside
    assert cache.parsed({"id": "8"}, build) == {"parsed": "8"}
    assert len(built) == 2
    huge = {"id": "9", "n": 2**70}  # not plain JSON: built every time, never wrong
    cache.parsed(huge, build)
    cache.parsed(huge, build)
    assert len(built) == 4


def test_records_named_from_the_cached_gold_are_those_a_gold_replay_names() -> None:
    spec = get_domain("retail")
    data = load(RETAIL_GPT)
    cache = GoldCache()
    named = 0
    for task in data["tasks"]:
        actions = [
            (a["name"], a["arguments"])
            for a in (task["evaluation_criteria"] or {}).get("actions") or []
        ]
        if not actions:
            continue
        gold = cache.get(spec, actions)
        gold_domain, _ = replay(spec, actions)
        assert gold.state_hash == gold_domain.state_hash()
        # A session that made only the first write: it differs from the gold somewhere.
        final, _ = replay(spec, actions[:1])
        expected = []
        keys = set(final.cow.changed_records()) | set(gold_domain.cow.changed_records())
        for table, key in sorted(keys):
            a = getattr(final.db, table).get(key)
            b = getattr(gold_domain.db, table).get(key)
            if record_digest(a) != record_digest(b):
                expected.append(f"{table}/{key}")
        assert _diff_records(final, gold) == expected
        named += bool(expected)
    assert named > 3
