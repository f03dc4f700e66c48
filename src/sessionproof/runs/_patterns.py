"""The patterns use case: mine a stored run, or any transcript file `score` reads."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..errors import InputFileError
from ..importers import LabelRule, label_rule
from ..patterns import MineOptions, PatternsReport, mine
from ..store import DEFAULT_STORE_PATH, Store
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
) -> PatternsRun:
    """Mine `target`: an existing transcript file (judged as `score` judges it, nothing
    stored; `label_from` and `suite` as for `score`) or the id of a stored run (`suite`: the
    user's project its sessions ran in, when the run itself does not load it: an import of a
    trace). Raises `InputFileError` for a path that does not exist and `StoreError` for an
    unknown run."""
    opts = options or MineOptions()
    path = Path(target)
    if path.is_file():
        from ..suites.tau2 import score_transcripts

        project = open_project(suite, domain)
        scored = score_transcripts(
            path,
            fmt,
            project.domain,
            store_path=None,
            label_from=label_rule(label_from),
            project=project,
        )
        report = mine(scored.judged, opts, granularity, scored.scenarios, project.domain_for, arm)
        return PatternsRun(source=str(path), skipped_records=len(scored.errors), report=report)
    if path.suffix in (".json", ".jsonl") or "/" in target:
        raise InputFileError(f"{target}: no such file")
    loaded = None if suite is None else open_project(suite, None).suite
    with _reading(store) as db:
        manifest = db.get_run(target)
        sessions = db.load_sessions(manifest.run_id)
    scenarios, domain_for, _ = scenarios_for(manifest, sessions, loaded)
    report = mine(sessions, opts, granularity, scenarios, domain_for, arm)
    return PatternsRun(source=manifest.run_id, report=report)
