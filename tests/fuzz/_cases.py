"""Fuzz cases: (input kind, seed, index) → the files to write, the CLI command to run on them,
and the mutations that made them. Everything is drawn from `random.Random` seeded with the
triple, so a case is rebuilt exactly from its index."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from . import _seeds
from ._cases_traces import TRACE_KINDS, build_trace_case
from ._jsonout import dumps
from ._mutate import mutate, unmark
from ._text import mutate_text
from ._yaml import SLOT, YAML_SCALARS, suite_text

KINDS = (
    "tau2",
    "tau-bench",
    "openai",
    "anthropic",
    "bfcl-outputs",
    "bfcl-questions",
    "bfcl-answers",
    "suite",
    "agent",
    *TRACE_KINDS,
)
"""Every input kind the fuzzer drives."""

FOCUS: dict[str, tuple[str, ...]] = {
    "tau2": (
        "trial",
        "task_id",
        "seed",
        "reward",
        "db_match",
        "messages",
        "tool_calls",
        "arguments",
        "role",
        "content",
        "id",
        "actions",
        "requestor",
        "termination_reason",
        "domain_name",
        "user_scenario",
        "evaluation_criteria",
    ),
    "tau-bench": (
        "task_id",
        "trial",
        "reward",
        "traj",
        "actions",
        "kwargs",
        "outputs",
        "role",
        "tool_calls",
        "arguments",
        "reward_info",
        "task",
    ),
    "openai": (
        "messages",
        "role",
        "content",
        "tool_calls",
        "function",
        "arguments",
        "tool_call_id",
        "domain",
        "task",
        "outcome",
        "reward",
        "id",
    ),
    "anthropic": (
        "messages",
        "role",
        "content",
        "type",
        "input",
        "tool_use_id",
        "id",
        "name",
        "system",
        "domain",
        "outcome",
        "is_error",
    ),
    "bfcl-outputs": ("id", "model_output_decoded"),
    "bfcl-questions": ("id", "question", "function", "parameters", "properties", "type", "name"),
    "bfcl-answers": ("id", "ground_truth"),
    "suite": (
        "id",
        "domain",
        "max_steps",
        "user",
        "turns",
        "instructions",
        "gold_actions",
        "tool",
        "args",
        "turn",
        "communicate",
        "forbidden",
        "metadata",
    ),
}

_FILE_FORMAT = {"tau2": "tau2", "tau-bench": "tau-bench", "openai": "openai"}
_FILE_FORMAT["anthropic"] = "anthropic"
_HOSTILE = ("python:tests.fuzz.hostile:agent", "python:tests.fuzz.hostile:sync_agent")


@dataclass
class Case:
    """One fuzz case: files (relative names) written in a fresh directory, then `argv`."""

    kind: str
    index: int
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    mutations: list[str] = field(default_factory=list)
    hostile_seed: int | None = None
    """Seed for `tests.fuzz.hostile.configure`, for agent cases."""

    def describe(self) -> str:
        """The mutations and the command, one line (a crash report's reproducer)."""
        what = "; ".join(self.mutations) or "unmutated seed"
        return f"{what} | sessionproof {' '.join(self.argv)}"


def _structural(doc: Any, rng: random.Random, kind: str, most: int) -> list[str]:
    # Mostly one or two mutations: a case broken in many places stops at the first.
    count = rng.choices(range(most + 1), weights=[2, 6, 3, 1][: most + 1])[0]
    return [mutate(doc, rng, FOCUS.get(kind, ())) for _ in range(count)]


def _text_pass(data: bytes, rng: random.Random, forced: bool, notes: list[str]) -> bytes:
    if forced or rng.random() < 0.25:
        data, note = mutate_text(data, rng)
        notes.append(note)
    return data


def _jsonl(lines: list[Any], rng: random.Random) -> bytes:
    ascii_only = rng.random() < 0.3
    return b"\n".join(dumps(unmark(line), ascii_only=ascii_only) for line in lines) + b"\n"


def _transcript(kind: str, rng: random.Random, case: Case) -> None:
    if kind == "tau2":
        seeds: list[Any] = _seeds.tau2_seeds()
    elif kind == "tau-bench":
        seeds = _seeds.taubench_seeds()
    else:
        seeds = _seeds.chat_seeds(kind)
    doc = rng.choice(seeds)
    case.mutations += _structural(doc, rng, kind, 3)
    jsonl = kind in ("openai", "anthropic")
    name = "log.jsonl" if jsonl else "results.json"
    data = _jsonl(doc, rng) if jsonl else dumps(unmark(doc), ascii_only=rng.random() < 0.3)
    case.files[name] = _text_pass(data, rng, not case.mutations, case.mutations)
    fmt = ["--format", _FILE_FORMAT[kind]] if rng.random() < 0.5 else []
    extra = ["--domain", rng.choice(["airline", "retail", "demo", "nope"])]
    domain = extra if rng.random() < 0.1 else []
    out = ["--json"] if rng.random() < 0.5 else []
    if rng.random() < 0.25:
        case.argv = ["rerun", name, "--model", "oracle", *fmt, *domain, "--store", "s.duckdb"]
        case.argv += ["--max-steps", "12", *out]
    else:
        case.argv = ["score", name, *fmt, *domain, "--store", "s.duckdb", *out]


def _bfcl(kind: str, rng: random.Random, case: Case) -> None:
    questions, answers, outputs = _seeds.bfcl_seeds()
    target = {"bfcl-questions": questions, "bfcl-answers": answers, "bfcl-outputs": outputs}[kind]
    case.mutations += _structural(target, rng, kind, 3)
    files = {"q.jsonl": questions, "a.jsonl": answers, "out.jsonl": outputs}
    for name, lines in files.items():
        data = _jsonl(lines, rng)
        if lines is target:
            data = _text_pass(data, rng, not case.mutations, case.mutations)
        case.files[name] = data
    case.argv = ["score", "out.jsonl", "--format", "bfcl", "--questions", "q.jsonl"]
    case.argv += ["--answers", "a.jsonl"]
    if rng.random() < 0.5:
        case.argv += ["-o", "verdicts.jsonl"]
    if rng.random() < 0.5:
        case.argv.append("--json")


def _suite(rng: random.Random, case: Case) -> None:
    (doc,) = _seeds.suite_seeds()
    as_json = rng.random() < 0.15
    slot: str | None = None
    hazard = rng.random()
    if as_json or hazard >= 0.35 or rng.random() < 0.5:
        case.mutations += _structural(doc, rng, "suite", 2)
    if not as_json and hazard < 0.35:
        slot = (
            "bomb" if hazard < 0.1 else "recursive" if hazard < 0.15 else rng.choice(YAML_SCALARS)
        )
        spots = [(s, k) for s in doc if isinstance(s, dict) for k in s]
        spots += [
            (s["criteria"], k)
            for s in doc
            if isinstance(s, dict) and isinstance(s.get("criteria"), dict)
            for k in s["criteria"]
        ]
        if slot in ("bomb", "recursive"):
            spots = [(s, "metadata") for s in doc if isinstance(s, dict)] or spots
        if spots:
            holder, key = rng.choice(spots)
            holder[key] = SLOT
            case.mutations.append(f"YAML slot at {key}")
        else:
            slot = None
    if as_json:
        data = dumps(unmark(doc), ascii_only=rng.random() < 0.3)
        name = "suite.json"
    else:
        data, label = suite_text(unmark(doc), rng, slot)
        if label:
            case.mutations.append(label)
        name = "suite.yml" if rng.random() < 0.2 else "suite.yaml"
    case.files[name] = _text_pass(data, rng, not case.mutations, case.mutations)
    case.argv = ["run", "--suite", name, "--model", "oracle", "--store", "s.duckdb"]
    case.argv += ["--trials", str(rng.choice([1, 1, 2])), "--max-steps", "20"]
    if rng.random() < 0.15:
        case.argv += ["--faults", "20%"] if rng.random() < 0.5 else ["--guard"]
    if rng.random() < 0.5:
        case.argv.append("--json")


def _agent(rng: random.Random, case: Case) -> None:
    case.hostile_seed = rng.randrange(2**32)
    model = rng.choice(_HOSTILE)
    case.mutations.append(f"hostile agent {model.rsplit(':', 1)[1]} seed {case.hostile_seed}")
    steps = str(rng.choice([4, 8]))
    if rng.random() < 0.2:
        lines = _seeds.chat_seeds("openai")[2]
        case.files["log.jsonl"] = _jsonl(lines, rng)
        case.argv = ["rerun", "log.jsonl", "--model", model, "--store", "s.duckdb"]
        case.argv += ["--max-steps", steps, "--concurrency", "1"]
    else:
        limit = str(rng.randint(1, 3))
        case.argv = ["run", "--suite", "demo", "--limit", limit, "--model", model]
        case.argv += ["--store", "s.duckdb", "--max-steps", steps, "--concurrency", "1"]
        if rng.random() < 0.2:
            case.argv += ["--faults", "20%"] if rng.random() < 0.5 else ["--guard"]
    if rng.random() < 0.5:
        case.argv.append("--json")


def build_case(kind: str, seed: int, index: int) -> Case:
    """Case `index` of input kind `kind` for fuzz seed `seed` (pure: same triple, same case)."""
    if kind not in KINDS:
        raise ValueError(f"unknown fuzz kind {kind!r}; kinds: {', '.join(KINDS)}")
    rng = random.Random(f"sessionproof-fuzz:{seed}:{kind}:{index}")
    case = Case(kind=kind, index=index, argv=[])
    if kind in ("tau2", "tau-bench", "openai", "anthropic"):
        _transcript(kind, rng, case)
    elif kind.startswith("bfcl-"):
        _bfcl(kind, rng, case)
    elif kind == "suite":
        _suite(rng, case)
    elif kind in TRACE_KINDS:
        build_trace_case(kind, rng, case)
    else:
        _agent(rng, case)
    return case
