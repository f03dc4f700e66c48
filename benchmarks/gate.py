"""The gate's sequential design against a fixed number of trials, on simulated suites.

Run: `.venv/bin/python benchmarks/gate.py [--gates 2000] [--scenarios 40] [--max-trials 10]`

Pure statistics, no engine: each simulated suite has heterogeneous per-scenario success
probabilities (a third of the scenarios nearly always pass, a sixth nearly always fail, the
rest anywhere between, as real suites are), and the candidate's probabilities are the
baseline's shifted so that the mean paired difference is exactly `delta`. Every gate runs
rounds of one trial per scenario per side and decides with `sessionproof`'s own boundaries
(`scoring.stats._sequential`: repeated confidence intervals), stopping at the first verdict.
By default it is the gate's own default design (Hwang-Shih-DeCani spending at γ = −1,
thinned rounds, futility 0.02); `--spending`/`--gamma`, `--futility P` (0: off) and
`--no-thin` change it. `--blocks B` looks B times a round, after each block of the
scenarios (full rounds only). `--futility P` stops, as inconclusive, once the chance of any
verdict by the last look (under the current trend) is under P, from half the information on
(the gate's own rule, `scoring.stats._futility`). `--thin` runs the gate's
thinned rounds (`scoring.stats._thinning`, the gate's default when it runs a side): after
two full rounds a scenario runs by a draw with the chance its pairs' agreement gives it,
rounds are weighed by their planned information, and the design runs until it holds the
information of `--max-trials` full rounds (at most `--thin-cap` times as many rounds);
`--thin-floor`, `--thin-prior` and `--thin-full` vary its rule.

Prints, per true difference:
- the verdict rates of the adaptive design, with the false-verdict rate where one is defined
  (`not_worse`/`better` at or beyond −margin; `worse`/`better` at 0; `worse` above −margin):
  these must stay at or under alpha;
- its power (the chance of the right decision: `worse` below −margin, `not_worse` or
  `better` at or above 0) and mean sessions (both sides);
- the fixed design of the same power: the fewest trials per scenario k whose single look
  (z interval) reaches that power, its sessions, and the ratio adaptive / fixed; `ratio~`
  is the ratio against k interpolated linearly in power between k − 1 and k (the whole k
  moves a ratio by up to ±0.05);
- `bound`: the least ratio any sequential design with the same false-verdict rate at the
  threshold (alpha/2) could reach at that power, with the fixed design's allocation of
  sessions over scenarios (Wald's bound under the normal model, `least_ratio`); `bound*`
  the same with the best allocation of sessions over scenarios (`allocation_gain`). Where
  `bound*` is over 0.5, no design can reach the same power for half the sessions.
"""

from __future__ import annotations

import argparse
import math
from statistics import NormalDist

import numpy as np

from sessionproof.scoring.stats import _futility as futility
from sessionproof.scoring.stats import _thinning as thinning
from sessionproof.scoring.stats._internal import boundaries, decide, look
from sessionproof.scoring.stats._sequential import look_by_scenario
from sessionproof.scoring.stats._thinning import (
    FLOOR,
    InformationBoundary,
    run_chances,
)

SPENDING: str | float = "hwang-shih-decani"
"""The adaptive design's spending: a name, or the Hwang-Shih-DeCani γ (the gate's default)."""
BLOCKS = 1
"""Looks per round (after each block of the scenarios)."""
FUTILITY = futility.FUTILITY
"""Stop as inconclusive when the chance of any verdict by the last look is under this (the
gate's default; 0: never)."""
THIN = True
"""Thinned rounds (`scoring.stats._thinning`): stable scenarios run later only by chance (the
gate's default when it runs a side)."""
THIN_FLOOR = FLOOR
THIN_CAP = float(thinning.CAP)
"""Rounds a thinned design may run, as a multiple of the planned rounds (it stops when its
information reaches that of the planned rounds run in full)."""
DELTAS = "-0.20,-0.15,-0.10,-0.07,-0.05,-0.03,0,0.03,0.05,0.10,0.15"
TOLERANCE = 0.01
"""A fixed design "has the same power" within this (Monte-Carlo noise of the rates)."""


