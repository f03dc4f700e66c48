"""tau2-banking against tau2-bench's own banking tools: the same calls, the same final DB?

Run: `.venv/bin/python benchmarks/tau2_banking_crosscheck.py --tau2-src DIR [--fuzz 12]`
where DIR is the `src` folder of a tau2-bench checkout (e.g. a `fetch`ed snapshot at
a2c0247). tau2's banking tools are imported from there, without installing tau2: its
package `__init__` (which loads the runner and LLM clients) is bypassed, and the four
libraries the tools' modules import but these calls never use (loguru, toml, addict,
deepdiff) are replaced by empty stand-ins in a temporary folder.

Three checks, each comparing the final DB table by table, record by record:
- gold: every task's reference actions, both sides (97 tasks);
- perturbed: each reference action dropped, made twice, or one argument of a discoverable
  call changed (doubled, zero, negative, text, emptied, flipped) or left out;
- fuzz: every discoverable tool of both sides, unlocked (or given) and called with
  arguments drawn from each fourth task's DB (ids, amounts, codes), sometimes twice,
  sometimes with an argument missing, with and without the read-log allowlist.
Prints the counts of sequences and of differing ones (0 is the target). Seeded.
"""

from __future__ import annotations

import argparse
import copy
import inspect
import json
import random
import sys
import tempfile
import types
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from sessionproof.suites.tau2._tau import read_package_json
from sessionproof.suites.tau2.banking._db import merge
from sessionproof.suites.tau2.banking._judge import _run
from sessionproof.suites.tau2.banking._registry import DISCOVERABLE, USER_DISCOVERABLE
from sessionproof.suites.tau2.banking._spec import BankingSpec
from sessionproof.suites.tau2.banking._suite import _agent_data, packaged_tasks

_STANDINS = {
    "loguru": "class _L:\n    def __getattr__(self, n):\n        return lambda *a, **k: None\n"
    "logger = _L()\n",
    "toml": "def load(*a, **k): raise NotImplementedError\n"
    "def loads(*a, **k): raise NotImplementedError\n"
    "def dump(*a, **k): raise NotImplementedError\n"
    "def dumps(*a, **k): raise NotImplementedError\n",
    "addict": "class Dict(dict): pass\n",
    "deepdiff": "class DeepDiff(dict): pass\n",
}

Call = tuple[str, str, dict[str, Any]]


def _load_tau2(src: Path) -> tuple[Any, Any, Any]:
    stand = Path(tempfile.mkdtemp(prefix="tau2-standins-"))
    for name, code in _STANDINS.items():
        (stand / f"{name}.py").write_text(code)
    sys.path[:0] = [str(src), str(stand)]
    package = types.ModuleType("tau2")
    package.__path__ = [str(src / "tau2")]
    sys.modules["tau2"] = package
    from tau2.domains.banking_knowledge.data_model import TransactionalDB
    from tau2.domains.banking_knowledge.tools import KnowledgeTools, KnowledgeUserTools

    return TransactionalDB, KnowledgeTools, KnowledgeUserTools


class Compare:
    """Runs one call sequence on both implementations and compares the final DBs."""

    def __init__(self, tau2: tuple[Any, Any, Any], base: dict[str, Any]) -> None:
        self.db_kind, self.agent_kind, self.user_kind = tau2
        self.base = base
        self.sequences = 0
        self.differing = 0

    def theirs(self, raw: dict[str, Any], allow: set[str], calls: list[Call]) -> Any:
        db = self.db_kind.model_validate(copy.deepcopy(raw))
        agent = self.agent_kind(db)
        agent.set_read_log_allowlist(allow)
        user = self.user_kind(db)
        for side, name, args in calls:
            try:
                getattr(user if side == "user" else agent, name)(**args)
            except Exception:  # tau2's environment answers a raising tool with an error
                continue
        return {k: v["data"] for k, v in db.model_dump().items()}

    def ours(self, task: Mapping[str, Any], allow: set[str], calls: list[Call]) -> Any:
        spec = BankingSpec("bm25", _agent_data(task), frozenset(allow))
        domain = spec.create()
        _run(domain, calls)
        return {k: v["data"] for k, v in domain.db.tables.items()}

    def check(self, task: Mapping[str, Any], allow: set[str], calls: list[Call]) -> None:
        raw = copy.deepcopy(self.base)
        data = _agent_data(task)
        if data:
            merge(raw, data)
        self.sequences += 1
        a = json.dumps(self.theirs(raw, allow, calls), sort_keys=True, default=str)
        b = json.dumps(self.ours(task, allow, calls), sort_keys=True, default=str)
        if a != b:
            self.differing += 1
            if self.differing <= 5:
                print(f"  differs: {task['id']}: {json.dumps(calls)[:300]}")


def _reads(task: Mapping[str, Any]) -> set[str]:
    actions = task["evaluation_criteria"]["actions"]
    return {
        a["arguments"]["agent_tool_name"]
        for a in actions
        if a["name"] == "call_discoverable_agent_tool"
    }


def _as_calls(actions: list[dict[str, Any]]) -> list[Call]:
    return [(a["requestor"], a["name"], dict(a["arguments"])) for a in actions]


def _mutations(action: dict[str, Any]) -> Iterator[dict[str, Any]]:
    inner = action["arguments"].get("arguments")
    if not isinstance(inner, str):
        return
    try:
        args = json.loads(inner)
    except json.JSONDecodeError:
        return
    for key, value in args.items():
        if isinstance(value, bool):
            new: list[Any] = [not value]
        elif isinstance(value, int | float):
            new = [value * 2, -1, 0, str(value)]
        elif isinstance(value, str):
            new = ["", value + "X"]
        else:
            new = []
        for v in [*new, None]:
            changed = dict(args)
            if v is None:
                del changed[key]
            else:
                changed[key] = v
            out = copy.deepcopy(action)
            out["arguments"]["arguments"] = json.dumps(changed)
            yield out


