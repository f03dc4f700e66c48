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
from ..scoring import verdict_of
from ..scoring._internal import not_judged_reason, verdict_label
from ..store._internal import scrub_text


class RunProgress:
    """Draws on stderr so `--json` output on stdout stays clean.

    When stderr is not a terminal (CI logs, pipes) it prints one plain line per finished
    session instead of a bar, so progress is visible in logs too.
    """

    def __init__(self, console: Console, label: str) -> None:
        self.console = console
        self.live = console.is_terminal
        self.total = 0
        self.done = 0
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
        self.task = self.progress.add_task(label, total=0, acc="–")
        self.tally: dict[str, list[int]] = {}
        """Arm → [judged, successes]: running accuracy is per arm, never the arms pooled."""

    def __enter__(self) -> RunProgress:
        if self.live:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live:
            self.progress.stop()

    def start(self, total: int, done: int) -> None:
        """Set the total and what a resumed run had already finished."""
        self.total, self.done = total, done
        self.progress.update(self.task, total=total, completed=done)

    def advance(self, session: Session) -> None:
        """One more session finished; update the running accuracy of its arm (over judged
        sessions; with several arms the arm is named, the arms are never pooled)."""
        verdict = verdict_of(session)
        tally = self.tally.setdefault(session.arm, [0, 0])
        if verdict is not None:
            tally[0] += 1
            tally[1] += verdict
        acc = f"{tally[1] / tally[0]:.0%}" if tally[0] else "–"
        if len(self.tally) > 1:
            acc = f"{acc} (arm {session.arm})"
        self.done += 1
        if self.live:
            self.progress.update(self.task, advance=1, acc=acc)
            if session.infra_error:
                # Said above the bar as it happens: the summary only counts infra errors.
                self.progress.console.print(
                    f"{session.session_id} {verdict_text(session)}",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
            return
        # Written as is: rich's print lays out each line (~0.26 ms, 0.16 s of a 600-session
        # run's busiest second), and a log line needs no layout.
        out = self.console.file
        out.write(
            f"[{self.done}/{self.total}] {session.session_id} {verdict_text(session)}; "
            f"running accuracy {acc}\n"
        )
        out.flush()


def verdict_text(session: Session) -> str:
    """A session's verdict as a progress line says it, with its termination: "pass
    (user_stop)", "fail (max_steps)", or "not judged" with the reason ("not judged
    (infra_error: <first line of its detail>)", "not judged (user_stop; no outcome)")."""
    verdict = verdict_of(session)
    end = session.termination.value
    if verdict is not None:
        label = verdict_label(session)
        if label == "unevaluated" and session.outcome is not None:
            left = ", ".join(session.outcome.unevaluated)
            return f"unevaluated ({end}; no evaluated criterion failed; not evaluated: {left})"
        return f"{label} ({end})"
    if session.infra_error:
        # Scrubbed as the store scrubs it: a provider's error may quote a credential.
        detail = scrub_text(session.termination_detail or "").strip().splitlines()
        return f"not judged ({end}{': ' + detail[0][:200] if detail else ''})"
    return f"not judged ({end}; {not_judged_reason(session) or 'not judged'})"
