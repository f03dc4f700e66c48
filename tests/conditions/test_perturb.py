"""Imperfect instructions as a condition: `perturb=missing_arg|shifted_arg|coreference[@TURN]`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sessionproof import runs
from sessionproof.cli._internal import app
from sessionproof.conditions import PerturbPlan, parse_arm, perturb
from sessionproof.conditions._internal import AnsweringUser
from sessionproof.domains import get_domain
from sessionproof.errors import ConfigError
from sessionproof.records import Message, Scenario
from sessionproof.suites import load_suite

runner = CliRunner()
GUESSES = "python:tests.suites.wild.agents:guesses"
MISSING = "perturb=missing_arg"


def _demo(scenario_id: str) -> Scenario:
    return next(s for s in load_suite("demo").scenarios if s.id == scenario_id)


def _arms(suite: str, model: str, arms: list[str]) -> dict[str, Any]:
    return runs.run(runs.RunConfig(suite=suite, model=model, arms=arms)).to_json()


def test_the_arm_grammar_reads_a_perturbation_and_refuses_junk() -> None:
    condition = parse_arm("perturb=missing_arg@2 guard")
    assert condition.perturb == PerturbPlan(kind="missing_arg", turn=2)
    assert condition.guard and not condition.baseline
    assert parse_arm("perturb=coreference").perturb == PerturbPlan(kind="coreference", turn=1)
    for bad, says in [
        ("perturb=typo", "unknown perturbation 'typo'"),
        ("perturb=missing_arg@x", "@TURN must be"),
        ("perturb=missing_arg@0", "counted from 1"),
        ("perturb=coreference perturb=shifted_arg", "given twice"),
    ]:
        with pytest.raises(ConfigError, match=says) as caught:
            parse_arm(bad)
        assert "\n" not in str(caught.value)
    with pytest.raises(ConfigError, match="not both"):
        runs.RunConfig(arms=["baseline"], perturb="missing_arg")
    assert runs.RunConfig(perturb="missing_arg@2").arm_names == ["perturb=missing_arg@2"]


def test_missing_arg_withholds_a_value_moves_its_call_and_forbids_the_guess() -> None:
    scenario = _demo("cancel-pending-by-mistake")
    out = perturb(scenario, PerturbPlan(kind="missing_arg"))
    assert out.applied
    turns = out.scenario.user.turns or []
    email = "elena.petrova@example.com"
    assert email in (scenario.user.turns or [])[0] and email not in turns[0]
    assert out.answers == {1: f"The email is {email}."}
    find, cancel = out.scenario.criteria.gold_actions
    assert (find.tool, find.turn, find.ask_first) == ("find_customer_by_email", 1, ["email"])
    assert cancel.turn == 1  # it came after the withheld call in the same turn
    forbidden = out.scenario.criteria.forbidden[-1]
    assert (forbidden.tool, forbidden.turn) == ("find_customer_by_email", 0)
    assert scenario.criteria.forbidden == []  # the original is left alone


def test_the_answering_user_gives_the_value_only_when_asked() -> None:
    user = AnsweringUser(
        [
            "Cancel order [withheld].",
            "",
        ],
        {1: "The order id is 1055."},
    )
    asked = [Message.user("Cancel order [withheld]."), Message.assistant("Which order?")]
    told = [Message.user("Cancel order [withheld]."), Message.assistant("Done.")]
    assert asyncio.run(user.reply(asked, 1)).text == "The order id is 1055."
    assert asyncio.run(user.reply(told, 1)).stop  # nobody asked: the answer-only turn ends it
    assert asyncio.run(user.reply(asked, 2)).stop


def test_oracle_asks_and_the_guessing_agent_fails_the_perturbed_arm() -> None:
    oracle = _arms("demo", "oracle", ["baseline", MISSING])
    assert oracle["arms"]["baseline"]["session_accuracy"] == 1.0
    assert oracle["arms"][MISSING]["session_accuracy"] == 1.0  # the oracle asks
    guess = _arms("demo", GUESSES, ["baseline", MISSING])
    assert guess["arms"]["baseline"]["session_accuracy"] == 1.0  # nothing to guess there
    assert guess["arms"][MISSING]["session_accuracy"] == 0.0
    (paired,) = guess["paired"]
    assert (paired["a"], paired["b"]) == ("baseline", MISSING)
    assert paired["difference"] == -1.0 and paired["only_a"] == paired["pairs"] == 16
    assert paired["mcnemar_p"] < 0.01


@pytest.mark.slow
def test_oracle_scores_one_on_every_perturbation_of_the_wild_suite() -> None:
    arms = ["baseline", MISSING, "perturb=missing_arg@2", "perturb=shifted_arg"]
    arms += ["perturb=coreference@2"]
    out = _arms("wild", "oracle", arms)
    for arm in arms:
        assert out["arms"][arm]["session_accuracy"] == 1.0, arm
        assert out["arms"][arm]["breakdowns"]["rate"] == 1.0, arm
    assert all(p["difference"] == 0.0 for p in out["paired"])


def test_guessing_fails_the_withheld_task_in_the_wild_breakdowns() -> None:
    out = _arms("wild", GUESSES, ["baseline", "perturb=missing_arg@2"])
    base, hit = out["arms"]["baseline"], out["arms"]["perturb=missing_arg@2"]
    assert hit["session_accuracy"] < base["session_accuracy"]
    (paired,) = out["paired"]
    assert paired["difference"] < 0 and paired["only_b"] == 0


def test_shifted_arg_changes_a_value_said_earlier_and_the_gold_follows() -> None:
    suite = load_suite("wild")
    plan = PerturbPlan(kind="shifted_arg")
    found = [
        (s, out) for s in suite.scenarios if (out := perturb(s, plan, suite.domain_for(s))).applied
    ]
    assert found
    before, out = found[0]
    changed = [
        (a, b)
        for a, b in zip(
            before.criteria.gold_actions, out.scenario.criteria.gold_actions, strict=True
        )
        if a != b
    ]
    ((old, new),) = changed
    (name,) = [k for k in old.args if old.args[k] != new.args[k]]
    turn = old.turn or 0
    text = (out.scenario.user.turns or [])[turn]
    assert text.startswith("Sorry") and str(new.args[name]) in text and str(old.args[name]) in text
    forbidden = out.scenario.criteria.forbidden[-1]
    assert forbidden.args == {name: old.args[name]} and forbidden.turn == turn


def test_coreference_says_that_one_instead_of_repeating_a_value() -> None:
    suite = load_suite("wild")
    plan = PerturbPlan(kind="coreference", turn=2)
    before, out = next((s, out) for s in suite.scenarios if (out := perturb(s, plan)).applied)
    assert out.scenario.criteria == before.criteria
    changed = [
        (a, b)
        for a, b in zip(before.user.turns or [], out.scenario.user.turns or [], strict=True)
        if a != b
    ]
    ((old, new),) = changed
    gone = set(old.split()) - set(new.split())
    earlier = " ".join((before.user.turns or [])[: (before.user.turns or []).index(old)])
    assert "that" in new and gone and all(g.strip(",.?") in earlier for g in gone)


def test_a_scenario_without_a_target_runs_unchanged() -> None:
    scenario = _demo("cancel-pending-by-mistake")
    out = perturb(scenario, PerturbPlan(kind="coreference"), get_domain("demo"))
    assert not out.applied and out.scenario == scenario


def test_perturb_flag_makes_one_arm_on_the_cli(tmp_path: Path) -> None:
    args = ["run", "--suite", "demo", "--model", GUESSES, "--perturb", "missing_arg"]
    result = runner.invoke(app, [*args, "--json", "--store", str(tmp_path / "s.duckdb")])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["session_accuracy"] == 0.0 and out["sessions"] == 16
    bad = runner.invoke(app, [*args[:-1], "nonsense", "--store", str(tmp_path / "t.duckdb")])
    # The CLI's entry point prints the named error in one line; the runner shows it raised.
    assert bad.exit_code != 0 and "unknown perturbation" in str(bad.exception)