_NUMBERS: list[Any] = [100, 25.5, 0, -3, 5000, 1e6, "12"]
_CODES = [
    "x", "", "checking", "savings", "business_checking", "STANDARD", "CLASSIC", "atm",
    "purchase", "full_refund", "partial_refund", "keep_active", "duplicate_charge",
    "unauthorized_transaction", "atm_withdrawal", "no", "yes_shared", "annual_fee_waived",
    "annual_fee", "rebate_credit", "fee_refund", "interest_correction", "high_utilization",
    "1357", "1234", "123", "11/20/2025", "lost", "stolen", "fraud_suspected", "damaged",
    "customer_verified", "velocity_clear", "goodwill_adjustment", "retention_offer",
]  # fmt: skip


def _pools(raw: Mapping[str, Any]) -> dict[str, list[Any]]:
    def ids(table: str) -> list[Any]:
        return list((raw.get(table) or {}).get("data", {}))

    accounts = ids("accounts")
    cards = (raw.get("debit_cards") or {}).get("data", {}).values()
    digits = sorted({str(c.get("last_4_digits")) for c in cards})
    return {
        "card_id": [*ids("debit_cards"), "nope"],
        "account_id": [*accounts, "nope"],
        "checking_account_id": accounts,
        "source_account_id": accounts,
        "destination_account_id": accounts,
        "user_id": [*ids("users"), "nope"],
        "credit_card_account_id": [*ids("credit_card_accounts"), "nope"],
        "transaction_id": ids("bank_account_transaction_history")[:20]
        + ids("credit_card_transaction_history")[:20]
        + ["nope"],
        "last_4_digits": [*digits, "12a4"],
    }  # fmt: skip


def _value(name: str, pools: Mapping[str, list[Any]], rng: random.Random) -> Any:
    if name in pools:
        return rng.choice(pools[name])
    flags = ("contacted", "card_in", "police", "written", "eligible", "provisional", "waive")
    if name.startswith((*flags, "expedited", "block")):
        return rng.choice([True, False])
    numeric = ("amount", "limit", "months", "fee", "apy", "difference")
    if any(part in name for part in numeric):
        return rng.choice(_NUMBERS)
    return rng.choice(_CODES)


def _fuzz_calls(
    task: Mapping[str, Any], rng: random.Random, trials: int
) -> Iterator[tuple[set[str], list[Call]]]:
    raw = task["_raw"]
    pools = _pools(raw)
    for name, tool in DISCOVERABLE.items():
        params = [p for p in inspect.signature(tool.run).parameters if p != "db"]
        for _ in range(trials):
            args = {p: _value(p, pools, rng) for p in params if rng.random() > 0.05}
            call: Call = (
                "assistant",
                "call_discoverable_agent_tool",
                {"agent_tool_name": name, "arguments": json.dumps(args)},
            )
            unlock: Call = (
                "assistant",
                "unlock_discoverable_agent_tool",
                {"agent_tool_name": name},
            )
            calls = [unlock, call, call] if rng.random() < 0.3 else [unlock, call]
            yield ({name} if rng.random() < 0.5 else set()), calls
    for name, (_, uparams) in USER_DISCOVERABLE.items():
        for _ in range(trials):
            args = {p: _value(p, pools, rng) for p in uparams if rng.random() > 0.05}
            give: list[Call] = [
                ("assistant", "give_discoverable_user_tool", {"discoverable_tool_name": name})
            ]
            use: Call = (
                "user",
                "call_discoverable_user_tool",
                {"discoverable_tool_name": name, "arguments": json.dumps(args)},
            )
            yield set(), (give if rng.random() < 0.8 else []) + [use]


def main() -> None:
    """Run the three checks and print their counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tau2-src", type=Path, required=True, help="a tau2-bench checkout's src")
    parser.add_argument("--fuzz", type=int, default=12, help="calls per tool and task (fuzz)")
    opts = parser.parse_args()
    base = read_package_json("sessionproof.suites.tau2.banking", "db.json")
    check = Compare(_load_tau2(opts.tau2_src), base)
    tasks = packaged_tasks()
    runs: list[tuple[str, Callable[[], None]]] = []

    def gold() -> None:
        for t in tasks:
            check.check(t, _reads(t), _as_calls(t["evaluation_criteria"]["actions"]))

    def perturbed() -> None:
        for t in tasks:
            gold_actions = t["evaluation_criteria"]["actions"]
            for i, action in enumerate(gold_actions):
                before, after = gold_actions[:i], gold_actions[i + 1 :]
                variants = [before + after, [*before, action, action, *after]]
                variants += [[*before, m, *after] for m in _mutations(action)]
                for v in variants:
                    check.check(t, _reads(t), _as_calls(v))

    def fuzz() -> None:
        rng = random.Random(7)
        for t in tasks[::4]:
            raw = copy.deepcopy(base)
            data = _agent_data(t)
            if data:
                merge(raw, data)
            for allow, calls in _fuzz_calls({**t, "_raw": raw}, rng, opts.fuzz):
                check.check(t, allow, calls)

    runs = [("gold", gold), ("perturbed", perturbed), ("fuzz", fuzz)]
    for label, run in runs:
        before_n, before_bad = check.sequences, check.differing
        run()
        n, bad = check.sequences - before_n, check.differing - before_bad
        print(f"{label}: {n} sequences, {bad} with a different final DB")


if __name__ == "__main__":
    main()
