"""A gate's CI outputs: JUnit XML (one test case per scenario, one for the gate) and a
Markdown summary fit for a CI step summary or a pull-request comment.

Both read the gate's `--json` object (`GateResult.to_json()`), so they need nothing of the
run use cases and say exactly what `--json` says.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

_WORDS = {
    "better": "better",
    "not_worse": "not worse",
    "worse": "worse",
    "inconclusive": "inconclusive",
}
_ICONS = {"better": "✅", "not_worse": "✅", "worse": "❌", "inconclusive": "⚠️"}


def verdict_words(verdict: str) -> str:
    """A verdict as words (`not_worse` → `not worse`)."""
    return _WORDS.get(verdict, verdict)


def _points(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:+.1f} pts"


def effect_line(data: Mapping[str, Any]) -> str:
    """The paired effect with its interval, and the margin."""
    eff = data["effect"]
    low, high = eff["ci"]
    return (
        f"candidate − baseline {_points(eff['estimate'])} "
        f"({1 - float(data.get('alpha', 0.05)):.0%} interval {_points(low)} to {_points(high)}), "
        f"margin {eff['margin'] * 100:.1f} pts"
    )


def headline(data: Mapping[str, Any]) -> str:
    """One line: the verdict, the paired effect with its interval, and the margin."""
    return f"{verdict_words(data['verdict'])}: {effect_line(data)}"


def design_line(data: Mapping[str, Any]) -> str:
    """The design as run: trials per scenario, sessions per side, why it stopped, the MDE."""
    s = data["sessions"]
    mde = data.get("mde")
    shown = "n/a" if mde is None else f"{mde * 100:.1f} pts"
    return (
        f"{data['trials_per_scenario']} trial(s) per scenario of {data.get('rounds_planned', '?')} "
        f"planned; sessions: baseline {s['baseline']}, candidate {s['candidate']}; "
        f"stopped: {str(data['stopped_because']).replace('_', ' ')}; "
        f"minimum detectable effect {shown}"
    )


def _lost(row: Mapping[str, Any]) -> bool:
    return int(row["only_baseline"]) > int(row["only_candidate"])


def _outcome(row: Mapping[str, Any]) -> str:
    return (
        f"{row['pairs']} pair(s): baseline {row['baseline_successes']}, candidate "
        f"{row['candidate_successes']} successes; candidate lost {row['only_baseline']}, "
        f"won {row['only_candidate']}; {row['unjudged']} unjudged"
    )


def junit_xml(data: Mapping[str, Any], *, fail_inconclusive: bool = False, suite: str = "") -> str:
    """JUnit XML of a gate: one `testcase` per scenario (a `failure` where the candidate lost
    more pairs than it won), and one `gate` test case (a `failure` when the verdict is worse,
    or inconclusive with `fail_inconclusive`; `skipped` when inconclusive without it)."""
    rows: Sequence[Mapping[str, Any]] = data.get("scenarios", [])
    name = f"sessionproof gate{f' {suite}' if suite else ''}"
    root = ET.Element("testsuites", name=name)
    scen = ET.SubElement(root, "testsuite", name=f"{name}: scenarios")
    failures = 0
    for row in rows:
        case = ET.SubElement(
            scen, "testcase", name=str(row["scenario_id"]), classname="sessionproof.gate.scenario"
        )
        if _lost(row):
            failures += 1
            ET.SubElement(
                case, "failure", message="candidate lost more pairs than it won"
            ).text = _outcome(row)
        ET.SubElement(case, "system-out").text = _outcome(row)
    scen.set("tests", str(len(rows)))
    scen.set("failures", str(failures))
    scen.set("errors", "0")
    scen.set("skipped", "0")
    verdict = str(data["verdict"])
    top = ET.SubElement(root, "testsuite", name=f"{name}: verdict", tests="1", errors="0")
    case = ET.SubElement(top, "testcase", name="gate", classname="sessionproof.gate")
    failed = verdict == "worse" or (verdict == "inconclusive" and fail_inconclusive)
    skipped = verdict == "inconclusive" and not fail_inconclusive
    detail = f"{headline(data)}\n{design_line(data)}"
    if failed:
        ET.SubElement(case, "failure", message=verdict_words(verdict)).text = detail
    elif skipped:
        ET.SubElement(case, "skipped", message="inconclusive").text = detail
    ET.SubElement(case, "system-out").text = detail
    top.set("failures", str(int(failed)))
    top.set("skipped", str(int(skipped)))
    root.set("tests", str(len(rows) + 1))
    root.set("failures", str(failures + int(failed)))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _md(text: object) -> str:
    """Text safe inside a Markdown table cell (no pipes, no markup, one line)."""
    out = " ".join(str(text).split())
    for ch in "\\|*_`<>[]":
        out = out.replace(ch, "\\" + ch)
    return out


def markdown_summary(data: Mapping[str, Any], cost_line: str, *, title: str = "") -> str:
    """The gate as Markdown: verdict, effect and interval, the design as run, the cost line,
    and the scenarios where the candidate lost pairs (all of them when it lost nowhere)."""
    verdict = str(data["verdict"])
    lines = [
        f"### {_ICONS.get(verdict, '')} sessionproof gate: **{verdict_words(verdict)}**"
        + (f" ({_md(title)})" if title else ""),
        "",
        f"- {_md(headline(data))}",
        f"- {_md(design_line(data))}",
        f"- {_md(cost_line)}",
    ]
    runs = data.get("runs", {})
    if runs:
        lines.append(
            f"- runs: baseline `{_md(runs.get('baseline', ''))}`, "
            f"candidate `{_md(runs.get('candidate', ''))}`"
        )
    for note in data.get("notes", []):
        lines.append(f"- note: {_md(note)}")
    rows = list(data.get("scenarios", []))
    lost = [r for r in rows if _lost(r)]
    lines += [
        "",
        f"{len(lost)} of {len(rows)} scenario(s) where the candidate lost more pairs than it won"
        + (":" if lost else "."),
    ]
    if lost:
        lines += [
            "",
            "| scenario | pairs | baseline ✓ | candidate ✓ | lost | won |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for r in sorted(lost, key=lambda r: int(r["only_candidate"]) - int(r["only_baseline"])):
            lines.append(
                f"| {_md(r['scenario_id'])} | {r['pairs']} | {r['baseline_successes']} | "
                f"{r['candidate_successes']} | {r['only_baseline']} | {r['only_candidate']} |"
            )
    return "\n".join(lines) + "\n"
