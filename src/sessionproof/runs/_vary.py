"""`run --vary PARTY`: refuse a design that would vary a seed nobody reads; and the stored
runs of one such design read back as each arm's variance split (`variance_splits`).

With `--vary agent` the trials of a scenario differ in the agent's seed alone; with
`--vary user`, in the simulated user's alone; with `--vary judge`, in the model judge's
alone (`--judge MODEL`). A party that takes no seed (the oracle, a scripted agent or user,
the embedded local model, which decodes greedily) would make every trial the same and its
share of the verdict variance 0 by construction; a model judge whose provider ignores the
seed (anthropic's Messages API takes none) could neither be varied by it nor held fixed.
The run says so and stops before recording anything, rather than pretend to have measured it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..records import Scenario
from ..scoring._internal import ALL_SEEDS, VarianceSplit, counts_by_arm, variance_split
from ..store import RunManifest, Store

if TYPE_CHECKING:
    from ..agents import Agent
    from ..suites import NLJudge

_LOCAL = ("sessionproof.agents._local", "LocalAgent")
"""The embedded model's class, named: importing it to test against would load the OpenAI
client into runs that never use it."""


def seedless(agent: Agent) -> str | None:
    """Why `agent`'s replies cannot change with the seed of its requests (None: they may)."""
    # Here, not at the top: reading a store's metrics (this module's other half) needs no agent.
    from ..agents import OracleAgent, ScriptedAgent

    seedless_kinds: tuple[tuple[type, str], ...] = (
        (OracleAgent, "the oracle is deterministic"),
        (ScriptedAgent, "a scripted agent is deterministic"),
    )
    for kind, why in seedless_kinds:
        if isinstance(agent, kind):
            return why
    if any((k.__module__, k.__name__) == _LOCAL for k in type(agent).__mro__):
        return "the embedded local model decodes greedily (temperature 0)"
    return None


_SEED_IGNORED: tuple[tuple[tuple[str, str], str], ...] = (
    (
        ("sessionproof.agents._anthropic", "AnthropicAgent"),
        "anthropic's Messages API takes no seed (seed not honoured)",
    ),
    (
        ("sessionproof.agents._external", "ExternalAgent"),
        "an http-agent/mcp-agent turn carries no seed (seed not honoured)",
    ),
)
"""Adapters, named (as `_LOCAL`), that send their requests' seed nowhere, and why."""


def seed_ignored(agent: Agent) -> str | None:
    """Why `agent`'s provider would not honour the seed its requests carry (None: it does,
    as far as known: an OpenAI-compatible server is sent `seed`; a Python agent reads it)."""
    kinds = {(k.__module__, k.__name__) for k in type(agent).__mro__}
    for kind, why in _SEED_IGNORED:
        if kind in kinds:
            return why
    return None


def _judge_unseeded(judge: NLJudge | None) -> str | None:
    """Why the run's NL judge cannot be seeded (None: a model judge whose seed is honoured)."""
    from ..suites._internal import AgentJudge

    if judge is None:
        return "the run has no model judge (give --judge MODEL); its rules take no seed"
    if not isinstance(judge, AgentJudge):
        return f"the judge {judge.name} is not a model judge made from a spec: it takes no seed"
    return seedless(judge.agent) or seed_ignored(judge.agent)


def check_vary(
    vary: str | None,
    agent: Agent,
    user: Agent | None,
    scenarios: Sequence[Scenario],
    judge: NLJudge | None = None,
) -> None:
    """Raise `ConfigError` when the party `vary` names takes no seed in this run, or when a
    model judge that must be held fixed (or varied) would not honour its seed."""
    if vary == "judge":
        why = _judge_unseeded(judge)
        if why is not None:
            raise ConfigError(
                f"--vary judge: {why}: its trials could not differ by the judge's seed"
            )
        return
    if judge is not None and vary is not None:
        from ..suites._internal import AgentJudge

        ignored = seed_ignored(judge.agent) if isinstance(judge, AgentJudge) else None
        if ignored is not None:
            raise ConfigError(
                f"--vary {vary}: the judge {judge.name} cannot be held fixed: {ignored}"
            )
    if vary == "agent":
        why = seedless(agent)
        if why is not None:
            raise ConfigError(
                f"--vary agent: {why}: it takes no seed, so its trials could not differ "
                "(its share of the verdict variance is 0 by construction)"
            )
    elif vary == "user":
        simulated = [s.id for s in scenarios if not s.user.turns]
        if user is None or not simulated:
            raise ConfigError(
                "--vary user: no scenario of this run has a simulated user (scripted turns, "
                "or no model plays the user): there is no user seed to vary"
            )
        why = seedless(user)
        if why is not None:
            raise ConfigError(f"--vary user: the user model takes no seed ({why})")


