"""Behavioural motifs: named hypotheses about what precedes failure, read from the trace alone.

A motif says, for one session, whether a behaviour is present (True), absent (False) or cannot
be told for that session (None: it is left out of that motif's test). Each carries `why` it
matters and the `advice` — the engineering change or guard policy that addresses it — and an
`investment` key that groups motifs pointing to the same change.

A motif may also say, once for the whole set, that it does not apply (`not_applicable`): the
implicit-fault motif where no fault plan ran, the policy-read motif where no read is
configured. Such a motif is reported as not applicable with its reason, never tested.

Motifs are registered in `MOTIFS`, a `Registry("motifs")` (entry-point group
`sessionproof.motifs`): the built-ins (`_motif_kinds`, registered here by reference), any
installed package's entry points, and `register_motif` / `@motif` at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .._plugins import Registry
from ..errors import ConfigError
from ._motif_view import SessionView


@dataclass(frozen=True)
class MotifContext:
    """What motifs may know besides the trace.

    `write_tools`: the tools that change state, when a domain says so (otherwise each tool's
    role is read from its name). `policy_reads`: per write tool, the read tools a policy wants
    before it (e.g. `{"cancel_order": ("get_order_details",)}`); empty = no policy known.
    `read_loop`: how many reads in a row make a loop.
    """

    write_tools: frozenset[str] | None = None
    policy_reads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    read_loop: int = 5


@runtime_checkable
class Motif(Protocol):
    """A behavioural motif (see the module docstring)."""

    @property
    def name(self) -> str:
        """The name it is reported and registered under."""
        ...

    @property
    def why(self) -> str:
        """Why the behaviour may cause failure (one sentence)."""
        ...

    @property
    def advice(self) -> str:
        """The engineering change or guard policy that addresses it."""
        ...

    @property
    def investment(self) -> str:
        """A short key grouping the motifs one change addresses (`confirm before write`)."""
        ...

    def present(self, view: SessionView, context: MotifContext) -> bool | None:
        """Whether the session shows the behaviour; None when it cannot be told."""
        ...

    def not_applicable(self, views: Sequence[SessionView], context: MotifContext) -> str | None:
        """Why the motif does not apply to this set at all; None when it does."""
        ...


Present = Callable[[SessionView, MotifContext], bool | None]
Applies = Callable[[Sequence[SessionView], MotifContext], str | None]


@dataclass(frozen=True)
class FunctionMotif:
    """A motif made of a function (what `@motif` builds)."""

    name: str
    why: str
    advice: str
    investment: str
    test: Present
    applies: Applies | None = None

    def present(self, view: SessionView, context: MotifContext) -> bool | None:
        """The function's answer for `view`."""
        return self.test(view, context)

    def not_applicable(self, views: Sequence[SessionView], context: MotifContext) -> str | None:
        """The `applies` function's reason, or None (applies) when there is none."""
        return None if self.applies is None else self.applies(views, context)


def _check(name: str, obj: Any) -> Motif:
    if not isinstance(obj, Motif):
        raise ConfigError(
            f"motif plug-in {name!r}: {type(obj).__name__} is not a Motif (it needs name, why, "
            "advice, investment, present and not_applicable)"
        )
    return obj


MOTIFS: Registry[Motif] = Registry("motifs", check=_check)
"""The motifs `patterns` tests: built-ins, entry points, run-time registrations."""

BUILTIN_MOTIFS = (
    "write_without_prior_read",
    "write_without_confirmation",
    "ungrounded_argument",
    "retry_unchanged_after_error",
    "proceed_after_error_unacknowledged",
    "transfer_or_stop_after_error",
    "read_loop",
    "acting_on_implicit_fault",
    "policy_read_skipped",
)
for _name in BUILTIN_MOTIFS:
    MOTIFS.add(_name, f"sessionproof.patterns._motif_kinds:{_name.upper()}")


def register_motif(m: Motif, *, replace: bool = True) -> Motif:
    """Register `m` under its name (a team's own motif); returns it."""
    _check(m.name, m)
    MOTIFS.add(m.name, m, replace=replace)
    return m


def motif(
    *,
    name: str | None = None,
    why: str,
    advice: str,
    investment: str | None = None,
    applies: Applies | None = None,
    register: bool = True,
) -> Callable[[Present], FunctionMotif]:
    """Make a function `(view, context) -> bool | None` a motif (registered unless
    `register=False`); `name` defaults to the function's name, `investment` to `advice`."""

    def wrap(fn: Present) -> FunctionMotif:
        made = FunctionMotif(
            name=name or fn.__name__,
            why=why,
            advice=advice,
            investment=investment or advice,
            test=fn,
            applies=applies,
        )
        if register:
            register_motif(made)
        return made

    return wrap


def motifs(names: Sequence[str] | None = None) -> list[Motif]:
    """The motifs named (default: every registered one, sorted by name)."""
    return [MOTIFS.require(n) for n in (names if names is not None else MOTIFS.names())]
