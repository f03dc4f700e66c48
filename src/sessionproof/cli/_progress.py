"""A progress bar for runs: sessions done/total, ETA, running accuracy."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..records import Session


class RunProgress:
    """Draws on stderr so `--json` output on stdout stays clean."""

    def __init__(self, console: Console, label: str) -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("acc {task.fields[acc]}"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self.label = label
        self.task = self.progress.add_task(label, total=0, acc="-")
        self.judged = 0
        self.wins = 0

    def __enter__(self) -> RunProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def start(self, total: int, done: int) -> None:
        """Set the total and what a resumed run had already finished."""
        self.progress.update(self.task, total=total, completed=done)

    def advance(self, session: Session) -> None:
        """One more session finished; update the running accuracy."""
        if not session.infra_error:
            self.judged += 1
            self.wins += int(session.success)
        acc = f"{self.wins / self.judged:.0%}" if self.judged else "-"
        self.progress.update(self.task, advance=1, acc=acc)
