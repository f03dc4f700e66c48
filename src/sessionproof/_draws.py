"""Stable draws: the same key gives the same number in every process, run and Python.

Python's `hash()` is salted per process, and a shared `random.Random` stream would make the
fault on call 5 depend on how many draws calls 1-4 took; hashing the key of each decision
avoids both.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_SCALE = float(1 << 64)


def unit_draw(*key: object) -> float:
    """A number in [0, 1), uniform over keys, fixed for a given key."""
    text = "\x1f".join(str(part) for part in key)
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / _SCALE


def stable_pick(options: Sequence[T], *key: object) -> T:
    """One of `options`, chosen by the key (the caller fixes the order of `options`)."""
    if not options:
        raise ValueError("stable_pick needs at least one option")
    return options[int(unit_draw(*key) * len(options))]
