"""`gate`: decide whether a candidate may replace a baseline, on paired sessions, with as
few trials as the decision needs.

Each side is a stored run or a model/agent spec that the gate runs itself on the same
scenarios, trials, seeds and arm. The gate runs in rounds (one more trial of every scenario
per side), looks after each, and stops at the first verdict or when no round is left
(`--max-trials`, the sessions budget, or the trials a stored side holds). The statistics are
`scoring.stats._sequential`'s group-sequential design (Hwang-Shih-DeCani spending at γ = −1
unless told, repeated confidence intervals): the intervals hold at every look at once, so
stopping early costs no error rate. When the gate runs a side, later rounds are thinned
(`scoring.stats._thinning`, `_gate_thin`): scenarios whose pairs keep agreeing run only by a
seeded draw, and the design weighs what ran; and the gate stops as undecided once a verdict
by the last round has become unlikely (`scoring.stats._futility`, non-binding).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from ..agents import Agent
from ..conditions import parse_arm
from ..engine import Progress
from ..errors import ConfigError
from ..executors._internal import load
from ..records import Session
from ..scoring._internal import PriceTable
from ..scoring.stats._internal import (
    FUTILITY,
    MAX_LOOKS,
    Look,
    Spending,
    boundaries,
    check_futility,
    check_levels,
    look,
)
from ..store import Store
from ..store._internal import DEFAULT_STORE_PATH
from ..suites import Suite
from ._gate_pairs import (
    ScenarioPairs,
    check_scenarios,
    missing_first_round,
    round_differences,
    rounds_held,
)
from ._gate_result import GateLook, GateResult, StoppedBecause, gate_result, stop_after
from ._gate_sides import Side, SpecRunner, read_side, spec_config, stored_run_id
from ._gate_thin import run_thinned, thin_design

DEFAULT_MAX_TRIALS = 10
"""Rounds (trials per scenario) a gate may run unless told."""

RoundHook = Callable[[GateLook], None]
"""Told the interval and verdict after every round (the CLI prints a line)."""


def gate(
    baseline: str | Agent,
    candidate: str | Agent,
    *,
    suite: str | Suite | None = None,
    margin: float = 0.05,
    alpha: float = 0.05,
    max_trials: int = DEFAULT_MAX_TRIALS,
    budget_sessions: int | None = None,
    spending: Spending = "hwang-shih-decani",
    thin: bool | None = None,
    futility: float | None = None,
    store: str | Path = DEFAULT_STORE_PATH,
    seed: int | None = None,
    limit: int | None = None,
    arm: str | None = None,
    user_model: str | Agent | None = None,
    max_steps: int | None = None,
    concurrency: int | None = None,
    progress: Progress | None = None,
    on_round: RoundHook | None = None,
    argv: list[str] | None = None,
    prices: PriceTable | None = None,
) -> GateResult:
    """Decide whether `candidate` may replace `baseline`: `better`, `not_worse` (worse by no
    more than `margin`), `worse` (by more than `margin`) or `inconclusive`, from the mean
    paired difference in success rate (candidate − baseline) over scenario × trial pairs.

    `baseline`, `candidate`: a stored run id (or unique prefix) in `store`, or a model spec
    (`oracle`, `python:module:attr`, `openai:MODEL`, ...) or `Agent` that the gate runs on
    the same scenarios, seeds and arm, one trial per scenario per round, up to `max_trials`
    rounds and `budget_sessions` sessions in all (both sides). A spec side paired with a
    stored run runs on that run's suite, limit and seed. `alpha`: the chance of any wrong
    verdict stays at about alpha/2 per kind (the interval is at level 1 − alpha at every
    look). Sessions that were not judged leave their pair out (never a loss or a win).

    `spending`: the alpha-spending function of the boundaries: `hwang-shih-decani` (γ = −1,
    the default: the fewest sessions where the answer is clear), `obrien-fleming` (a few
    points more power near the thresholds at the last round) or `pocock`.

    `thin`: thinned rounds (the default when a side is run; `--no-thin` runs every
    scenario every round): after two rounds, a scenario whose pairs keep agreeing runs in a
    round only by a seeded draw (both sides the same scenarios), the design weighing what
    ran so the estimate and its error rates hold; planned for `max_trials` full rounds'
    information, it may run up to twice as many rounds, each of fewer sessions. Two stored
    runs are paired in full (`thin=True` is refused: nothing would be saved).

    `futility`: when a side is run, the gate also stops, as `inconclusive` (stopped because
    of `futility`), once the chance of a verdict by its last round, if the difference is
    what it seems so far, is under this (default 0.02; 0 turns it off), from half the
    design's information on (`scoring.stats._futility`). It never makes a verdict wrong,
    only rarer. With two stored runs nothing would be saved, and a positive value is refused.

    `prices` prices the cost block (default: the shipped price table; a model without a
    price gives tokens only).

    Raises `ConfigError` for bad levels, sides that do not pair (naming the scenarios each
    lacks), an unknown run id, a budget short of one round, or futility with two stored
    runs.
    """
    return asyncio.run(
        agate(
            baseline,
            candidate,
            suite=suite,
            margin=margin,
            alpha=alpha,
            max_trials=max_trials,
            budget_sessions=budget_sessions,
            spending=spending,
            thin=thin,
            futility=futility,
            store=store,
            seed=seed,
            limit=limit,
            arm=arm,
            user_model=user_model,
            max_steps=max_steps,
            concurrency=concurrency,
            progress=progress,
            on_round=on_round,
            argv=argv,
            prices=prices,
        )
    )


async def agate(
    baseline: str | Agent,
    candidate: str | Agent,
    *,
    suite: str | Suite | None = None,
    margin: float = 0.05,
    alpha: float = 0.05,
    max_trials: int = DEFAULT_MAX_TRIALS,
    budget_sessions: int | None = None,
    spending: Spending = "hwang-shih-decani",
    thin: bool | None = None,
    futility: float | None = None,
    store: str | Path = DEFAULT_STORE_PATH,
    seed: int | None = None,
    limit: int | None = None,
    arm: str | None = None,
    user_model: str | Agent | None = None,
    max_steps: int | None = None,
    concurrency: int | None = None,
    progress: Progress | None = None,
    on_round: RoundHook | None = None,
    argv: list[str] | None = None,
    prices: PriceTable | None = None,
) -> GateResult:
    """Async form of `gate`."""
    check_levels(alpha, margin)
    if spending not in ("hwang-shih-decani", "obrien-fleming", "pocock"):
        raise ConfigError(
            f"--spending must be hwang-shih-decani, obrien-fleming or pocock, not {spending!r}"
        )
    if not 1 <= max_trials <= MAX_LOOKS:
        raise ConfigError(f"--max-trials must be 1 to {MAX_LOOKS}, not {max_trials}")
    if futility is not None:
        check_futility(futility)
    if budget_sessions is not None and budget_sessions < 1:
        raise ConfigError(f"--budget-sessions must be at least 1, not {budget_sessions}")
    path = Path(store)
    with Store.open(path) as db:
        ids = {
            "baseline": stored_run_id(baseline, db),
            "candidate": stored_run_id(candidate, db),
        }
        manifests = [db.get_run(i) for i in ids.values() if i is not None]
        stored_arms = manifests[0].arms if manifests else []
        chosen = parse_arm(arm).name if arm else (stored_arms or ["baseline"])[0]
        sides = {
            name: read_side(name, ids[name], db, chosen)  # type: ignore[arg-type]
            if ids[name] is not None
            else Side(name=name, spec=value)
            for name, value in (("baseline", baseline), ("candidate", candidate))
        }
        stored = [s for s in sides.values() if s.stored]
        notes: list[str] = []
        runners: list[SpecRunner] = []
        spec_sides = [s for s in sides.values() if not s.stored]
        if spec_sides:
            first = stored[0].manifest if stored else None
            if suite is None and first is None:
                raise ConfigError("--suite is needed when neither side is a stored run")
            if first is not None and seed is not None and seed != first.seed:
                raise ConfigError(
                    f"the stored {stored[0].name} run {first.run_id} ran with seed {first.seed}; "
                    f"a side paired with it runs with that seed, not {seed}"
                )
            run_suite = suite if suite is not None else first.suite  # type: ignore[union-attr]
            run_limit = limit if limit is not None else (first.limit if first else None)
            loaded = load(run_suite, run_limit)
            ids_of_suite = [s.id for s in loaded.scenarios]
        else:
            loaded, ids_of_suite = None, []
        scenario_ids = _paired_scenarios(sides, ids_of_suite, chosen)
        rounds, limited_by = _planned_rounds(
            sides, scenario_ids, max_trials, budget_sessions, len(spec_sides), notes
        )
        if futility is not None and futility > 0.0 and not spec_sides:
            raise ConfigError(
                "--futility saves sessions the gate runs: it needs a side given as a model "
                "spec, not two stored runs (use --futility 0)"
            )
        stop_below = (FUTILITY if spec_sides else 0.0) if futility is None else futility
        last_critical = boundaries(rounds, alpha, spending)[-1]
        design = None
        if thin is None:
            thin = bool(spec_sides)
        if thin:
            if not spec_sides:
                raise ConfigError(
                    "--thin saves sessions the gate runs: it needs a side given as a model "
                    "spec, not two stored runs"
                )
            held = min((rounds_held(s.sessions, scenario_ids) for s in stored), default=None)
            design = thin_design(len(scenario_ids), rounds, alpha, spending, held)
        if spec_sides:
            run_seed = stored[0].manifest.seed if stored else (seed or 0)  # type: ignore[union-attr]
            for side in spec_sides:
                assert side.spec is not None and loaded is not None
                config = spec_config(
                    side.spec,
                    suite=run_suite,
                    rounds=rounds if design is None else design.most,
                    limit=run_limit,
                    seed=run_seed,
                    arm=chosen,
                    store=path,
                    max_steps=max_steps,
                    user_model=user_model,
                    concurrency=concurrency,
                )
                runners.append(SpecRunner(side, db, config, loaded, argv))
        for runner in runners:
            await runner.check()
        tally = {sid: ScenarioPairs(scenario_id=sid) for sid in scenario_ids}

        def finish(
            looks: list[GateLook],
            last: Look,
            done: int,
            planned: int,
            stopped: StoppedBecause,
            used: dict[str, list[Session]],
        ) -> GateResult:
            """The result from the last look, with what every design shares."""
            if stopped == "futility":
                notes.append(
                    f"stopped for futility after round {done}: at the difference seen so far, "
                    f"a verdict by the design's last look had a chance under {stop_below:.0%}"
                )
            return gate_result(
                looks,
                last,
                done,
                planned,
                stopped,
                used,
                tally,
                {name: side.run_id for name, side in sides.items()},
                {name: side.stored for name, side in sides.items()},
                chosen,
                margin,
                alpha,
                spending,
                prices,
                notes,
            )

        if design is not None:
            thinned = await run_thinned(
                design,
                sides,
                runners,
                scenario_ids,
                tally,
                margin=margin,
                seed=run_seed,
                budget=budget_sessions,
                futility=stop_below,
                last_critical=last_critical,
                progress=progress,
                on_round=on_round,
            )
            assert thinned.last is not None
            used_thin = {
                name: [s for key, s in sorted(side.sessions.items()) if key in thinned.drawn]
                for name, side in sides.items()
            }
            notes.append(
                f"thinned rounds: {len(thinned.drawn)} of {thinned.done * len(scenario_ids)} "
                "scenario trials ran (stable scenarios by a seeded draw)"
            )
            return finish(
                thinned.looks,
                thinned.last,
                thinned.done,
                design.most,
                thinned.stopped or limited_by,
                used_thin,
            )
        diffs: list[float] = []
        looks: list[GateLook] = []
        done = 0
        stopped: StoppedBecause = limited_by
        for trial in range(rounds):
            for runner in runners:
                await runner.run_round(trial, progress)
            base, cand = sides["baseline"].sessions, sides["candidate"].sessions
            diffs.extend(round_differences(base, cand, scenario_ids, trial, tally))
            done = trial + 1
            at = look(diffs, done, rounds, alpha, spending)
            seen = GateLook.after(at, done, margin)
            looks.append(seen)
            if on_round is not None:
                on_round(seen)
            why = stop_after(seen, at, done / rounds, last_critical, margin, stop_below)
            if why is not None:
                stopped = why
                break
    return finish(looks, at, done, rounds, stopped, {n: s.used(done) for n, s in sides.items()})


def _paired_scenarios(sides: dict[str, Side], suite_ids: list[str], arm: str) -> list[str]:
    """The scenarios the gate pairs on; `ConfigError` naming what does not pair."""
    base, cand = sides["baseline"], sides["candidate"]
    if base.stored and cand.stored:
        what = f"the baseline run {base.run_id} and the candidate run {cand.run_id}"
        return check_scenarios(
            (s for s, _ in base.sessions), (s for s, _ in cand.sessions), what, arm
        )
    held = base if base.stored else cand if cand.stored else None
    if held is None:
        if not suite_ids:
            raise ConfigError("the suite has no scenario to gate on")
        return sorted(suite_ids)
    what = f"the stored {held.name} run {held.run_id} and the suite the {_other(held)} runs on"
    if held is base:
        return check_scenarios((s for s, _ in held.sessions), suite_ids, what, arm)
    return check_scenarios(suite_ids, (s for s, _ in held.sessions), what, arm)


def _other(side: Side) -> str:
    return "candidate" if side.name == "baseline" else "baseline"


def _planned_rounds(
    sides: dict[str, Side],
    scenario_ids: list[str],
    max_trials: int,
    budget: int | None,
    spec_sides: int,
    notes: list[str],
) -> tuple[int, StoppedBecause]:
    """The design's rounds, fixed before any data, and what limits them."""
    rounds = max_trials
    why: StoppedBecause = "max_trials"
    for side in sides.values():
        if not side.stored:
            continue
        held = rounds_held(side.sessions, scenario_ids)
        if held == 0:
            missing = missing_first_round(side.sessions, scenario_ids)
            raise ConfigError(
                f"the {side.name} run {side.run_id} has no trial 0 of {len(missing)} "
                f"scenario(s) ({', '.join(missing[:5])}): nothing to pair"
            )
        if held < rounds:
            rounds, why = held, "stored_trials"
            notes.append(f"the {side.name} run {side.run_id} holds {held} whole trial(s)")
    if budget is not None and spec_sides:
        per_round = len(scenario_ids) * spec_sides
        affordable = budget // per_round
        if affordable == 0:
            raise ConfigError(
                f"--budget-sessions {budget} is less than one round "
                f"({len(scenario_ids)} scenarios × {spec_sides} side(s) = {per_round} sessions)"
            )
        if affordable < rounds:
            rounds, why = affordable, "budget"
    return rounds, why
