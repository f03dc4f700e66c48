"""`mine`: sessions in, the whole pattern report out (findings, precursors, risk, advice).

Sessions are labelled by their verdict; those without one or ended in infra_error are left
out. Strata are scenarios. When the sessions ran under several arms, the **primary** arm (the
one asked for, else the first without the guard) is mined, and each finding is measured in
every guarded arm: how many sessions there hold the pattern, how many of them failed, and
whether it is still a finding there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..domains import DomainSpec
from ..errors import ConfigError, SessionproofError
from ..records import Scenario, Session
from ..scoring._internal import (
    FirstDivergence,
    GoldReplays,
    SessionSurvival,
    TraceCache,
    made_once,
    session_survival,
    survival_skip_reason,
)
from ._advice import AdviceItem, advise, rank_advice
from ._alphabet import Granularity, SessionTokens, tokenize
from ._count import Codec, presence, shapes
from ._matrix import TokenMatrix, encode
from ._mine import Finding, MineOptions, mine_matrix
from ._motif_advice import MotifAdvice, motif_advice
from ._motif_analysis import MotifAnalysis, MotifResult, analyse, prefix_features
from ._motif_view import SessionView, view_of
from ._motifs import MotifContext
from ._precursors import Precursor, precursors
from ._risk import RiskReport, early_warning
from ._stats import cmh_vector

_EXPLORATORY_MAX = 5_000
"""The unstratified exploratory list is computed up to this many sessions."""


class ArmSummary(BaseModel):
    """Sessions, failures and findings of one arm."""

    model_config = ConfigDict(extra="forbid")

    sessions: int
    failures: int
    findings: list[str] = Field(default_factory=list)


class PatternsReport(BaseModel):
    """Everything `sessionproof patterns` prints."""

    model_config = ConfigDict(extra="forbid")

    sessions: int
    """Judged sessions of the mined arm."""
    failures: int
    arm: str | None = None
    granularity: str
    options: MineOptions
    tested: int = 0
    """Patterns with at least `min_support` failed sessions: the family BH corrects over."""
    significant: int = 0
    informative_strata: int = 0
    """Scenarios with both a failed and a passed session: where within-scenario contrast is."""
    findings: list[Finding] = Field(default_factory=list)
    exploratory: list[Finding] = Field(default_factory=list)
    """Unstratified (Fisher) top patterns, `stratified: false`: confounded by scenario."""
    precursors: list[Precursor] = Field(default_factory=list)
    precursors_skipped: dict[str, int] = Field(default_factory=dict)
    risk: RiskReport = Field(default_factory=RiskReport)
    advice: list[AdviceItem] = Field(default_factory=list)
    arms: dict[str, ArmSummary] = Field(default_factory=dict)
    left_out: int = 0
    """Sessions without a verdict or ended in infra_error."""
    note: str = ""
    motifs: list[MotifResult] = Field(default_factory=list)
    """The behavioural motifs of the mined arm, each tested with its control said
    (`_motif_analysis`)."""
    motif_control: str = "none"
    """within-scenario, task-signature or none (exploratory): one for every motif."""
    motif_control_detail: str = ""
    motifs_not_applicable: dict[str, str] = Field(default_factory=dict)
    """Motifs that do not apply to these sessions, with the reason (never tested)."""
    motif_note: str = ""
    """The significant motifs, or why none is (the power the data had)."""
    motif_advice: list[MotifAdvice] = Field(default_factory=list)
    """The changes the motifs point to, supported first, then by failures covered."""


def _is_guarded(arm: str) -> bool:
    return "guard" in arm.split()


def _primary(arms: list[str], wanted: str | None) -> str:
    if wanted is not None:
        if wanted not in arms:
            raise ConfigError(f"no arm {wanted!r}; arms: {', '.join(arms)}")
        return wanted
    return next((a for a in arms if not _is_guarded(a)), arms[0])


def _divergence(
    s: Session,
    scenarios: Mapping[str, Scenario],
    domain_for: Callable[[Scenario], DomainSpec] | None,
    judged: Mapping[str, SessionSurvival],
    replays: GoldReplays,
) -> tuple[str | None, FirstDivergence | None]:
    """Why `s` has no first divergence to show, or that divergence (None, None: on path)."""
    known = judged.get(s.session_id)
    if known is not None:  # walked already (the report's metrics did): not walked twice
        return None, known.divergence
    scenario = scenarios.get(s.scenario_id)
    why = survival_skip_reason(s, scenario)
    if why is not None:
        return why, None
    if scenario is None or domain_for is None:
        return "scenario unavailable", None
    try:
        return None, session_survival(s, scenario, domain_for(scenario), replays).divergence
    except SessionproofError as exc:
        return f"survival failed: {str(exc)[:80]}", None


def _divergences(
    sessions: Sequence[Session],
    scenarios: Mapping[str, Scenario],
    domain_for: Callable[[Scenario], DomainSpec] | None,
    judged: Mapping[str, SessionSurvival],
) -> tuple[dict[str, tuple[int, str]], dict[str, int]]:
    found: dict[str, tuple[int, str]] = {}
    skipped: dict[str, int] = {}
    replays = GoldReplays()
    for s in sessions:
        if s.success:
            continue
        why, div = _divergence(s, scenarios, domain_for, judged, replays)
        if why is None and div is None:
            why = "failed on path (no divergence)"
        if why is not None:
            skipped[why] = skipped.get(why, 0) + 1
        elif div is not None:
            found[s.session_id] = (div.step, div.kind.value)
    return found, skipped


def write_tools_of(
    sessions: Sequence[Session],
    scenarios: Mapping[str, Scenario],
    domain_for: Callable[[Scenario], DomainSpec] | None,
) -> frozenset[str] | None:
    """The write tools the sessions' domains declare (None when no domain is known: the
    motifs then read each tool's role from its name)."""
    if domain_for is None:
        return None
    found: set[str] = set()
    known = False
    for sid in dict.fromkeys(s.scenario_id for s in sessions):
        scenario = scenarios.get(sid)
        if scenario is None:
            continue
        try:
            tools = domain_for(scenario).tools()
        except SessionproofError:
            continue
        known = True
        found.update(t.name for t in tools if t.write)
    return frozenset(found) if known else None


