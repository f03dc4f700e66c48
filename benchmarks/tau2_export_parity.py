"""`export --format tau2` judged by tau2-bench's own evaluator: equal rewards, simulation by
simulation (issue 40 item 4).

For each domain, `sessionproof run --suite tau2-DOMAIN --model oracle` runs two arms (the
clean one, and one with injected tool faults so that some sessions fail and some calls never
reach the domain), each arm is exported with `export RUN_ID --format tau2 --arm ARM` (tau2's
file has no arms), and tau2-bench's
`Results` model loads the file in tau2's own interpreter, where `evaluate_simulation`
(`EvaluationType.ALL`, strict replay) grades every simulation. A simulation sessionproof
judged must get the same reward; one it left unjudged (an NL assertion with no judge here)
carries no reward_info, and tau2's components other than the NL assertions are reported for
it (tau2 too would need a model for the rest); where those components already give 0, tau2's
reward is 0 whatever the NL assertions say, and it is compared. banking_knowledge is graded
as tau2's own runner grades it: BM25 retrieval and the task's read-log allowlist (the reads of
its golden trajectory are logged to the DB). A simulation whose reward differs because a task
action was made only by a call the domain never ran (left out of tau2's messages, which
cannot carry it; the export names it in `info.actions_not_carried`) is listed apart from the
unexplained differences.

tau2-bench is installed apart (never into sessionproof's venv), from a checkout:

    python3.12 -m venv /tmp/tau2venv && /tmp/tau2venv/bin/pip install -e TAU2_CHECKOUT rank_bm25
    PYTHONPATH=src .venv/bin/python benchmarks/tau2_export_parity.py \
        --tau2 TAU2_CHECKOUT --tau2-python /tmp/tau2venv/bin/python [--domains retail airline]
        [--anchors ../shared/anchors]

The checkout's data directory is overlaid in a temporary folder (`TAU2_DATA_DIR`); a missing
airline `db.json` (stored as a large file upstream) is assembled there from tau-bench's three
airline tables in ../shared/anchors, as sessionproof's airline domain builds it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

_CLI = Path(sys.executable).with_name("sessionproof")
_ANCHORS = Path(__file__).resolve().parents[1] / ".." / "shared" / "anchors"
_FAULTS = "faults=20%"
_SUITES = {"banking_knowledge": "tau2-banking"}
"""tau2's domain name → sessionproof's suite, where they differ."""

_EVALUATE = r"""
import json, sys
from tau2.data_model.simulation import Results
from tau2.data_model.tasks import RewardType
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

results = Results.model_validate(json.load(open(sys.argv[1])))
only = sys.argv[2:]
domain = results.info.environment_info.domain_name
# banking_knowledge's default retrieval embeds with a hosted model; BM25 is what the run used
# (its `bm25` reading) and needs no network. The DB and the actions do not depend on it.
banking = domain == "banking_knowledge"
tasks = {t.id: t for t in results.tasks}
out = []
for sim in results.simulations:
    task = tasks[sim.task_id]
    # and, as tau2's own runner and evaluate_trajectories build it, the task's read-log
    # allowlist: the reads of its golden trajectory are logged to the DB (without it, a
    # required read that never happened goes unseen).
    env_kwargs = {}
    if banking:
        from tau2.runner.build import _derive_read_log_allowlist
        env_kwargs = {"retrieval_variant": "bm25",
                      "read_log_allowlist": _derive_read_log_allowlist(task)}
    basis = set(task.evaluation_criteria.reward_basis) if task.evaluation_criteria else set()
    needs_model = RewardType.NL_ASSERTION in basis and bool(task.evaluation_criteria.nl_assertions)
    # A call the domain ran before an injected fault answered: its message is the error the
    # agent saw, so the replay's output check is tau2's lenient one (the state is the same).
    strict = not (sim.info or {}).get("ran_under_injected_fault")
    # banking's tools answer in sessionproof's own words (tau2's texts are not copied), so
    # tau2's strict replay, which compares each output's text, is lenient there: the state
    # each call leaves is still replayed and compared.
    strict = strict and not banking
    ids = set(only)
    if ids and sim.id not in ids:
        continue
    row = {"id": sim.id, "ours": sim.reward_info.reward if sim.reward_info else None,
           "strict": strict,
           "actions_not_carried": (sim.info or {}).get("actions_not_carried", [])}
    if not needs_model:
        row["tau2"] = evaluate_simulation(
            sim, task, EvaluationType.ALL, False, domain,
            strict_replay=strict, env_kwargs=env_kwargs,
        ).reward
    else:
        partial = 1.0
        for kind, bases in ((EvaluationType.ENV, {RewardType.DB, RewardType.ENV_ASSERTION}),
                            (EvaluationType.ACTION, {RewardType.ACTION}),
                            (EvaluationType.COMMUNICATE, {RewardType.COMMUNICATE})):
            if basis & bases:
                partial *= evaluate_simulation(
                    sim, task, kind, False, domain,
                    strict_replay=strict, env_kwargs=env_kwargs,
                ).reward
        row["tau2_without_nl"] = partial
        if partial == 0.0:
            row["tau2"] = 0.0  # a product with a 0 in it: the NL assertions cannot change it
    out.append(row)
