"""The faults' stable draws, kept under their old name: the helpers live in
`sessionproof._draws`, a layer below every package, so the agents' model-boundary faults draw
by the same scheme as the tool faults."""

from __future__ import annotations

from .._draws import stable_pick as stable_pick
from .._draws import unit_draw as unit_draw