def suite_probabilities(rng: np.random.Generator, n: int) -> np.ndarray:
    """Heterogeneous per-scenario success probabilities."""
    kind = rng.random(n)
    return np.where(
        kind < 1 / 3,
        rng.uniform(0.93, 1.0, n),
        np.where(kind < 0.5, rng.uniform(0.0, 0.07, n), rng.uniform(0.1, 0.9, n)),
    )


def shifted(pa: np.ndarray, delta: float) -> np.ndarray:
    """`pa` moved so that the mean of (pb − pa) is `delta` (within [0, 1] per scenario)."""
    lo, hi = -1.0, 1.0
    for _ in range(60):  # bisection on a common shift: clipped, the mean moves monotonically
        mid = (lo + hi) / 2
        if float(np.mean(np.clip(pa + mid, 0, 1) - pa)) < delta:
            lo = mid
        else:
            hi = mid
    return np.clip(pa + (lo + hi) / 2, 0, 1)


def verdicts(low: np.ndarray, high: np.ndarray, margin: float) -> np.ndarray:
    """`decide`, vectorised: 0 better, 1 not_worse, 2 worse, 3 inconclusive."""
    return np.select([low > 0, low > -margin, high < -margin], [0, 1, 2], default=3)


def simulate(
    rng: np.random.Generator,
    delta: float,
    gates: int,
    n: int,
    rounds: int,
    alpha: float,
    margin: float,
    fixed: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """(verdict code, sessions per side used) of `gates` gates; `fixed`: one look after
    `rounds`. The adaptive design looks `BLOCKS` times a round, after each block of the
    scenarios (their order is random and the scenarios exchangeable, so block j is simply
    the j-th slice here)."""
    pa = np.stack([suite_probabilities(rng, n) for _ in range(gates)])
    pb = np.stack([shifted(row, delta) for row in pa])
    if THIN and not fixed:
        return simulate_thinned(rng, pa, pb, rounds, alpha, margin)
    blocks = 1 if fixed else BLOCKS
    cuts = block_edges(n, blocks)
    crit = boundaries(1, alpha) if fixed else boundaries(rounds * blocks, alpha, SPENDING)
    sums = np.zeros((gates, n))
    counts = np.zeros(n)
    total = np.zeros(gates)
    squares = np.zeros(gates)
    out = np.full(gates, 3)
    used = np.full(gates, float(rounds * n))
    live = np.ones(gates, dtype=bool)
    at = 0
    for r in range(1, rounds + 1):
        d = (rng.random((gates, n)) < pb).astype(float) - (rng.random((gates, n)) < pa)
        for j in range(blocks):
            lo, hi = cuts[j], cuts[j + 1]
            block = d[:, lo:hi]
            sums[:, lo:hi] += block
            counts[lo:hi] += 1
            total += block.sum(axis=1)
            squares += (block * block).sum(axis=1)
            at += 1
            if fixed and r < rounds:
                continue
            est, se = weighted_look(sums, counts, total, squares)
            c = crit[0] if fixed else crit[at - 1]
            now = verdicts(np.maximum(-1, est - c * se), np.minimum(1, est + c * se), margin)
            stop = live & (now != 3)
            if FUTILITY and not fixed:
                share = np.full(gates, at / len(crit))
                stop |= live & futility_stops(est, se, share, crit[-1], margin)
            out[stop] = now[stop]
            used[stop] = counts.sum()
            live &= ~stop
        if not live.any():
            break
    return out, used


def simulate_thinned(
    rng: np.random.Generator,
    pa: np.ndarray,
    pb: np.ndarray,
    rounds: int,
    alpha: float,
    margin: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The thinned design, vectorised over gates (but each gate's boundary, which follows
    its own information fractions): scenario i runs in a round with the chance
    `run_chances` gives it from the earlier rounds, each round is weighed by its planned
    information, and the look is `ThinnedTally.look`'s."""
    gates, n = pa.shape
    discords = np.zeros((gates, n))
    trials = np.zeros((gates, n))
    weight = np.zeros(gates)
    weighted = np.zeros(gates)
    weight2 = np.zeros(gates)
    squares = np.zeros(gates)
    fraction = np.zeros(gates)
    bounds = [InformationBoundary(alpha, SPENDING) for _ in range(gates)]
    out = np.full(gates, 3)
    used = np.zeros(gates)
    live = np.ones(gates, dtype=bool)
    cap = round(rounds * THIN_CAP)
    final_critical = boundaries(rounds, alpha, SPENDING)[-1]
    for r in range(1, cap + 1):
        if r - 1 < 2:
            chances = np.ones((gates, n))
        else:
            chances = np.stack(
                [run_chances(discords[g], trials[g], r - 1, THIN_FLOOR) for g in range(gates)]
            )
        q = (discords + thinning.PRIOR) / (trials + 2.0 * thinning.PRIOR)
        rho = q.sum(axis=1) / (q / chances).sum(axis=1)
        ran = rng.random((gates, n)) < chances
        d = (rng.random((gates, n)) < pb).astype(float) - (rng.random((gates, n)) < pa)
        d = np.where(ran, d, 0.0)
        ht = d / chances
        discords += ran & (d != 0)
        trials += ran
        used += np.where(live, ran.sum(axis=1), 0)
        weight += rho
        weighted += rho * ht.sum(axis=1) / n
        weight2 += rho * rho
        squares += rho * rho * (ht * ht).sum(axis=1) / n**2
        fraction = np.minimum(fraction + rho / rounds, 1.0)
        last = (fraction >= 1.0 - 1e-9) | (r == cap)
        est = weighted / weight
        pad = 2.0 * weight2 / (r * n**2)
        var = np.maximum(squares + pad - est * est * weight2 / n, pad)
        se = np.sqrt(var) / weight
        crit = np.zeros(gates)
        for g in np.flatnonzero(live):
            crit[g] = bounds[g].next(fraction[g], final=bool(last[g]))
        now = verdicts(np.maximum(-1, est - crit * se), np.minimum(1, est + crit * se), margin)
        stop = live & (now != 3)
        if FUTILITY:
            stop |= live & ~last & futility_stops(est, se, fraction, final_critical, margin)
        out[stop] = now[stop]
        live &= ~(stop | last)
        if not live.any():
            break
    return out, used


def futility_stops(
    est: np.ndarray, se: np.ndarray, fraction: np.ndarray, last: float, margin: float
) -> np.ndarray:
    """The gate's futility rule (`scoring.stats._futility`), per gate: from half the
    information on and before the last look, the chance of any verdict at the last look
    under the current trend is under `FUTILITY`."""
    out = np.zeros(len(est), dtype=bool)
    for g in np.flatnonzero((fraction >= futility.FROM) & (fraction < 1.0)):
        chance = futility.verdict_chance(
            float(est[g]), float(se[g]), float(fraction[g]), last, margin
        )
        out[g] = chance < FUTILITY
    return out


def least_ratio(power: float, alpha: float) -> float:
    """The least mean sessions any sequential design can spend, as a share of the fixed
    design's of the same power, under the normal model both rest on: Wald's bound (Hoeffding,
    "Lower bounds for the expected sample size and the average risk of a sequential
    procedure", Ann. Math. Statist. 31(2), 1960) `E[N] · D²/(2σ²) >= kl(power, alpha/2)`,
    the Bernoulli divergence between the power and the false-verdict rate at the threshold,
    against the fixed design's `N = (z_{1-alpha/2} + z_power)² σ²/D²`. Same allocation of
    sessions over scenarios as the fixed design; for any effect D and spread σ."""
    if power <= alpha / 2:
        return 0.0
    p = min(power, 1.0 - 1e-9)
    q = alpha / 2
    kl = p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))
    norm = NormalDist()
    return 2.0 * kl / (norm.inv_cdf(1 - q) + norm.inv_cdf(p)) ** 2