print(json.dumps(out))
"""


def _data_dir(tau2: Path, into: Path, anchors: Path) -> Path:
    """tau2's data directory, overlaid in `into` with an airline db.json when it is missing."""
    source = tau2 / "data"
    target = into / "data"
    for path in source.rglob("*"):
        if path.is_file():
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.symlink_to(path.resolve())
    airline = target / "tau2" / "domains" / "airline" / "db.json"
    if not airline.exists():
        tables = anchors / "tau-bench" / "tau-bench" / "envs" / "airline" / "data"
        users = json.loads((tables / "users.json").read_text())
        db = {
            "flights": json.loads((tables / "flights.json").read_text()),
            "users": {k: {"user_id": k, **v} for k, v in users.items()},
            "reservations": json.loads((tables / "reservations.json").read_text()),
        }
        airline.parent.mkdir(parents=True, exist_ok=True)
        airline.write_text(json.dumps(db))
    return target


def _sessionproof(*argv: str) -> str:
    done = subprocess.run([str(_CLI), *argv], check=True, capture_output=True, text=True)
    return done.stdout


def _evaluate(path: Path, tau2_python: str, data: Path) -> list[dict[str, object]]:
    env = {**os.environ, "TAU2_DATA_DIR": str(data), "LOGURU_LEVEL": "ERROR"}
    done = subprocess.run(
        [tau2_python, "-c", _EVALUATE, str(path)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    rows: list[dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return rows


def parity(domain: str, tau2_python: str, data: Path, folder: Path) -> dict[str, object]:
    """Run, export (one file per arm: tau2 has no arms) and re-grade one domain; the counts."""
    store = folder / f"{domain}.duckdb"
    suite = _SUITES.get(domain, f"tau2-{domain}")
    argv = ["run", "--suite", suite, "--model", "oracle", "--arm", "baseline"]
    argv += ["--arm", _FAULTS, "--store", str(store), "--json", "--no-report"]
    report = json.loads(_sessionproof(*argv))
    rows = []
    for i, arm in enumerate(("baseline", _FAULTS)):
        out = folder / f"{domain}.{i}.tau2.json"
        _sessionproof(
            "export",
            report["run_id"],
            "--format",
            "tau2",
            "-o",
            str(out),
            "--store",
            str(store),
            "--arm",
            arm,
        )
        rows += _evaluate(out, tau2_python, data)
    judged = [r for r in rows if r["ours"] is not None and "tau2" in r]
    differ = [r for r in judged if r["ours"] != r["tau2"]]
    # A task action only a left-out call made (the domain never ran it) is one tau2's
    # message format cannot carry: the export names it, and such a difference is reported
    # apart, never as an equal reward; any other difference is unexplained.
    unequal = [r for r in differ if not r["actions_not_carried"]]
    not_carried = [r for r in differ if r["actions_not_carried"]]
    unjudged = [r for r in rows if r["ours"] is None]
    passed = sum(r["ours"] == 1.0 for r in judged)
    return {
        "domain": domain,
        "simulations": len(rows),
        "judged_here": len(judged),
        "equal": len(judged) - len(differ),
        "unequal": unequal,
        "differ_actions_not_carried": not_carried,
        "rewards_1_0": [passed, len(judged) - passed],
        "lenient_replays": sum(not r["strict"] for r in rows),
        "not_judged_here": len(unjudged),
        "not_judged_tau2_without_nl_1": sum(r.get("tau2_without_nl") == 1.0 for r in unjudged),
        "judged_but_tau2_needs_model": sum(r["ours"] is not None and "tau2" not in r for r in rows),
    }


def main() -> None:
    """Print one JSON line per domain; exit 1 when a reward differs unexplained (one whose
    export names an action tau2's messages cannot carry is listed apart)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tau2", type=Path, required=True, help="a tau2-bench checkout")
    parser.add_argument("--tau2-python", required=True, help="the interpreter tau2 is installed in")
    parser.add_argument(
        "--domains", nargs="+", default=["retail", "airline", "telecom", "banking_knowledge"]
    )
    parser.add_argument(
        "--anchors", type=Path, default=_ANCHORS, help="the shared anchors (../shared/anchors)"
    )
    args = parser.parse_args()
    bad = False
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = _data_dir(args.tau2, folder / "overlay", args.anchors)
        for domain in args.domains:
            result = parity(domain, args.tau2_python, data, folder)
            bad = bad or bool(result["unequal"])
            print(json.dumps(result))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
