"""`run --vary judge --judge MODEL` and the judge's share in `show --metrics --split`: real
runs against a loopback OpenAI-compatible server that plays the agent, a fixed simulated user
and the NL judge. Half the scenarios are decided by the agent's seed (it states the fact the
scenario asks for unless its seed % 3 == 0), the other half by the judge's (it finds the
assertion unmet when its seed % 3 == 0), so what each design varies, and the shares, are
known from the seeds the server received."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof.cli._internal import app
from sessionproof.errors import ConfigError
from sessionproof.executors._setup import load
from sessionproof.records import Scenario
from sessionproof.runs import RunConfig, run
from sessionproof.runs._resume import resume, resumed_config
from sessionproof.runs._run import new_manifest
from sessionproof.scoring.stats._split import variance_shares, within_variance
from sessionproof.store import Store
from sessionproof.suites.tau2._suite import Tau2Suite

from ..agents.fakeprovider import FakeProvider, Reply, Seen, completion

runner = CliRunner()
TRIALS = 6
SCENARIOS = 8


def _decider(scenario_id: str) -> str:
    """Which party's seed decides the scenario's verdict (half the scenarios each)."""
    return "agent" if int(scenario_id[1:]) % 2 else "judge"


def _sid(text: str) -> str:
    found = re.search(r"\[scenario (j\d+)\]", text)
    assert found is not None, text
    return found.group(1)


SEEN: dict[str, list[int | None]] = {"agent-m": [], "user-m": [], "judge-m": []}
"""The seeds each model's requests carried (the server records them)."""


def _respond(seen: Seen) -> Reply:
    body = seen.body if isinstance(seen.body, dict) else {}
    model = str(body.get("model", ""))
    messages: list[dict[str, Any]] = body.get("messages", [])
    seed = body.get("seed")
    SEEN.setdefault(model, []).append(seed)
    text = "\n".join(str(m.get("content") or "") for m in messages)
    if model == "user-m":  # fixed: the same words whatever its seed
        spoke = sum(m["role"] == "user" for m in messages) > 1
        sid = _sid(str(messages[0]["content"]))
        return Reply(completion("Thanks. ###STOP###" if spoke else f"Hello [scenario {sid}]"))
    sid = _sid(text)
    if model == "judge-m":
        asked = str(messages[-1]["content"])
        n = len(re.findall(r"^\d+\. ", asked.split("Transcript:")[0], flags=re.M))
        met = not (_decider(sid) == "judge" and isinstance(seed, int) and seed % 3 == 0)
        results = [{"met": met, "justification": "seed-decided"}] * n
        return Reply(completion(json.dumps({"results": results})))
    gives_up = _decider(sid) == "agent" and isinstance(seed, int) and seed % 3 == 0
    return Reply(completion("I cannot help." if gives_up else f"Noted: ok-{sid}."))


@pytest.fixture(scope="module")
def server() -> Iterator[FakeProvider]:
    """The loopback server, stopped after the module's tests."""
    fake = FakeProvider(responder=_respond).start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture(scope="module")
def suite() -> Tau2Suite:
    """tau2 retail scenarios judged on a fact to state (the agent's part) and one NL
    assertion (the judge's part), with no action to replay."""
    base = load("tau2-retail", 1).scenarios[0].metadata["tau2_task"]
    scenarios = []
    for i in range(SCENARIOS):
        sid = f"j{i}"
        criteria = {
            "actions": None,
            "communicate_info": [f"ok-{sid}"],
            "nl_assertions": ["The agent was courteous."],
            "reward_basis": ["COMMUNICATE", "NL_ASSERTION"],
        }
        task = {"id": sid, "user_scenario": base["user_scenario"], "evaluation_criteria": criteria}
        scenarios.append(
            Scenario.model_validate(
                {
                    "id": sid,
                    "domain": "retail",
                    "user": {"instructions": f"Greet the agent. [scenario {sid}]"},
                    "criteria": {"evaluator": "tau2"},
                    "metadata": {"tau2_task": task},
                }
            )
        )
    return Tau2Suite("judge-split", scenarios)


def _config(suite: Tau2Suite, server: FakeProvider, **options: Any) -> RunConfig:
    return RunConfig(
        suite=suite,
        model=f"openai-compat:agent-m@{server.url}",
        user_model=f"openai-compat:user-m@{server.url}",
        trials=TRIALS,
        **options,
    )