def _party_of(manifest: RunManifest) -> str:
    vary = manifest.options.get("vary")
    return vary if isinstance(vary, str) else ORDINARY


ORDINARY = "ordinary"
"""The party key of a run made without `--vary`: every seed varies, but its simulated user
gets no seed of the run's (a hosted model samples on its own; a Python user sees None)."""


def _differs(first: RunManifest, other: RunManifest) -> str | None:
    """What keeps two runs from pairing scenario by scenario (None: they pair)."""
    if sorted(first.scenario_ids) != sorted(other.scenario_ids):
        return (
            f"scenarios: {first.run_id} ran {len(first.scenario_ids)}, {other.run_id} "
            f"{len(other.scenario_ids)}, not the same ones"
        )
    pairs: tuple[tuple[str, object, object], ...] = (
        ("suite", first.suite, other.suite),
        ("seed", first.seed, other.seed),
        ("arms", first.arms, other.arms),
        ("model", first.model, other.model),
        ("user model", first.user_model, other.user_model),
        # A run without --judge leaves NL assertions not evaluated: verdicts of another kind.
        ("judge", first.options.get("judge"), other.options.get("judge")),
    )
    for what, a, b in pairs:
        if a != b:
            return f"{what}: {a!r} in {first.run_id}, {b!r} in {other.run_id}"
    return None


def report_splits(db: Store, run_ids: Sequence[str]) -> tuple[dict[str, VarianceSplit], str]:
    """For a report of several runs: each arm's variance split when the runs include a
    `run --vary` run (an ordinary multi-run report gets none, and no note), with '' as the
    note; ({}, why) when they include one but do not form one design."""
    if len(run_ids) < 2 or all(_party_of(db.get_run(r)) == ORDINARY for r in run_ids):
        return {}, ""
    try:
        return variance_splits(db, run_ids), ""
    except ConfigError as exc:
        return {}, f"no variance split: these runs are not one --vary design ({exc})"


def variance_splits(db: Store, run_ids: Sequence[str]) -> dict[str, VarianceSplit]:
    """Arm → the verdict variance of that arm shared between the parties, from stored runs
    of one design: each a `run --vary PARTY` of a different party, or one ordinary run
    (every seed varied), all of the same suite, seed, scenarios, arms and models. Raises
    `ConfigError` naming what does not pair."""
    manifests = [db.get_run(r) for r in dict.fromkeys(run_ids)]
    if len({m.run_id for m in manifests}) < len(manifests):
        raise ConfigError("--split names the same run twice")
    by_party: dict[str, RunManifest] = {}
    ordinary: list[str] = []
    for manifest in manifests:
        party = _party_of(manifest)
        if party == ORDINARY:
            if ALL_SEEDS in by_party:
                raise ConfigError(
                    f"--split: runs {by_party[ALL_SEEDS].run_id} and {manifest.run_id} both "
                    "vary every seed: give one run per party"
                )
            party = ALL_SEEDS
            ordinary.append(manifest.run_id)
        elif party == ALL_SEEDS and ordinary:
            raise ConfigError(
                f"--split: runs {ordinary[0]} and {manifest.run_id} both vary every seed: "
                "give one run per party"
            )
        if party in by_party:
            raise ConfigError(
                f"--split: runs {by_party[party].run_id} and {manifest.run_id} both vary "
                f"{'every seed' if party == ALL_SEEDS else party}: give one run per party"
            )
        by_party[party] = manifest
        why = _differs(manifests[0], manifest)
        if why is not None:
            raise ConfigError(f"--split: the runs do not pair ({why})")
    if set(by_party) == {ALL_SEEDS}:
        raise ConfigError(
            "--split needs a run made with `run --vary agent`, `--vary user` or `--vary judge`; "
            "these runs vary every seed at once"
        )
    counts = {party: counts_by_arm(db.session_rows(m.run_id)) for party, m in by_party.items()}
    found: dict[str, VarianceSplit] = {}
    for arm in manifests[0].arms:
        found[arm] = variance_split(
            {
                party: (by_party[party].run_id, *per_arm.get(arm, ({}, 0)))
                for party, per_arm in counts.items()
            }
        )
        if ordinary:
            judged = manifests[0].options.get("judge")
            who = "simulated user and its judge" if judged else "simulated user"
            found[arm].notes.append(
                f"{ordinary[0]} was run without --vary: its {who} got no seed of the run's, "
                "so V counts their variance only if their models sample on their own "
                "(run --vary all for a reference that seeds every party)"
            )
    return found