def motif_analysis(
    sessions: Sequence[Session],
    context: MotifContext | None = None,
) -> MotifAnalysis:
    """The motifs tested over the judged `sessions` (one arm's: arms are never pooled)."""
    judged = [s for s in sessions if s.verdict is not None]
    return analyse(
        [view_of(s) for s in judged],
        [s.scenario_id for s in judged],
        [s.verdict is False for s in judged],
        context,
    )


def tokens_of(
    session: Session,
    granularity: Granularity = Granularity.outcome,
    traces: TraceCache | None = None,
) -> SessionTokens:
    """`tokenize(session, granularity)`, made once through `traces` when given (a run makes
    its sessions' tokens as they end, for the mining of its report)."""
    return made_once(traces, "tokens", (session, granularity), tokenize)


def view_made(session: Session, traces: TraceCache | None = None) -> SessionView:
    """`view_of(session)`, made once through `traces` when given (a run makes its sessions'
    motif views as they end, while it waits on the model, for the mining of its report)."""
    return made_once(traces, "motif_view", (session,), view_of)


def mine(
    sessions: Sequence[Session],
    options: MineOptions | None = None,
    granularity: Granularity | str = Granularity.outcome,
    scenarios: Mapping[str, Scenario] | None = None,
    domain_for: Callable[[Scenario], DomainSpec] | None = None,
    arm: str | None = None,
    survival: Mapping[str, SessionSurvival] | None = None,
    traces: TraceCache | None = None,
    motif_context: MotifContext | None = None,
) -> PatternsReport:
    """Mine `sessions` (rules: the module docstring and `_mine`). `scenarios` and
    `domain_for` enable precursors (they need each failed session's first divergence);
    `survival` (session id → its survival, e.g. from the run's metrics) saves walking again
    the sessions it holds; `traces`, tokenizing again those it made tokens of (`tokens_of`);
    `motif_context`, what the motifs know besides the trace (default: the write tools the
    domains declare, when known)."""
    opts = options or MineOptions()
    try:
        gran = Granularity(granularity)
    except ValueError:
        names = ", ".join(g.value for g in Granularity)
        raise ConfigError(f"--granularity must be one of {names}, not {granularity!r}") from None
    shapes(opts.max_len, opts.max_gap)  # validates before any work
    tokens = [tokens_of(s, gran, traces) for s in sessions]
    judged = [t for t in tokens if t.success is not None]
    arm_names = list(dict.fromkeys(t.arm for t in judged))
    report = PatternsReport(
        sessions=0,
        failures=0,
        granularity=gran.value,
        options=opts,
        left_out=len(tokens) - len(judged),
    )
    if not judged:
        report.note = "nothing to contrast: no judged sessions"
        return report
    primary = _primary(arm_names, arm)
    report.arm = primary
    matrix = encode(judged)
    arms = np.array([t.arm for t in judged])
    for name in arm_names:
        rows = arms == name
        report.arms[name] = ArmSummary(
            sessions=int(rows.sum()), failures=int(matrix.failed[rows].sum())
        )
    main = matrix.subset(arms == primary)
    report.sessions, report.failures = main.sessions, int(main.failed.sum())
    in_primary = [s for s in sessions if s.arm == primary]
    if motif_context is None or motif_context.write_tools is None:
        write_tools = write_tools_of(in_primary, scenarios or {}, domain_for)
        motif_context = replace(motif_context or MotifContext(), write_tools=write_tools)
    primary_judged = [s for s in in_primary if s.verdict is not None]
    views = [view_made(s, traces) for s in primary_judged]
    tested = analyse(
        views,
        [s.scenario_id for s in primary_judged],
        [s.verdict is False for s in primary_judged],
        motif_context,
    )
    report.motifs, report.motifs_not_applicable = tested.motifs, tested.not_applicable
    report.motif_control, report.motif_control_detail = tested.control, tested.control_detail
    report.motif_note = tested.note
    guarded = {
        name: motif_analysis([s for s in sessions if s.arm == name], motif_context)
        for name in arm_names
        if name != primary and _is_guarded(name)
    }
    report.motif_advice = motif_advice(tested, report.failures, guarded, opts.alpha)
    if report.failures == 0 or report.failures == report.sessions:
        what = "no failures" if report.failures == 0 else "no passes"
        report.note = f"nothing to contrast: arm {primary!r} has {what}"
        return report
    mined = mine_matrix(main, opts, exploratory=main.sessions <= _EXPLORATORY_MAX)
    report.tested, report.significant = mined.tested, mined.significant
    report.informative_strata = mined.informative_strata
    report.exploratory = mined.exploratory
    report.arms[primary].findings = [f.pattern for f in mined.findings]
    others = {name: matrix.subset(arms == name) for name in arm_names if name != primary}
    other_findings = {
        name: {f.pattern for f in mine_matrix(m, opts).findings}
        for name, m in others.items()
        if m.failed.any() and not m.failed.all()
    }
    for name, found in other_findings.items():
        report.arms[name].findings = sorted(found)
    codec = Codec(len(matrix.vocab), shapes(opts.max_len, opts.max_gap))
    ranked: list[tuple[str, str, set[int]]] = []
    for finding, pattern, pres in zip(mined.findings, mined.patterns, mined.present, strict=True):
        investment, text = advise(finding.tokens, finding.covers_failures)
        finding.investment = investment
        for name, m in others.items():
            if not _is_guarded(name):
                continue
            there = presence(m, pattern, codec)
            held, failed = int(there.sum()), int((there & m.failed).sum())
            still = finding.pattern in other_findings.get(name, set())
            # The guarded arm's own findings went through the redundancy filter, which may
            # keep a neighbour (e.g. the guard's repair right after the drift) instead: the
            # pattern's own within-scenario test there says whether it still precedes failure.
            p_there = cmh_vector(there, m.failed, m.strata)
            associated = still or p_there < opts.alpha
            finding.guarded_arm = {
                "arm": name,
                "sessions_with_pattern": held,
                "failed_with_pattern": failed,
                "still_a_finding": still,
                "p_value": p_there,
                "still_precedes_failure": associated,
            }
            if still:
                verdict = "still a finding"
            elif associated:
                verdict = (
                    f"not kept as a finding there, but still precedes failure (p {p_there:.2g})"
                )
            else:
                verdict = "no longer a finding"
            text += (
                f"; guarded arm {name!r} measured: {failed}/{held} sessions with it failed "
                f"(here {finding.fail_support}/{finding.fail_support + finding.pass_support}), "
                + verdict
            )
        finding.advice = text
        ranked.append((investment, finding.pattern, set(np.flatnonzero(pres & main.failed))))
    report.findings = mined.findings
    report.advice = rank_advice(ranked, report.failures)
    if mined.informative_strata == 0:
        report.note = (
            "nothing to contrast within scenario: no scenario has both a failed and a passed "
            "session (the exploratory list is pooled, confounded by scenario)"
        )
    elif not mined.findings:
        report.note = (
            f"no pattern is significant within scenario (q < {opts.alpha}); "
            f"{mined.informative_strata} scenario(s) have both outcomes"
        )
    primary_sessions = [s for s in sessions if s.arm == primary]
    divergences, report.precursors_skipped = _divergences(
        primary_sessions, scenarios or {}, domain_for, survival or {}
    )
    in_arm = [t for t in judged if t.arm == primary]
    report.precursors = precursors(
        [t for t in in_arm if t.success is False],
        divergences,
        [t for t in in_arm if t.success],
        opts.max_len,
    )
    if opts.early_warning:
        seen = [m.name for m in report.motifs if m.failed + m.passed]
        features = prefix_features(views, seen, motif_context) if seen else None
        report.risk = early_warning(main, motif_features=features, motif_names=seen)
    else:
        report.risk = RiskReport(note="not computed (early_warning=False)")
    return report


def judged_tokens(sessions: Sequence[Session], granularity: Granularity) -> list[SessionTokens]:
    """The token sequences of the judged sessions (for callers building their own matrix)."""
    return [t for t in (tokenize(s, granularity) for s in sessions) if t.success is not None]


def matrix_of(sessions: Sequence[Session], granularity: Granularity) -> TokenMatrix:
    """The array form of the judged sessions."""
    return encode(judged_tokens(sessions, granularity))
