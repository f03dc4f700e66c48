"""`run --vary agent|user` and `show --metrics --split`: real runs over demo scenarios played
by a simulated user, where each scenario's verdict is decided by one known party (the agent's
seed or the user's), so what each design may vary, and the shares, are known."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from sessionproof.agents import AgentRequest, AgentResponse, OracleAgent
from sessionproof.agents._internal import STOP_TOKEN
from sessionproof.cli._internal import app
from sessionproof.domains.demo._internal import load_scenarios
from sessionproof.engine._internal import session_seed, session_seeds
from sessionproof.errors import ConfigError
from sessionproof.records import Message
from sessionproof.runs._resume import resumed_config
from sessionproof.scoring.stats._split import variance_shares, within_variance
from sessionproof.store import Store

runner = CliRunner()
_oracle = OracleAgent()
HERE = "tests.cli.test_show_noise_split"
AGENT = f"python:{HERE}:agent"
USER = f"python:{HERE}:user"
TRIALS = 6


def _coin(seed: int | None, salt: str) -> bool:
    return hashlib.sha256(f"{salt}|{seed}".encode()).digest()[0] < 128


def _decider(scenario_id: str) -> str:
    """Which party's seed decides the scenario's verdict (half the scenarios each)."""
    return "agent" if hashlib.sha256(scenario_id.encode()).digest()[0] % 2 else "user"


async def agent(request: AgentRequest) -> AgentResponse:
    """The oracle; on agent-decided scenarios it gives up when its seed's coin says so."""
    assert request.scenario is not None
    if _decider(request.scenario.id) == "agent" and not _coin(request.seed, "agent"):
        return AgentResponse(message=Message.assistant(f"I cannot help. {STOP_TOKEN}"))
    return await _oracle.respond(request)


