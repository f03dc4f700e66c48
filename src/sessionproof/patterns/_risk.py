"""Early warning: a session prefix's risk of failure, and whether it beats counting steps.

For each prefix length k (tokens), the sessions still running after k tokens (longer than k:
a finished session's prefix would show its end) are scored by a logistic regression on the
counts of each token in the prefix. The AUC is cross-validated with folds grouped by
scenario, so no scenario is both trained and tested on. Beside it, always, the trivial
baseline: the same model on the step count of the prefix alone. Risk that does not beat the
baseline says so (`beats_baseline`).

When motif features are given (`MotifFeatures`: for the sessions scored at k, whether each
motif is present in the session as it stood at the k-th token), a second model adds them to
the token counts; its AUC (`motif_auc_by_prefix`) is reported beside the other two, and
`motifs_beat_baseline` says plainly whether it beats the step-count baseline at every prefix.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ._matrix import TokenMatrix

PREFIXES = (1, 2, 4, 8, 16, 32)
MotifFeatures = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""(matrix rows, the trace step each row's prefix ends at) → a 0/1 array, one column per
motif."""
_MAX_ROWS = 20_000
"""Rows the model sees at most (an evenly spaced sample beyond), to stay interactive."""


class RiskReport(BaseModel):
    """Cross-validated AUC of the risk model and of the step-count baseline, by prefix."""

    model_config = ConfigDict(extra="forbid")

    cv_auc_by_prefix: dict[str, float | None] = Field(default_factory=dict)
    baseline_auc_by_prefix: dict[str, float | None] = Field(default_factory=dict)
    at_risk_by_prefix: dict[str, int] = Field(default_factory=dict)
    """Sessions still running after k tokens (those scored at k)."""
    beats_baseline: bool | None = None
    """True when the model's AUC exceeds the baseline's at every prefix both could score."""
    motif_auc_by_prefix: dict[str, float | None] = Field(default_factory=dict)
    """The model with the motif features added to the token counts."""
    motifs_beat_baseline: bool | None = None
    """True when the model with motifs beats the baseline at every prefix both could score."""
    motif_features: list[str] = Field(default_factory=list)
    folds: int = 0
    note: str = ""


def _oof_auc(features: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int) -> float | None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    if len(np.unique(y)) < 2 or len(np.unique(groups)) < 2:
        return None
    scores = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=min(folds, len(np.unique(groups)))).split(
        features, y, groups
    ):
        if len(np.unique(y[train])) < 2:
            scores[test] = float(y[train].mean())
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = LogisticRegression(max_iter=500).fit(features[train], y[train])
        scores[test] = model.predict_proba(features[test])[:, 1]
    return float(roc_auc_score(y, scores))


def early_warning(
    matrix: TokenMatrix,
    folds: int = 5,
    motif_features: MotifFeatures | None = None,
    motif_names: list[str] | None = None,
) -> RiskReport:
    """Risk by prefix length for `matrix` (rules: the module docstring)."""
    report = RiskReport(folds=folds, motif_features=list(motif_names or []))
    if matrix.sessions == 0 or matrix.failed.all() or not matrix.failed.any():
        report.note = "nothing to contrast: the sessions all failed or all passed"
        return report
    rows = np.arange(matrix.sessions)
    if matrix.sessions > _MAX_ROWS:
        rows = np.linspace(0, matrix.sessions - 1, _MAX_ROWS).astype(np.int64)
    tokens = matrix.tokens[rows].astype(np.int64)
    lengths = matrix.lengths[rows]
    y = matrix.failed[rows].astype(np.int64)
    groups = matrix.strata[rows]
    v = len(matrix.vocab) + 1
    wins: list[bool] = []
    motif_wins: list[bool] = []
    for k in PREFIXES:
        running = lengths > k
        if running.sum() < 10:
            break
        sub = tokens[running, :k]
        n = sub.shape[0]
        counts = np.bincount((np.arange(n)[:, None] * v + sub).ravel(), minlength=n * v).reshape(
            n, v
        )[:, :-1]
        features = np.log1p(counts.astype(np.float64))
        if matrix.steps is not None:
            steps = matrix.steps[rows][running, :k]
            step_count = (steps[:, -1] - steps[:, 0] + 1).astype(np.float64)
        else:
            step_count = np.full(n, float(k))
        model = _oof_auc(features, y[running], groups[running], folds)
        base = _oof_auc(step_count[:, None], y[running], groups[running], folds)
        key = str(k)
        report.cv_auc_by_prefix[key] = model
        report.baseline_auc_by_prefix[key] = base
        report.at_risk_by_prefix[key] = int(n)
        if model is not None and base is not None:
            wins.append(model > base)
        if motif_features is not None and matrix.steps is not None:
            at = matrix.steps[rows][running, k - 1]
            extra = motif_features(rows[running], at).astype(np.float64)
            with_motifs = _oof_auc(np.hstack([features, extra]), y[running], groups[running], folds)
            report.motif_auc_by_prefix[key] = with_motifs
            if with_motifs is not None and base is not None:
                motif_wins.append(with_motifs > base)
    if wins:
        report.beats_baseline = all(wins)
        if not report.beats_baseline:
            report.note = "the risk model does not beat the step-count baseline at every prefix"
    elif not report.note:
        report.note = "too few sessions or scenarios to cross-validate"
    if motif_wins:
        report.motifs_beat_baseline = all(motif_wins)
        if not report.motifs_beat_baseline:
            lost = [
                k
                for k, v in report.motif_auc_by_prefix.items()
                if v is not None
                and (b := report.baseline_auc_by_prefix.get(k)) is not None
                and v <= b
            ]
            said = "the model with motifs does not beat the step-count baseline at prefix " + (
                ", ".join(lost)
            )
            report.note = f"{report.note}; {said}" if report.note else said
    return report
