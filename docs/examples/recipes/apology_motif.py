"""A motif: the agent apologised and then changed state anyway."""

from sessionproof.patterns import SessionView, motif


@motif(
    why="an apology marks a step that went wrong; writing right after it builds on that step",
    advice="after an apology, re-read the record and confirm with the user before any write",
    investment="confirm before write",
)
def write_after_apology(view: SessionView, context: object) -> bool | None:
    """True when a write-looking call follows an agent text that apologises."""
    sorry = False
    for turn in view.turns:
        if turn.kind == "agent":
            sorry = "sorry" in turn.text.lower() or "apolog" in turn.text.lower()
        elif turn.call is not None and sorry and not turn.call.name.startswith("get"):
            return True
    return False