async def user(request: AgentRequest) -> AgentResponse:
    """The simulated user: states its goal, then ends; on user-decided scenarios it walks
    away at once when its seed's coin says so. Its scenario is read from its instructions."""
    system = request.messages[0].content or ""
    sid = system.split("[scenario ", 1)[1].split("]", 1)[0]
    spoke = any(m.role == "assistant" for m in request.messages)
    if spoke:
        return AgentResponse(message=Message.assistant(f"Thanks. {STOP_TOKEN}"))
    if _decider(sid) == "user" and not _coin(request.seed, "user"):
        return AgentResponse(message=Message.assistant(f"Never mind. {STOP_TOKEN}"))
    goal = system.split("Your goal and what you know:\n", 1)[1].split("\n[scenario", 1)[0]
    return AgentResponse(message=Message.assistant(goal))


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Demo scenarios whose first turn is stated by a simulated user (one turn each)."""
    chosen = []
    for s in load_scenarios():
        if len(s.user.turns) != 2 or any(a.turn for a in s.criteria.gold_actions):
            continue
        data = s.model_dump(mode="json", exclude_defaults=True)
        data["user"] = {"instructions": f"{s.user.turns[0]}\n[scenario {s.id}]"}
        chosen.append(data)
    path = tmp_path_factory.mktemp("split") / "suite.yaml"
    path.write_text(yaml.safe_dump(chosen[:10], sort_keys=False))
    return path


def _run(store: Path, suite: Path, *extra: str) -> str:
    result = runner.invoke(
        app,
        ["run", "--suite", str(suite), "--model", AGENT, "--user-model", USER, "--trials",
         str(TRIALS), "--store", str(store), "--json", *extra],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["run_id"])


def _show(store: Path, run_id: str, *extra: str) -> dict[str, Any]:
    result = runner.invoke(
        app, ["show", run_id, "--store", str(store), "--metrics", "--json", *extra]
    )
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _trials(store: Path, run_id: str) -> dict[str, list[bool]]:
    flakiness = _show(store, run_id)["arms"]["baseline"]["flakiness"]
    return {f["scenario_id"]: (f["trials"], f["successes"]) for f in flakiness}


@pytest.fixture(scope="module")
def runs(suite: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    store = tmp_path_factory.mktemp("split-store") / "s.duckdb"
    made = {
        "agent": _run(store, suite, "--vary", "agent"),
        "user": _run(store, suite, "--vary", "user"),
        "all": _run(store, suite, "--vary", "all"),
        "ordinary": _run(store, suite),
    }
    return store, made


def test_each_design_varies_its_party_alone(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    moved: dict[str, set[str]] = {party: set() for party in made}
    for party, run_id in made.items():
        for sid, (n, c) in _trials(store, run_id).items():
            assert n == TRIALS
            if 0 < c < n:
                moved[party].add(sid)
    # A scenario's verdict moves only where the party that decides it varies.
    assert moved["agent"] and all(_decider(s) == "agent" for s in moved["agent"])
    assert moved["user"] and all(_decider(s) == "user" for s in moved["user"])
    # Every seed varies: both kinds of scenario move. Without --vary the Python user gets no
    # seed (None, the same every trial): only the agent-decided ones move.
    assert {_decider(s) for s in moved["all"]} == {"agent", "user"}
    assert moved["ordinary"] and all(_decider(s) == "agent" for s in moved["ordinary"])


def test_split_shares_in_json_and_terminal(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    data = _show(store, made["agent"], "--split", f"{made['user']},{made['all']}")
    split = data["arms"]["baseline"]["noise"]["split"]
    parties = split["parties"]
    counts = {p: _trials(store, made[p]) for p in ("agent", "user")}
    shares, _, common = variance_shares(counts)
    assert parties["agent"]["share"] == pytest.approx(shares["agent"])
    assert parties["user"]["share"] == pytest.approx(shares["user"])
    assert parties["agent"]["share"] + parties["user"]["share"] == pytest.approx(1.0)
    assert 0 < parties["agent"]["share"] < 1
    assert split["scenarios"] == len(common)
    assert parties["judge"]["share"] is None and "--vary judge" in parties["judge"]["note"]
    assert split["all_seeds"]["run_id"] == made["all"]
    t = {p: within_variance(_trials(store, made[p]))[0] for p in made}
    assert split["notes"] == []
    assert parties["agent"]["variance"] == pytest.approx(t["agent"])
    assert split["all_seeds"]["variance"] == pytest.approx(t["all"])
    assert split["interaction_excess"] == pytest.approx(t["agent"] + t["user"] - t["all"])
    result = runner.invoke(
        app,
        ["show", made["user"], "--store", str(store), "--metrics", "--split", made["agent"]],
        env={"COLUMNS": "240"},
    )
    assert result.exit_code == 0, result.output
    assert "verdict variance by party" in result.output and "not varied" in result.output


def test_an_ordinary_run_as_the_reference_is_said(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    data = _show(store, made["agent"], "--split", f"{made['user']},{made['ordinary']}")
    split = data["arms"]["baseline"]["noise"]["split"]
    assert split["all_seeds"]["run_id"] == made["ordinary"]
    assert any("was run without --vary" in n for n in split["notes"])
    both = runner.invoke(
        app,
        ["show", made["agent"], "--store", str(store), "--metrics", "--split",
         f"{made['all']},{made['ordinary']}"],
    )  # fmt: skip
    assert isinstance(both.exception, ConfigError)
    assert "both vary every seed" in str(both.exception)


def test_the_vary_seeds_are_recorded_on_each_session(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    result = runner.invoke(app, ["show", made["user"], "--store", str(store), "--json"])
    assert result.exit_code == 0
    sessions = [
        json.loads(
            runner.invoke(
                app, ["show", made["user"], "--store", str(store), "--session", sid, "--json"]
            ).stdout
        )
        for sid in (f"{_first(store, made['user'])}.t0", f"{_first(store, made['user'])}.t1")
    ]
    first, second = (s["metadata"]["vary"] for s in sessions)
    assert first["party"] == second["party"] == "user"
    assert first["agent_seed"] == second["agent_seed"]
    assert first["environment_seed"] == second["environment_seed"]
    assert first["user_seed"] != second["user_seed"]


def _first(store: Path, run_id: str) -> str:
    return sorted(_trials(store, run_id))[0]


def test_split_refuses_runs_that_do_not_pair(
    runs: tuple[Path, dict[str, str]], suite: Path
) -> None:
    store, made = runs
    other = _run(store, suite, "--vary", "user", "--seed", "5")
    result = runner.invoke(
        app, ["show", made["agent"], "--store", str(store), "--metrics", "--split", other]
    )
    assert isinstance(result.exception, ConfigError)
    assert "do not pair (seed: 0 in" in str(result.exception)
    twice = runner.invoke(
        app, ["show", made["user"], "--store", str(store), "--metrics", "--split", other]
    )
    assert isinstance(twice.exception, ConfigError) and "both vary user" in str(twice.exception)
    plain = runner.invoke(
        app, ["show", made["all"], "--store", str(store), "--split", made["agent"]]
    )
    assert isinstance(plain.exception, ConfigError) and "goes with --metrics" in str(
        plain.exception
    )
    alone = runner.invoke(
        app, ["show", made["all"], "--store", str(store), "--metrics", "--split", made["all"]]
    )
    assert isinstance(alone.exception, ConfigError)


def test_vary_refuses_a_party_without_a_seed(tmp_path: Path, suite: Path) -> None:
    store = tmp_path / "s.duckdb"
    for args, said in (
        (["--model", "oracle", "--vary", "agent"], "the oracle is deterministic"),
        (["--model", AGENT, "--vary", "user"], "no scenario of this run has a simulated user"),
        (["--model", AGENT, "--vary", "judge"], "--vary judge: the run has no model judge"),
        (["--model", AGENT, "--vary", "nobody"], "--vary must be one of agent, user, judge"),
    ):
        result = runner.invoke(app, ["run", "--limit", "1", "--store", str(store), *args])
        assert isinstance(result.exception, ConfigError), result.output
        assert said in str(result.exception)
    assert not store.exists() or "r" not in runner.invoke(
        app, ["runs", "--store", str(store), "--json"]
    ).stdout.strip("[] \n")


def test_resume_keeps_the_vary_party(runs: tuple[Path, dict[str, str]]) -> None:
    store, made = runs
    with Store.open_for_reading(store) as db:
        manifest = db.get_run(made["user"])
        plain = db.get_run(made["ordinary"])
    assert manifest.options["vary"] == "user" and "vary" not in plain.options
    assert resumed_config(manifest, store).vary == "user"
    assert resumed_config(plain, store).vary is None


def test_forked_workers_vary_the_same_seeds(runs: tuple[Path, dict[str, str]], suite: Path) -> None:
    store, made = runs
    forked = _run(store, suite, "--vary", "user", "--executor", "local:2", "--seed", "0")
    assert _trials(store, forked) == _trials(store, made["user"])


def test_an_ordinary_run_keeps_its_seeds() -> None:
    """Without --vary the agent and the environment get the session seed, as before, and the
    simulated user none (its model's own)."""
    seeds = session_seeds(3, "sc", 4, None)
    assert seeds.environment == seeds.agent == session_seed(3, "sc", 4)
    assert seeds.user is None
    agent_varied = [session_seeds(3, "sc", t, "agent") for t in range(3)]
    assert len({s.agent for s in agent_varied}) == 3
    assert len({(s.environment, s.user) for s in agent_varied}) == 1
    every = [session_seeds(3, "sc", t, "all") for t in range(3)]
    assert [s.agent for s in every] == [session_seed(3, "sc", t) for t in range(3)]
    assert len({s.user for s in every}) == 3 and None not in {s.user for s in every}
    user_varied = [session_seeds(3, "sc", t, "user") for t in range(3)]
    assert len({s.user for s in user_varied}) == 3
    assert len({(s.environment, s.agent) for s in user_varied}) == 1


def test_the_report_of_a_vary_design_shows_the_split(
    runs: tuple[Path, dict[str, str]], suite: Path, tmp_path: Path
) -> None:
    from sessionproof.runs import report

    store, made = runs
    ids = [made["agent"], made["user"], made["all"]]
    shown = _show(store, made["agent"], "--metrics", "--split", f"{made['user']},{made['all']}")
    split = shown["arms"]["baseline"]["noise"]["split"]
    page = report(ids, tmp_path / "r.html", store).read_text()
    assert "verdict variance by party · arm baseline" in page
    for party in ("agent", "user"):
        share = split["parties"][party]["share"]
        assert f"{share * 100:.1f}%" in page, party
    # A report of runs that include a --vary run but are not one design says why.
    other = _run(store, suite, "--vary", "user", "--seed", "5")
    odd = report([made["agent"], other], tmp_path / "o.html", store).read_text()
    assert "no variance split: these runs are not one --vary design" in odd
    assert "verdict variance by party" not in odd
    # An ordinary comparison of two runs (no --vary) gets neither.
    again = _run(store, suite, "--seed", "3")
    plain = report([made["ordinary"], again], tmp_path / "p.html", store).read_text()
    assert "verdict variance by party" not in plain and "no variance split" not in plain


def test_report_splits_of_two_runs_that_both_vary_every_seed_say_why(
    runs: tuple[Path, dict[str, str]],
) -> None:
    from sessionproof.runs._vary import report_splits

    store, made = runs
    with Store.open_for_reading(store) as db:
        splits, why = report_splits(db, [made["ordinary"], made["all"]])
    assert splits == {} and "both vary every seed" in why
