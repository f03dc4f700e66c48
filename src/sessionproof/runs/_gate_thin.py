"""The gate's thinned rounds (`--thin`): after the first rounds, a scenario whose pairs keep
agreeing runs in a round only by a seeded draw, with the chance the design gives it
(`scoring.stats._thinning`), so the sessions go to the scenarios still uncertain.

Both sides run the same drawn scenarios at the same trial, so every session still has its
twin; a stored side's sessions of the scenarios not drawn are left out of the decision (and
of its cost). The design is planned for `--max-trials` full rounds' information and may run
up to `CAP` times as many rounds to gather it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..engine import Progress
from ..scoring.stats._internal import Look, Spending, ThinnedDesign
from ._gate_pairs import ScenarioPairs, drawn_differences
from ._gate_result import GateLook, StoppedBecause, stop_after
from ._gate_sides import Side, SpecRunner

THIN_STREAM = 36
"""Mixed into the gate's seed for the draws (their own stream, apart from the runs')."""


@dataclass
class ThinnedRun:
    """What the thinned rounds gave: the looks, the last one, the rounds run, why they
    stopped (None: no round left), and the (scenario, trial) pairs drawn."""

    looks: list[GateLook] = field(default_factory=list)
    last: Look | None = None
    done: int = 0
    stopped: StoppedBecause | None = None
    drawn: set[tuple[str, int]] = field(default_factory=set)


async def run_thinned(
    design: ThinnedDesign,
    sides: dict[str, Side],
    runners: list[SpecRunner],
    scenario_ids: list[str],
    tally: dict[str, ScenarioPairs],
    *,
    margin: float,
    seed: int,
    budget: int | None,
    futility: float,
    last_critical: float,
    progress: Progress | None,
    on_round: Callable[[GateLook], None] | None,
) -> ThinnedRun:
    """Run `design`'s rounds until a verdict, its last round, the sessions `budget` (both
    sides' runs together) would be passed by the next round's draws, or a verdict by the
    last round has a chance under `futility` (`scoring.stats._futility`, with the last
    look's boundary taken as `last_critical`)."""
    rng = np.random.default_rng([seed, THIN_STREAM])
    out = ThinnedRun()
    spent = 0
    while not design.final:
        chances = design.chances()
        ran = rng.random(len(scenario_ids)) < chances
        drawn = [sid for sid, hit in zip(scenario_ids, ran, strict=True) if hit]
        cost = len(drawn) * len(runners)
        if budget is not None and spent + cost > budget:
            out.stopped = "budget"
            break
        trial = out.done
        if drawn:
            for runner in runners:
                await runner.run_round(trial, progress, only=set(drawn))
        spent += cost
        out.drawn.update((sid, trial) for sid in drawn)
        base, cand = sides["baseline"].sessions, sides["candidate"].sessions
        d = drawn_differences(base, cand, scenario_ids, trial, list(ran), tally)
        out.last = at = design.add(ran, np.asarray(d))
        out.done = trial + 1
        seen = GateLook.after(at, out.done, margin)
        out.looks.append(seen)
        if on_round is not None:
            on_round(seen)
        # A final round is the design's last look, whatever information it reached.
        fraction = 1.0 if design.final else design.fraction
        out.stopped = stop_after(seen, at, fraction, last_critical, margin, futility)
        if out.stopped is not None:
            break
    return out


def thin_design(
    scenarios: int, rounds: int, alpha: float, spending: Spending, held: int | None
) -> ThinnedDesign:
    """The thinned design planned for `rounds` full rounds' information; with a stored side,
    it runs no more rounds than that side holds."""
    design = ThinnedDesign(scenarios, rounds, alpha, spending)
    if held is not None and held < design.most:
        design = ThinnedDesign(scenarios, rounds, alpha, spending, cap=held / rounds)
    return design
