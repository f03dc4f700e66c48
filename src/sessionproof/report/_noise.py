"""Terminal rendering of an arm's noise floor: one table of its numbers and what they rest on,
then why any number is missing."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..scoring._internal import NoiseFloor, VarianceSplit
from ._format import pct


def _num(value: float | None, digits: int = 3) -> str:
    return "not estimable" if value is None else f"{value:.{digits}f}"


def _points(value: float | None) -> str:
    return "not estimable" if value is None else f"{value * 100:.1f} points"


def noise_rows(floor: NoiseFloor) -> list[tuple[str, str]]:
    """The noise floor's (name, value) rows, as the terminal and the HTML report show them."""
    k = floor.trials_per_scenario
    design = "–" if k is None else f"{floor.scenarios} scenarios × {k:g} judged trials"
    icc = _num(floor.icc)
    if floor.icc_ci95 is not None:
        icc += f" (bootstrap 95% {floor.icc_ci95[0]:.3f} to {floor.icc_ci95[1]:.3f})"
    flip = "not estimable" if floor.flip_rate is None else pct(floor.flip_rate)
    if floor.flip_rate is not None:
        flip += (
            f"  [{floor.flipped_scenarios} of {floor.flip_scenarios} scenarios with 2+ judged "
            "trials gave both verdicts]"
        )
    if floor.trials_needed is not None:
        needed = f"{floor.trials_needed} per scenario"
    elif floor.mde_floor is not None:
        needed = f"not reachable with {floor.scenarios} scenarios"
    else:
        needed = "not estimable"
    return [
        ("design", design),
        ("left out (not judged)", str(floor.not_judged)),
        ("accuracy", "–" if floor.accuracy is None else pct(floor.accuracy)),
        ("flip rate", flip),
        ("ICC", icc),
        ("design effect", _num(floor.design_effect, 2)),
        (f"MDE (α {floor.alpha:g}, power {floor.power:g})", _points(floor.mde)),
        ("MDE with unlimited trials", _points(floor.mde_floor)),
        (f"trials for a {floor.target_mde * 100:g}-point MDE", needed),
    ]


def render_noise(console: Console, floor: NoiseFloor, title: str = "noise floor") -> None:
    """The arm's noise floor as a table, then its notes."""
    table = Table(title=escape(title), title_justify="left", show_header=False)
    table.add_column("metric")
    table.add_column("value")
    for name, value in noise_rows(floor):
        table.add_row(escape(name), escape(value))
    console.print(table)
    for note in floor.notes:
        console.print(f"[yellow]note[/] {escape(note)}", soft_wrap=True, highlight=False)


def _share(value: float | None, interval: tuple[float, float] | None) -> str:
    if value is None:
        return "–"
    return pct(value) + (
        "" if interval is None else f" (95% {pct(interval[0])}–{pct(interval[1])})"
    )


def split_rows(split: VarianceSplit) -> list[tuple[str, str, str, str, str]]:
    """(party, run, T, scenarios, share) rows of a variance split, the run of every seed last."""
    rows = [
        (
            name,
            p.run_id or "–",
            "–" if p.variance is None else f"{p.variance:.4f}",
            str(p.scenarios),
            _share(p.share, p.share_ci95) if p.variance is not None else p.note,
        )
        for name, p in split.parties.items()
    ]
    every = split.all_seeds
    if every is not None:
        excess = split.interaction_excess
        rows.append(
            (
                "every seed (V)",
                every.run_id or "–",
                _num(every.variance, 4),
                str(every.scenarios),
                "–" if excess is None else f"ΣT − V = {excess:+.4f}",
            )
        )
    return rows


def render_split(console: Console, split: VarianceSplit, title: str = "variance split") -> None:
    """The variance split as a table, then its notes."""
    table = Table(title=escape(title), title_justify="left")
    for column in ("party", "run", "T (within variance)", "scenarios", "share"):
        table.add_column(escape(column))
    for row in split_rows(split):
        table.add_row(*(escape(c) for c in row))
    console.print(table)
    for note in split.notes:
        console.print(f"[yellow]note[/] {escape(note)}", soft_wrap=True, highlight=False)
