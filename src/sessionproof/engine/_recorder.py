"""Builds a session's events in order, with monotonic sequence numbers and both clocks."""

from __future__ import annotations

import time

from ..records import Event, EventKind
from ..records._internal import EventPayload, make_event


class Recorder:
    """Appends events for one session; `turn` and `step` are set by the loop as it goes."""

    def __init__(self, run_id: str, session_id: str) -> None:
        self.run_id = run_id
        self.session_id = session_id
        self.events: list[Event] = []
        self.turn = 0
        self.step = 0

    def emit(self, kind: EventKind, payload: EventPayload) -> None:
        """Record one event now; `payload` must be `kind`'s payload type.

        The payload is kept as given, not copied: emitters hand over records they do not
        change afterwards (the loop's own messages; fresh results from the boundary).
        """
        self.events.append(
            make_event(
                kind,
                payload,
                run_id=self.run_id,
                session_id=self.session_id,
                seq=len(self.events),
                turn=self.turn,
                step=self.step,
                t_wall=time.time(),
                t_mono=time.monotonic(),
            )
        )
