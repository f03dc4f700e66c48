"""What the output-changing implicit faults do to a tool's output text: pure, seeded functions.

Each takes the true output and a seeded draw (`unit_draw` of the call's key) and returns the
output to serve plus a description of the change, or None when the output offers nothing the
kind can change (no JSON, no list, no field to perturb). The served text is rendered the way
the source rendered the true one (same JSON separators), so the format gives nothing away.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from typing import Any

Path = tuple[str | int, ...]
Draw = Callable[[str], float]
"""A seeded number in [0, 1) for a named decision of one call (`draw("field")`)."""

_STYLES: tuple[dict[str, Any], ...] = (
    {},
    {"separators": (",", ":")},
    {"indent": 2},
    {"ensure_ascii": False},
    {"separators": (",", ":"), "ensure_ascii": False},
)


def parse_json(text: str) -> Any | None:
    """The output as JSON data, or None when it is not JSON (plain text)."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def render_like(value: Any, original: str) -> str:
    """`value` as JSON in the style `original` was written in (separators, indentation)."""
    parsed = parse_json(original)
    for style in _STYLES:
        if json.dumps(parsed, **style) == original:
            return json.dumps(value, **style)
    return json.dumps(value)


def path_text(path: Path) -> str:
    """A path in the output as a reader writes it: `orders[2].status`; `$` for the whole."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "$"


def _walk(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every node of `value` with its path, breadth before depth within a level."""
    yield path, value
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _walk(sub, (*path, str(key)))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _walk(sub, (*path, i))


def _set(value: Any, path: Path, new: Any) -> Any:
    """A copy of `value` with the node at `path` replaced by `new` (the rest shared)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_set(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_set(v, rest, new) if i == head else v) for i, v in enumerate(value)]


def cut_list(output: str, draw: Draw) -> tuple[str, dict[str, Any]] | None:
    """partial_result: the first list of two or more items cut to a seeded shorter length."""
    data = parse_json(output)
    if data is None:
        return None
    for path, node in sorted(_walk(data), key=lambda pn: len(pn[0])):
        if isinstance(node, list) and len(node) >= 2:
            keep = 1 + int(draw("cut") * (len(node) - 1))
            served = render_like(_set(data, path, node[:keep]), output)
            change = {"path": path_text(path), "true_len": len(node), "served_len": keep}
            return served, change
    return None


def _digit_swap(text: str, draw: Draw) -> str | None:
    spots = [i for i, ch in enumerate(text) if ch.isdigit()]
    if not spots:
        return None
    at = spots[int(draw("digit-at") * len(spots))]
    old = int(text[at])
    new = (old + 1 + int(draw("digit") * 9)) % 10  # any other digit
    return text[:at] + str(new) + text[at + 1 :]


def _perturb_number(value: int | float, text_in_output: str, draw: Draw) -> int | float:
    if isinstance(value, int):
        step = 1 + int(draw("step") * max(2, min(abs(value) // 10, 50)))
        down = draw("sign") < 0.5 and (value < 0 or value - step >= 0)
        return value - step if down else value + step
    share = 0.05 + 0.25 * draw("share")
    factor = 1 - share if draw("sign") < 0.5 else 1 + share
    decimals = len(text_in_output.partition(".")[2]) if "." in text_in_output else 2
    new = round(value * factor, decimals)
    if new == value:  # 0.0, or a precision too coarse for the share: move one unit
        new = round(value + 10 ** (-decimals), decimals)
    return new


def corrupt_value(output: str, draw: Draw) -> tuple[str, dict[str, Any]] | None:
    """corrupted_value: one seeded field perturbed within its type and range (a plain-text
    output, such as a bare id, is one string field)."""
    data = parse_json(output)
    if data is None:
        swapped = _digit_swap(output, draw)
        if swapped is None:
            return None
        return swapped, {"path": "$", "true": output, "served": swapped}
    leaves = [
        (path, node)
        for path, node in _walk(data)
        if (isinstance(node, int | float) and not isinstance(node, bool) and math.isfinite(node))
        or (isinstance(node, str) and any(ch.isdigit() for ch in node))
    ]
    if not leaves:
        return None
    path, node = leaves[int(draw("field") * len(leaves))]
    new: Any
    if isinstance(node, str):
        new = _digit_swap(node, draw)
        if new is None:
            return None
    else:
        new = _perturb_number(node, json.dumps(node), draw)
    served = render_like(_set(data, path, new), output)
    return served, {"path": path_text(path), "true": node, "served": new}


def failure_body(tool: str, output: str | None = None) -> str:
    """error_in_body: a success-shaped answer whose content says the operation failed."""
    body = {
        "status": "error",
        "message": f"{tool} could not be completed: the request was not processed. "
        "Please try again later.",
    }
    return render_like(body, output) if output else json.dumps(body)
