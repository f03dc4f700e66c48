"""Motifs against a planted cause inside confounded tasks, and on the real tau2 trajectories.

Run: `.venv/bin/python benchmarks/motifs_planted.py [--sims 30] [--sessions 600] [--json]`

1. **Planted** (`patterns/_motif_synthetic.py`): every session its own scenario (the
   production shape); hard tasks write three times, fail more, and hold all three planted
   motifs more often. Only `write_without_confirmation` causes failure. Each simulation runs
   the motif analysis twice — adjusted (task-signature strata, what `patterns` does here) and
   unadjusted (`none`) — and counts discoveries (q < 0.05 and odds ratio > 1): recall of the
   cause, precision, and the false discovery proportion; averaged over `--sims` seeds. A null
   series (the cause has no effect) gives the FDR when every discovery is false.
2. **Real** (`../shared/anchors/tau-bench/tau2-bench/trajectories/*.json`, read in place):
   `patterns` on each file, as a user would run it: every motif's counts, adjusted effect with
   interval and q, the control, and the early-warning AUC beside the step-count baseline.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ALPHA = 0.05


def _anchors() -> Path | None:
    for base in (ROOT.parent, ROOT.parent.parent, ROOT.parent.parent.parent):
        found = base / "shared" / "anchors" / "tau-bench" / "tau2-bench" / "trajectories"
        if found.is_dir():
            return found
    return None


def _score(found: set[str], cause: str | None) -> tuple[float | None, float, float]:
    """(recall or None on null data, precision, false discovery proportion)."""
    true = {cause} & found if cause else set()
    false = len(found) - len(true)
    recall = (1.0 if true else 0.0) if cause else None
    precision = len(true) / len(found) if found else 1.0
    return recall, precision, (false / len(found) if found else 0.0)


def planted(sims: int, sessions: int, null: bool) -> dict[str, Any]:
    """Adjusted vs unadjusted over `sims` seeds."""
    from sessionproof.patterns._motif_analysis import analyse
    from sessionproof.patterns._motif_synthetic import CAUSE, confounded_sessions
    from sessionproof.patterns._motif_view import view_of

    rows: dict[str, list[tuple[float | None, float, float]]] = {"adjusted": [], "unadjusted": []}
    controls: set[str] = set()
    for seed in range(sims):
        data = confounded_sessions(sessions, seed, null=null)
        views = [view_of(s) for s in data]
        failed = [s.verdict is False for s in data]
        scenarios = [s.scenario_id for s in data]
        for label, unadjusted in (("adjusted", False), ("unadjusted", True)):
            a = analyse(views, scenarios, failed, unadjusted=unadjusted)
            controls.add(a.control)
            found = {
                m.name
                for m in a.motifs
                if m.q_value is not None and m.q_value < ALPHA and (m.odds_ratio or 0) > 1
            }
            rows[label].append(_score(found, None if null else CAUSE))
    out: dict[str, Any] = {
        "sims": sims,
        "sessions": sessions,
        "null": null,
        "controls": sorted(controls),
    }
    for label, scores in rows.items():
        recalls = [r for r, _, _ in scores if r is not None]
        out[label] = {
            "recall": statistics.mean(recalls) if recalls else None,
            "precision": statistics.mean(p for _, p, _ in scores),
            "fdr": statistics.mean(f for _, _, f in scores),
            "any_false": statistics.mean(1.0 if f > 0 else 0.0 for _, _, f in scores),
        }
    return out


def real() -> list[dict[str, Any]]:
    """`patterns` on each real tau2 trajectories file."""
    from sessionproof import runs

    where = _anchors()
    if where is None:
        return []
    out = []
    for path in sorted(where.glob("*.json")):
        report = runs.patterns(str(path)).report
        out.append(
            {
                "file": path.name,
                "sessions": report.sessions,
                "failures": report.failures,
                "control": report.motif_control_detail,
                "motifs": [
                    {
                        k: m.model_dump()[k]
                        for k in (
                            "name",
                            "failed",
                            "passed",
                            "odds_ratio",
                            "ci",
                            "q_value",
                            "sessions_used",
                            "note",
                        )
                    }
                    for m in report.motifs
                ],
                "not_applicable": report.motifs_not_applicable,
                "risk": {
                    "model": report.risk.cv_auc_by_prefix,
                    "model_with_motifs": report.risk.motif_auc_by_prefix,
                    "baseline": report.risk.baseline_auc_by_prefix,
                    "motifs_beat_baseline": report.risk.motifs_beat_baseline,
                },
            }
        )
    return out


def _print(result: dict[str, Any]) -> None:
    for series in result["planted"]:
        kind = "null (no cause)" if series["null"] else "planted cause"
        print(
            f"\n{kind}: {series['sims']} sims x {series['sessions']} sessions, "
            f"controls {series['controls']}"
        )
        print("analysis     recall  precision  FDR(mean)  P(any false)")
        for label in ("adjusted", "unadjusted"):
            r = series[label]
            rec = "-" if r["recall"] is None else f"{r['recall']:.2f}"
            print(
                f"{label:<12} {rec:>6}  {r['precision']:>9.2f}  {r['fdr']:>9.3f}  "
                f"{r['any_false']:>12.2f}"
            )
    for f in result["real"]:
        print(f"\n{f['file']}: {f['sessions']} sessions, {f['failures']} failed; {f['control']}")
        for m in f["motifs"]:
            eff = (
                "-"
                if m["odds_ratio"] is None
                else (f"{m['odds_ratio']:.2f} [{m['ci'][0]:.2f}, {m['ci'][1]:.2f}]")
            )
            q = "-" if m["q_value"] is None else f"{m['q_value']:.2g}"
            print(f"  {m['name']:<36} {m['failed']:>3}/{m['passed']:<3} {eff:<24} q {q}")
        for name, why in f["not_applicable"].items():
            print(f"  {name:<36} not applicable: {why}")
        risk = f["risk"]
        for k, base in risk["baseline"].items():
            model, mot = risk["model"].get(k), risk["model_with_motifs"].get(k)
            fmt = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
            print(f"  prefix {k:>2}: model {fmt(model)}  +motifs {fmt(mot)}  baseline {fmt(base)}")
        print(f"  motif model beats baseline at every prefix: {risk['motifs_beat_baseline']}")


def main() -> None:
    """Run both parts and print them (or their JSON)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sims", type=int, default=30)
    parser.add_argument("--sessions", type=int, default=600)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    t0 = time.perf_counter()
    result = {
        "planted": [planted(args.sims, args.sessions, null) for null in (False, True)],
        "real": real(),
    }
    result["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result)
        print(f"\n{result['seconds']} s")


if __name__ == "__main__":
    main()