def allocation_gain(delta: float, n: int, gates: int, seed: int) -> float:
    """How much the best allocation of sessions over scenarios (Neyman's, `n_i ∝ σ_i`, with
    the true spreads) could lower the variance of the suite's mean against running every
    scenario alike, on suites drawn as the benchmark's: the mean over suites of
    `(mean σ_i)² / mean σ_i²`. A design that adapts its allocation has at best this share
    of the fixed design's per-session variance, and so of its least sessions."""
    rng = np.random.default_rng([seed, 1])
    gains = []
    for _ in range(gates):
        pa = suite_probabilities(rng, n)
        pb = shifted(pa, delta)
        var = pa * (1 - pa) + pb * (1 - pb)
        gains.append(float(np.sqrt(var).mean() ** 2 / var.mean()))
    return float(np.mean(gains))


def block_edges(n: int, blocks: int) -> list[int]:
    """Where each of `blocks` near-equal blocks of `n` scenarios starts (and the end)."""
    return [round(j * n / blocks) for j in range(blocks + 1)]


def weighted_look(
    sums: np.ndarray, counts: np.ndarray, total: np.ndarray, squares: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`look`'s estimate and standard error, vectorised over gates: the mean over the seen
    scenarios of each one's mean difference, and the pairs' spread (one +1 and one −1
    pseudo-pair added) times the root of the sum of the squared pair weights."""
    seen = counts > 0
    m = int(seen.sum())
    pairs = float(counts.sum())
    est = (sums[:, seen] / counts[seen]).mean(axis=1)
    weight2 = float((1.0 / counts[seen]).sum()) / m**2
    var = (squares + 2.0 - total**2 / (pairs + 2)) / (pairs + 1)
    return est, np.sqrt(var * weight2)


def _self_check(alpha: float, margin: float) -> None:
    """The vectorised look gives `look`'s own interval and `decide`'s own verdict."""
    rng = np.random.default_rng(3)
    d = rng.choice([-1.0, 0.0, 1.0], size=120, p=[0.2, 0.6, 0.2])
    mine = look(d, 3, 5, alpha)
    var = (float((d * d).sum()) + 2.0 - float(d.sum()) ** 2 / 122) / 121
    se = math.sqrt(var) / math.sqrt(120)
    assert abs(se - mine.se) < 1e-12, (se, mine.se)
    code = verdicts(np.array([mine.low]), np.array([mine.high]), margin)[0]
    assert ("better", "not_worse", "worse", "inconclusive")[code] == decide(mine, margin)
    # Within a round: the first 7 of 20 scenarios hold 4 pairs, the rest 3.
    counts = np.array([4.0] * 7 + [3.0] * 13)
    rows = [rng.choice([-1.0, 0.0, 1.0], size=int(c)) for c in counts]
    theirs = look_by_scenario(rows, 15, 40, alpha, -1.0)
    sums = np.array([[row.sum() for row in rows]])
    flat = np.concatenate(rows)
    est, se_w = weighted_look(sums, counts, np.array([flat.sum()]), np.array([(flat * flat).sum()]))
    assert abs(est[0] - theirs.estimate) < 1e-12 and abs(se_w[0] - theirs.se) < 1e-12


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gates", type=int, default=2000)
    parser.add_argument("--scenarios", type=int, default=40)
    parser.add_argument("--max-trials", type=int, default=10)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--margin", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument(
        "--spending", choices=("hwang-shih-decani", "obrien-fleming", "pocock"), default=SPENDING
    )
    parser.add_argument("--gamma", type=float, help="Hwang-Shih-DeCani spending with this γ")
    parser.add_argument(
        "--futility", type=float, default=FUTILITY, help="stop below this chance (0: never)"
    )
    parser.add_argument("--blocks", type=int, default=BLOCKS, help="looks per round")
    parser.add_argument(
        "--thin", action=argparse.BooleanOptionalAction, default=THIN, help="thinned rounds"
    )
    parser.add_argument("--thin-floor", type=float, default=FLOOR)
    parser.add_argument("--thin-prior", type=float, default=thinning.PRIOR)
    parser.add_argument("--thin-full", type=float, default=thinning.FULL)
    parser.add_argument("--thin-cap", type=float, default=THIN_CAP, help="rounds cap (x K)")
    parser.add_argument("--deltas", default=DELTAS, help="true differences, comma-separated")
    args = parser.parse_args()
    if args.blocks > 1 and args.thin:
        parser.error("--blocks looks within full rounds only: add --no-thin")
    globals()["SPENDING"] = args.spending if args.gamma is None else args.gamma
    globals()["BLOCKS"] = args.blocks
    globals()["FUTILITY"] = args.futility
    globals()["THIN"] = args.thin
    globals()["THIN_FLOOR"] = args.thin_floor
    globals()["THIN_CAP"] = args.thin_cap
    thinning.PRIOR = args.thin_prior
    thinning.FULL = args.thin_full
    _self_check(args.alpha, args.margin)
    rng = np.random.default_rng(args.seed)
    n, k_max, m = args.scenarios, args.max_trials, args.margin
    print(
        f"{args.gates} gates per row, {n} scenarios, up to {k_max} trials, "
        f"alpha {args.alpha}, margin {m}; spending {SPENDING}, "
        + ("thinned rounds" if THIN else f"full rounds, {BLOCKS} look(s) a round")
        + (f", futility under {FUTILITY}" if FUTILITY else ", no futility stop")
    )
    print(
        f"{'delta':>6} {'better':>7} {'not_w':>7} {'worse':>7} {'incon':>7} {'false':>7} "
        f"{'power':>7} {'sess':>7} | {'fixed k':>7} {'power':>7} {'sess':>7} {'ratio':>6} "
        f"{'ratio~':>6} | {'bound':>5} {'bound*':>6}"
    )
    for delta in (float(x) for x in args.deltas.split(",")):
        codes, used = simulate(rng, delta, args.gates, n, k_max, args.alpha, m, fixed=False)
        rates = [float(np.mean(codes == i)) for i in range(4)]
        false = _false_rate(rates, delta, m)
        right = _right(delta, m)
        power = None if right is None else sum(rates[i] for i in right)
        sessions = float(np.mean(used)) * 2
        line = (
            f"{delta:+6.2f} {rates[0]:7.3f} {rates[1]:7.3f} {rates[2]:7.3f} {rates[3]:7.3f} "
            f"{'-' if false is None else f'{false:.3f}':>7} "
            f"{'-' if power is None else f'{power:.3f}':>7} {sessions:7.0f}"
        )
        if power is not None and right is not None:
            k, fixed_power, smooth = _fixed_matching(delta, power, right, args, n)
            if k is None:
                line += f" | {'>' + str(k_max):>7} {fixed_power:7.3f} {'-':>7} {'-':>6} {'-':>6}"
            else:
                fixed_sessions = k * n * 2
                bound = least_ratio(power, args.alpha)
                gain = allocation_gain(delta, n, min(args.gates, 500), args.seed)
                line += (
                    f" | {k:7d} {fixed_power:7.3f} {fixed_sessions:7d} "
                    f"{sessions / fixed_sessions:6.2f} {sessions / (smooth * n * 2):6.2f}"
                    f" | {bound:5.2f} {bound * gain:6.2f}"
                )
        print(line)


def _false_rate(rates: list[float], delta: float, margin: float) -> float | None:
    """The rate of verdicts that are wrong at this true difference."""
    if delta <= -margin:
        return rates[0] + rates[1]  # better or not worse, while worse by the margin or more
    if delta == 0.0:
        return rates[0] + rates[2]
    if delta > -margin:
        return rates[2] + (rates[0] if delta <= 0 else 0.0)
    return None


def _right(delta: float, margin: float) -> tuple[int, ...] | None:
    """The verdicts that are the right decision, where one is right."""
    if delta < -margin:
        return (2,)
    if delta >= 0.0:
        return (0, 1)
    return None


def _fixed_matching(
    delta: float,
    power: float,
    right: tuple[int, ...],
    args: argparse.Namespace,
    n: int,
) -> tuple[int | None, float, float]:
    """The fewest trials k of a one-look design with at least `power` (and that power),
    and the trials interpolated linearly in power between k − 1 and k (the `ratio~`
    column: a smoother measure than the whole k, whose step moves a ratio by ±0.05)."""
    best = 0.0
    for k in range(1, 4 * args.max_trials + 1):
        # The same suites and draws for every k and every design compared (common random
        # numbers): the fixed power curve is one smooth curve per delta, not a fresh sample.
        stream = np.random.default_rng([args.seed, 2, round(delta * 1000) + 1000])
        codes, _ = simulate(stream, delta, args.gates, n, k, args.alpha, args.margin, fixed=True)
        got = float(np.isin(codes, right).mean())
        if got >= power - TOLERANCE:
            share = (power - TOLERANCE - best) / (got - best) if got > best else 1.0
            return k, got, k - 1 + min(1.0, max(0.0, share))
        best = got
    return None, best, 0.0


if __name__ == "__main__":
    main()
