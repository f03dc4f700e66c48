"""The patterns use case: mine a stored run, or any transcript file `score` reads."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigError, InputFileError
from ..importers._internal import LabelRule, label_rule
from ..patterns import MineOptions, PatternsReport, mine
from ..patterns._internal import MotifContext
from ..records import Session
from ..store import Store
from ..store._internal import DEFAULT_STORE_PATH
from ..suites import Suite, open_project
from ._metrics import _reading, scenarios_for


class PatternsRun(BaseModel):
    """What `patterns` mined, and from where."""

    model_config = ConfigDict(extra="forbid")

    source: str
    """The run id, or the transcript file's path."""
    skipped_records: int = 0
    """Records of a transcript file skipped or kept with a warning (`score` names them)."""
    report: PatternsReport
    arm_choice: str | None = None
    """Why the mined arm was chosen, when `arm` was not given and the sessions ran under
    several arms (None otherwise)."""


def _guarded(arm: str) -> bool:
    return "guard" in arm.split()


def default_arm(sessions: Sequence[Session]) -> tuple[str | None, str | None]:
    """The arm to mine when none is asked for, and why; (None, None) for a single arm.

    A failure-free arm has nothing to contrast: of several arms, the unguarded one with the
    most failed sessions is mined (a guarded one only when no unguarded arm failed; ties go
    to the first). When no arm has a failure the miner's own default stands, and says so.
    """
    arms = list(dict.fromkeys(s.arm for s in sessions))
    if len(arms) < 2:
        return None, None
    failed = dict.fromkeys(arms, 0)
    for s in sessions:
        if s.verdict is False:
            failed[s.arm] += 1
    counts = ", ".join(f"{a!r} {failed[a]}" for a in arms)
    pool = [a for a in arms if failed[a] and not _guarded(a)] or [a for a in arms if failed[a]]
    if not pool:
        return None, f"no arm has a failed session (failed per arm: {counts})"
    chosen = max(pool, key=lambda a: failed[a])  # the first of the largest
    kind = "guarded arm" if _guarded(chosen) else "arm"
    return chosen, (
        f"mining {kind} {chosen!r}: the one with the most failed sessions (failed per arm: "
        f"{counts}); --arm chooses another"
    )


def policy_reads(pairs: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """`WRITE=READ` pairs → per write tool, the reads wanted before it (a write named twice
    accepts either read). `ConfigError` for a pair without `=` or with an empty side."""
    out: dict[str, tuple[str, ...]] = {}
    for pair in pairs:
        write, sep, read = (x.strip() for x in pair.partition("="))
        if not sep or not write or not read:
            raise ConfigError(f"--require-read {pair!r}: expected WRITE=READ (tool names)")
        out[write] = (*out.get(write, ()), read)
    return out


def patterns(
    target: str,
    *,
    store: str | Path | Store = DEFAULT_STORE_PATH,
    fmt: str = "auto",
    domain: str | None = None,
    options: MineOptions | None = None,
    granularity: str = "outcome",
    arm: str | None = None,
    label_from: str | LabelRule | None = None,
    suite: str | Suite | None = None,
    require_reads: Sequence[str] = (),
) -> PatternsRun:
    """Mine `target`: an existing transcript file (judged as `score` judges it, nothing
    stored; `label_from` and `suite` as for `score`) or the id of a stored run (`suite`: the
    user's project its sessions ran in, when the run itself does not load it: an import of a
    trace). `require_reads`: `WRITE=READ` pairs, the reads a policy wants before a write (the
    `policy_read_skipped` motif). Raises `InputFileError` for a path that does not exist and
    `StoreError` for an unknown run."""
    opts = options or MineOptions()
    context = MotifContext(policy_reads=policy_reads(require_reads))
    path = Path(target)
    if path.is_file():
        from ..suites._internal import score_transcripts

        project = open_project(suite, domain)
        scored = score_transcripts(
            path,
            fmt,
            project.domain,
            store_path=None,
            label_from=label_rule(label_from),
            project=project,
        )
        choice = None
        if arm is None:
            arm, choice = default_arm(scored.judged)
        report = mine(
            scored.judged,
            opts,
            granularity,
            scored.scenarios,
            project.domain_for,
            arm,
            motif_context=context,
        )
        return PatternsRun(
            source=str(path), skipped_records=len(scored.errors), report=report, arm_choice=choice
        )
    if path.suffix in (".json", ".jsonl") or "/" in target:
        raise InputFileError(f"{target}: no such file")
    loaded = None if suite is None else open_project(suite, None).suite
    with _reading(store) as db:
        manifest = db.get_run(target)
        sessions = db.load_sessions(manifest.run_id)
    scenarios, domain_for, _ = scenarios_for(manifest, sessions, loaded)
    choice = None
    if arm is None:
        arm, choice = default_arm(sessions)
    report = mine(sessions, opts, granularity, scenarios, domain_for, arm, motif_context=context)
    return PatternsRun(source=manifest.run_id, report=report, arm_choice=choice)
