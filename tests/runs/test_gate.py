"""`gate`: paired, sequential decisions between agents of known quality, on real suites and
real stores; what does not pair, and bad levels, are refused with a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionproof.errors import ConfigError, SessionproofError, StatisticsInputError
from sessionproof.runs import RunConfig, gate, run
from sessionproof.scoring.stats._sequential import boundaries
from sessionproof.store import Store

AGENTS = "python:tests.runs.gate_agents"
STEADY, TWIN, SHAKY = f"{AGENTS}:steady", f"{AGENTS}:steady_twin", f"{AGENTS}:shaky"
SLIPPING = f"{AGENTS}:slipping"


def test_a_weaker_candidate_is_worse_and_a_stronger_one_better(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    worse = gate(STEADY, SHAKY, suite="demo", store=store, thin=False)  # full rounds
    assert worse.verdict == "worse"
    assert worse.stopped_because == "decided"
    assert worse.high < -worse.margin and worse.estimate < -0.2
    # Paired: both sides ran the same trials of the same 16 scenarios.
    assert worse.sessions == {"baseline": 16 * worse.rounds, "candidate": 16 * worse.rounds}
    assert worse.exit_code() == 1
    better = gate(SHAKY, STEADY, suite="demo", store=store)
    assert better.verdict == "better" and better.low > 0 and better.exit_code() == 0
    # Each side's sessions went to one stored run of its own, with the gate's seed.
    with Store.open(store) as db:
        for run_id in worse.runs.values():
            sessions = db.load_sessions(run_id)
            assert len(sessions) == 16 * worse.rounds
            assert {s.trial for s in sessions} == set(range(worse.rounds))


def test_cost_counts_the_tokens_of_the_sessions_used(tmp_path: Path) -> None:
    result = gate(STEADY, SHAKY, suite="demo", store=tmp_path / "g.duckdb")
    base, cand = result.cost["baseline"], result.cost["candidate"]
    assert base.sessions == result.sessions["baseline"]
    # steady reports 100 + 20 tokens per decision, shaky 50 + 10: ratio 5 to 1 per call.
    # The split by role (issue 36 item 4): here every token is the agent's.
    b, c = base.tokens["agent"], cand.tokens["agent"]
    assert b.input_tokens == 5 * b.output_tokens > 0
    assert c.input_tokens == 5 * c.output_tokens > 0
    assert base.per_success.tokens == pytest.approx(base.total_tokens / base.successes)
    assert result.to_json()["cost"]["candidate"]["tokens"]["agent"]["input_tokens"] == (
        c.input_tokens
    )


@pytest.mark.slow
def test_on_the_wild_suite_too(tmp_path: Path) -> None:
    result = gate(STEADY, SHAKY, suite="wild", store=tmp_path / "g.duckdb", max_trials=8)
    assert result.verdict == "worse"
    assert len(result.scenarios) == 36


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_agent_against_its_twin_is_never_worse(tmp_path: Path, seed: int) -> None:
    result = gate(STEADY, TWIN, suite="demo", store=tmp_path / "g.duckdb", seed=seed, max_trials=6)
    assert result.verdict in ("not_worse", "inconclusive", "better")
    assert result.verdict != "worse"
    assert result.low <= 0.0 or result.verdict == "better"


def test_identical_agents_tie_everywhere_and_the_budget_stops_the_gate(tmp_path: Path) -> None:
    result = gate(
        "oracle",
        "oracle",
        suite="demo",
        store=tmp_path / "g.duckdb",
        budget_sessions=70,
        thin=False,
    )
    # 70 sessions buy two rounds of 16 scenarios × 2 sides; 32 ties do not yet decide.
    assert result.rounds == result.rounds_planned == 2
    assert result.stopped_because == "budget"
    assert result.verdict == "inconclusive" and result.exit_code() == 2
    assert result.exit_code(fail_inconclusive=True) == 1
    assert result.estimate == 0.0 and result.low < 0 < result.high
    assert result.mde is not None and result.mde > 0
    assert all(r.only_baseline == r.only_candidate == 0 for r in result.scenarios)


def test_a_stored_baseline_pairs_with_a_candidate_run_on_its_scenarios_and_seed(
    tmp_path: Path,
) -> None:
    store = tmp_path / "g.duckdb"
    base = run(RunConfig(suite="demo", model=STEADY, trials=2, seed=7, limit=6, store=store))
    result = gate(base.run_id, TWIN, store=store)
    assert result.stored == {"baseline": True, "candidate": False}
    assert result.rounds <= 2 and result.rounds_planned == 2
    assert result.stopped_because in ("decided", "stored_trials")
    with Store.open(store) as db:
        cand = db.get_run(result.runs["candidate"])
        held = db.load_sessions(base.run_id)
    assert cand.seed == 7 and cand.limit == 6
    assert sorted(cand.scenario_ids) == sorted({s.scenario_id for s in held})
    # Asking for another seed than the stored baseline's cannot pair.
    with pytest.raises(ConfigError, match="seed 7"):
        gate(base.run_id, TWIN, store=store, seed=3)


def test_runs_on_other_scenarios_do_not_pair_and_the_error_names_them(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    three = run(RunConfig(suite="demo", model="oracle", limit=3, store=store)).run_id
    five = run(RunConfig(suite="demo", model="oracle", limit=5, store=store)).run_id
    with Store.open(store) as db:
        extra = sorted(
            {s.scenario_id for s in db.load_sessions(five)}
            - {s.scenario_id for s in db.load_sessions(three)}
        )
    with pytest.raises(ConfigError) as info:
        gate(three, five, store=store)
    message = str(info.value)
    assert "do not pair" in message and "2 only in the candidate" in message
    assert all(sid in message for sid in extra)
    # A stored baseline against a spec run on more of the suite than it ran.
    with pytest.raises(ConfigError, match="2 only in the candidate"):
        gate(three, "oracle", suite="demo", limit=5, store=store)
    # Without --limit the spec side runs the stored run's own scenarios, and pairs.
    assert gate(three, "oracle", store=store, max_trials=1).pairs == 3


def test_unknown_run_ids_and_bad_levels_are_refused(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    run(RunConfig(suite="demo", model="oracle", limit=2, store=store))
    with pytest.raises(SessionproofError, match="no run 'r20990101-000000-abcdef'"):
        gate("r20990101-000000-abcdef", "oracle", store=store)
    with pytest.raises(StatisticsInputError, match="margin"):
        gate("oracle", "oracle", suite="demo", store=store, margin=-0.1)
    with pytest.raises(StatisticsInputError, match="alpha"):
        gate("oracle", "oracle", suite="demo", store=store, alpha=1.5)
    with pytest.raises(ConfigError, match="max-trials"):
        gate("oracle", "oracle", suite="demo", store=store, max_trials=0)
    with pytest.raises(ConfigError, match="less than one round"):
        gate("oracle", "oracle", suite="demo", store=store, budget_sessions=10)
    with pytest.raises(ConfigError, match="--suite is needed"):
        gate("oracle", "oracle", store=store)


def test_the_json_has_the_documented_keys(tmp_path: Path) -> None:
    result = gate("oracle", "oracle", suite="demo", store=tmp_path / "g.duckdb", max_trials=1)
    data = result.to_json()
    assert {
        "verdict",
        "effect",
        "mde",
        "sessions",
        "trials_per_scenario",
        "stopped_because",
        "cost",
    } <= set(data)
    assert set(data["effect"]) == {"estimate", "ci", "margin"}
    assert set(data["sessions"]) == {"baseline", "candidate"}
    assert set(data["cost"]) == {"baseline", "candidate"}
    assert data["trials_per_scenario"] == 1 and data["stopped_because"] == "max_trials"


def test_pairs_without_a_verdict_are_left_out_never_counted_as_losses(tmp_path: Path) -> None:
    result = gate(
        "oracle",
        f"{AGENTS}:unreachable_at_times",
        suite="demo",
        store=tmp_path / "g.duckdb",
        max_trials=2,
    )
    assert result.unjudged_pairs > 0
    assert result.pairs + result.unjudged_pairs == 16 * result.rounds
    assert sum(r.unjudged for r in result.scenarios) == result.unjudged_pairs
    # Where judged, the candidate is the oracle: no pair is lost, the effect is exactly 0.
    assert result.estimate == 0.0
    assert all(r.only_baseline == 0 for r in result.scenarios)
    assert any("not judged" in note for note in result.notes)


def test_pocock_spending_uses_its_own_boundaries(tmp_path: Path) -> None:
    result = gate(STEADY, SHAKY, suite="demo", store=tmp_path / "g.duckdb", spending="pocock")
    assert result.verdict == "worse" and result.spending == "pocock"
    # Pocock-type boundaries are nearly flat; O'Brien-Fleming's start far higher.
    first = result.looks[0].critical
    assert first < 3.5
    obf = gate(STEADY, SHAKY, suite="demo", store=tmp_path / "g.duckdb", spending="obrien-fleming")
    assert obf.looks[0].critical > 5.0


def test_hwang_shih_decani_spending_is_the_family_at_minus_one(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    result = gate(
        STEADY,
        SHAKY,
        suite="demo",
        store=store,
        max_trials=6,
        spending="hwang-shih-decani",
        thin=False,
    )
    assert result.spending == "hwang-shih-decani"
    # its boundaries are the family's at γ = −1: between O'Brien-Fleming's and Pocock's.
    assert result.looks[0].critical == pytest.approx(boundaries(6, 0.05, -1.0)[0])
    assert 2.5 < result.looks[0].critical < 4.0
    assert result.verdict == "worse"


def test_two_stored_runs_pair_on_the_trials_both_hold(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    base = run(RunConfig(suite="demo", model=STEADY, trials=3, limit=4, store=store)).run_id
    cand = run(RunConfig(suite="demo", model=TWIN, trials=2, limit=4, store=store)).run_id
    result = gate(base, cand, store=store)
    assert result.stored == {"baseline": True, "candidate": True}
    assert result.rounds_planned == 2 and result.rounds <= 2
    assert result.runs == {"baseline": base, "candidate": cand}
    if result.stopped_because != "decided":
        assert result.stopped_because == "stored_trials"
    assert any(f"the candidate run {cand} holds 2 whole trial(s)" in n for n in result.notes)
    # Nothing was run: both stores' runs are as they were.
    with Store.open(store) as db:
        assert len(db.list_runs()) == 2


def test_a_spec_that_cannot_be_made_fails_before_anything_runs(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    with pytest.raises(SessionproofError, match="nomodule"):
        gate("oracle", "python:nomodule:x", suite="demo", store=store)
    with Store.open(store) as db:
        assert db.list_runs() == []


def test_an_arm_one_stored_run_lacks_is_named(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    base = run(RunConfig(suite="demo", model="oracle", limit=2, store=store)).run_id
    guarded = run(RunConfig(suite="demo", model="oracle", limit=2, guard=True, store=store))
    with pytest.raises(ConfigError, match="no session of the arm 'baseline'"):
        gate(base, guarded.run_id, store=store)


def _keys(store: Path, run_id: str) -> set[tuple[str, int]]:
    with Store.open(store) as db:
        return {(s.scenario_id, s.trial) for s in db.load_sessions(run_id)}


@pytest.mark.slow
def test_thinned_rounds_run_stable_scenarios_less_on_both_sides_alike(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    # The oracle against itself: every pair ties, so after two full rounds every scenario
    # is stable and runs in a round only by the seeded draw.
    result = gate("oracle", "oracle", suite="demo", store=store, max_trials=4, thin=True)
    assert result.verdict in ("not_worse", "inconclusive")
    assert result.rounds > 2
    base, cand = _keys(store, result.runs["baseline"]), _keys(store, result.runs["candidate"])
    assert base == cand  # every session has its twin
    assert result.sessions["baseline"] == result.sessions["candidate"] == len(cand) == result.pairs
    assert len(cand) < 16 * result.rounds  # fewer sessions than full rounds
    for trial in (0, 1):  # the first two rounds run every scenario
        assert sum(t == trial for _, t in cand) == 16
    assert any(t == 2 for _, t in cand) and sum(t == 2 for _, t in cand) < 16
    assert any("thinned rounds" in note for note in result.notes)
    # The draws are seeded: the same gate again draws the same scenarios.
    again = gate(
        "oracle", "oracle", suite="demo", store=tmp_path / "h.duckdb", max_trials=4, thin=True
    )
    assert _keys(tmp_path / "h.duckdb", again.runs["candidate"]) == cand
    assert (again.estimate, again.low, again.high) == (result.estimate, result.low, result.high)


@pytest.mark.slow
def test_a_thinned_gate_finds_a_weaker_candidate_worse(tmp_path: Path) -> None:
    result = gate(STEADY, SHAKY, suite="demo", store=tmp_path / "g.duckdb", thin=True)
    assert result.verdict == "worse" and result.exit_code() == 1
    assert result.high < -result.margin


def test_thinning_a_stored_side_uses_only_its_drawn_sessions_and_two_stored_runs_refuse(
    tmp_path: Path,
) -> None:
    store = tmp_path / "g.duckdb"
    base = run(RunConfig(suite="demo", model="oracle", trials=3, seed=5, limit=8, store=store))
    result = gate(base.run_id, "oracle", store=store, thin=True)
    assert result.rounds <= 3 and result.rounds_planned == 3  # no more than the stored trials
    drawn = _keys(store, result.runs["candidate"])
    assert result.sessions == {"baseline": len(drawn), "candidate": len(drawn)}
    assert result.cost["baseline"].sessions == len(drawn)
    other = run(RunConfig(suite="demo", model="oracle", trials=1, seed=5, limit=8, store=store))
    with pytest.raises(ConfigError, match="--thin"):
        gate(base.run_id, other.run_id, store=store, thin=True)
    # by default two stored runs are paired in full, and a gate that runs a side thins.
    full = gate(base.run_id, other.run_id, store=store)
    assert full.sessions == {"baseline": 8, "candidate": 8}
    assert not any("thinned" in note for note in full.notes)
    assert any("thinned" in note for note in result.notes)


def test_a_thinned_gate_keeps_within_the_sessions_budget(tmp_path: Path) -> None:
    # 100 sessions buy three full rounds of 16 scenarios × 2 sides (96); after the second,
    # thinned rounds draw fewer scenarios, and the gate stops once the next draw would pass
    # the budget (all pairs tie, so no verdict comes first).
    result = gate(
        "oracle", "oracle", suite="demo", store=tmp_path / "g.duckdb", budget_sessions=100
    )
    spent = sum(result.sessions.values())
    assert spent <= 100
    assert result.rounds >= 3 and spent < 32 * result.rounds  # a thinned round ran
    assert 100 - spent < 32  # it stopped with less than a full round's sessions left
    assert result.stopped_because == "budget" and result.verdict == "inconclusive"


def test_futility_ends_a_gate_that_cannot_decide_and_never_changes_a_verdict(
    tmp_path: Path,
) -> None:
    # A candidate about 5 points under the baseline, on the margin: the same seeded sessions
    # gated to the last round, and with the default futility rule.
    kwargs = {"suite": "demo", "thin": False, "seed": 1}
    full = gate(STEADY, SLIPPING, store=tmp_path / "a.duckdb", futility=0.0, **kwargs)
    early = gate(STEADY, SLIPPING, store=tmp_path / "b.duckdb", **kwargs)
    assert full.stopped_because == "max_trials" and full.rounds == 10
    assert early.stopped_because == "futility"
    assert early.verdict == "inconclusive" and early.exit_code() == 2
    assert 5 <= early.rounds < full.rounds  # from half the rounds on, and before the last
    # The same sessions up to where it stopped: its looks are the full gate's first ones.
    assert early.looks == full.looks[: early.rounds]
    assert early.sessions == {"baseline": 16 * early.rounds, "candidate": 16 * early.rounds}
    assert any("stopped for futility after round" in note for note in early.notes)
    assert early.to_json()["stopped_because"] == "futility"


def test_futility_with_two_stored_runs_or_out_of_range_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "g.duckdb"
    one = run(RunConfig(suite="demo", model="oracle", trials=2, limit=4, store=store)).run_id
    two = run(RunConfig(suite="demo", model="oracle", trials=2, limit=4, store=store)).run_id
    with pytest.raises(ConfigError, match="--futility saves sessions"):
        gate(one, two, store=store, futility=0.05)
    # By default two stored runs are gated on all they hold; 0 is accepted.
    assert gate(one, two, store=store).stopped_because != "futility"
    assert gate(one, two, store=store, futility=0.0).pairs > 0
    for bad in (-0.1, 1.0):
        with pytest.raises(StatisticsInputError, match="futility threshold"):
            gate(one, "oracle", store=store, futility=bad)