def _show(store: Path, run_id: str, *extra: str) -> dict[str, Any]:
    result = runner.invoke(
        app, ["show", run_id, "--store", str(store), "--metrics", "--json", *extra]
    )
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _trials(store: Path, run_id: str) -> dict[str, tuple[int, int]]:
    flakiness = _show(store, run_id)["arms"]["baseline"]["flakiness"]
    return {f["scenario_id"]: (f["trials"], f["successes"]) for f in flakiness}


@pytest.fixture(scope="module")
def runs(
    suite: Tau2Suite, server: FakeProvider, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, str]]:
    store = tmp_path_factory.mktemp("judge-split-store") / "s.duckdb"
    judge = f"openai-compat:judge-m@{server.url}"
    made = {
        party: run(_config(suite, server, vary=party, judge=judge, store=store)).run_id
        for party in ("agent", "user", "judge", "all")
    }
    return store, made


def test_each_design_varies_its_party_alone(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    moved: dict[str, set[str]] = {}
    for party, run_id in made.items():
        counts = _trials(store, run_id)
        assert len(counts) == SCENARIOS and all(n == TRIALS for n, _ in counts.values())
        moved[party] = {sid for sid, (n, c) in counts.items() if 0 < c < n}
    assert moved["judge"] and {_decider(s) for s in moved["judge"]} == {"judge"}
    assert moved["agent"] and {_decider(s) for s in moved["agent"]} == {"agent"}
    assert moved["user"] == set()  # the user is fixed: nothing moves
    assert {_decider(s) for s in moved["all"]} == {"agent", "judge"}


def test_the_judge_got_the_sessions_judge_seed(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    sid = next(s for s in _trials(store, made["judge"]) if _decider(s) == "judge")
    seeds = []
    for trial in range(TRIALS):
        result = runner.invoke(
            app,
            ["show", made["judge"], "--store", str(store), "--session", f"{sid}.t{trial}",
             "--json"],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        session = json.loads(result.stdout)
        vary = session["metadata"]["vary"]
        assert vary["party"] == "judge"
        seeds.append((vary["agent_seed"], vary["user_seed"], vary["judge_seed"]))
        # The verdict follows the seed the judge was sent, as the server decides it.
        assert session["outcome"]["success"] is (vary["judge_seed"] % 3 != 0)
    assert len({(a, u) for a, u, _ in seeds}) == 1  # agent's and user's fixed
    assert len({j for _, _, j in seeds}) == TRIALS
    assert {j for _, _, j in seeds} <= set(SEEN["judge-m"])


def test_split_gives_the_judge_its_share(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    data = _show(store, made["judge"], "--split", f"{made['agent']},{made['user']},{made['all']}")
    split = data["arms"]["baseline"]["noise"]["split"]
    parties = split["parties"]
    counts = {p: _trials(store, made[p]) for p in ("agent", "user", "judge")}
    shares, intervals, common = variance_shares(counts)
    assert intervals is not None
    for party in ("agent", "user", "judge"):
        assert parties[party]["run_id"] == made[party]
        assert parties[party]["share"] == pytest.approx(shares[party])
        assert parties[party]["variance"] == pytest.approx(within_variance(counts[party])[0])
        assert parties[party]["share_ci95"] == pytest.approx(list(intervals[party]))
    assert parties["user"]["share"] == 0.0
    assert 0 < parties["judge"]["share"] < 1 and 0 < parties["agent"]["share"] < 1
    assert parties["judge"]["note"] == ""
    assert split["scenarios"] == len(common) == SCENARIOS
    result = runner.invoke(
        app,
        ["show", made["agent"], "--store", str(store), "--metrics", "--split", made["judge"]],
        env={"COLUMNS": "240"},
    )
    assert result.exit_code == 0, result.output
    assert "verdict variance by party" in result.output and made["judge"] in result.output
    # The judge's row: the same numbers as the JSON of the same two runs.
    two = _show(store, made["agent"], "--split", made["judge"])["arms"]["baseline"]["noise"]
    judged = two["split"]["parties"]["judge"]
    share, (low, high) = judged["share"], judged["share_ci95"]
    judge_row = next(line for line in result.output.splitlines() if made["judge"] in line)
    assert judge_row.split()[1] == "judge"  # the table's party column
    assert f"{judged['variance']:.4f}" in judge_row
    assert f"{100 * share:.1f}% (95% {100 * low:.1f}%–{100 * high:.1f}%)" in judge_row


def test_split_refuses_runs_judged_by_another_judge(
    runs: tuple[Path, dict[str, str]], suite: Tau2Suite, server: FakeProvider
) -> None:
    store, made = runs
    unjudged = run(_config(suite, server, vary="agent", store=store)).run_id
    result = runner.invoke(
        app, ["show", made["judge"], "--store", str(store), "--metrics", "--split", unjudged]
    )
    assert isinstance(result.exception, ConfigError)
    assert "do not pair (judge: " in str(result.exception)


def test_an_ordinary_reference_says_its_judge_was_unseeded(
    runs: tuple[Path, dict[str, str]], suite: Tau2Suite, server: FakeProvider
) -> None:
    store, made = runs
    judge = f"openai-compat:judge-m@{server.url}"
    ordinary = run(_config(suite, server, judge=judge, store=store)).run_id
    data = _show(store, made["judge"], "--split", f"{made['agent']},{ordinary}")
    notes = data["arms"]["baseline"]["noise"]["split"]["notes"]
    assert any("its simulated user and its judge got no seed" in n for n in notes), notes


def test_vary_judge_is_refused_without_a_seeded_model_judge(
    tmp_path: Path, suite: Tau2Suite, server: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k-test")  # never sent: refused before any call
    store = tmp_path / "s.duckdb"
    asked = len(server.posts())
    for vary, judge, said in (
        ("judge", None, "--vary judge: the run has no model judge (give --judge MODEL)"),
        ("judge", "oracle", "--vary judge: the oracle is deterministic"),
        (
            "judge",
            "anthropic:claude-x",
            "--vary judge: anthropic's Messages API takes no seed (seed not honoured)",
        ),
        (
            "judge",
            "http-agent:http://127.0.0.1:9/turn",
            "--vary judge: an http-agent/mcp-agent turn carries no seed (seed not honoured)",
        ),
        (
            "agent",
            "anthropic:claude-x",
            "--vary agent: the judge anthropic:claude-x cannot be held fixed",
        ),
    ):
        with pytest.raises(ConfigError) as refused:
            run(_config(suite, server, vary=vary, judge=judge, store=store))
        assert said in str(refused.value)
        assert "\n" not in str(refused.value)
    # Nothing was recorded and no model was asked.
    assert len(server.posts()) == asked
    if store.exists():
        with Store.open_for_reading(store) as db:
            assert db.list_runs() == []
    # The CLI says the same in one line.
    result = runner.invoke(app, ["run", "--limit", "1", "--vary", "judge", "--model", "oracle"])
    assert isinstance(result.exception, ConfigError)
    assert "--vary judge: the run has no model judge" in str(result.exception)


def test_resume_keeps_vary_judge(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    with Store.open_for_reading(store) as db:
        manifest = db.get_run(made["judge"])
    assert manifest.options["vary"] == "judge"
    config = resumed_config(manifest, store)
    assert config.vary == "judge" and config.judge is not None and "judge-m" in config.judge


def test_a_resumed_vary_judge_run_judges_as_the_original(
    runs: tuple[Path, dict[str, str]], suite: Tau2Suite, server: FakeProvider
) -> None:
    """A `--vary judge` run killed before any session finished, resumed: the judge's seeds
    (and so the verdicts) are the ones the uninterrupted run drew."""
    store, made = runs
    judge = f"openai-compat:judge-m@{server.url}"
    manifest = new_manifest(_config(suite, server, vary="judge", judge=judge), suite)
    with Store.open(store) as db:
        pending = db.create_run(manifest)
    report = resume(pending, store=store, suite=suite)
    assert report.run_id == pending
    assert _trials(store, pending) == _trials(store, made["judge"])


def test_ordinary_seeds_leave_the_judge_unseeded() -> None:
    """Without --vary the judge gets no seed (its model's own), as before."""
    from sessionproof.engine._internal import session_seeds

    assert session_seeds(3, "sc", 1, None).judge is None
    judged = [session_seeds(3, "sc", t, "judge") for t in range(3)]
    assert len({s.judge for s in judged}) == 3
    assert len({(s.environment, s.agent, s.user) for s in judged}) == 1
    held = [session_seeds(3, "sc", t, "agent") for t in range(3)]
    assert len({s.judge for s in held}) == 1 and None not in {s.judge for s in held}
