"""Pairing calls with expected calls: a maximum bipartite matching.

Shared by the session call metrics and the BFCL matcher, so the count of matched calls never
depends on the order of repeated calls.
"""

from __future__ import annotations


def maximum_matching(candidates: list[list[int]], n_right: int) -> list[int]:
    """A maximum bipartite matching: for each left vertex, its right vertex or -1.

    `candidates[u]` lists the right vertices left vertex `u` may pair with. Kuhn's augmenting
    paths, searched breadth-first without recursion; one pass over the left side is enough.
    """
    match_left = [-1] * len(candidates)
    match_right = [-1] * n_right
    for root in range(len(candidates)):
        came_from: dict[int, int] = {}
        queue = [root]
        free = -1
        for left in queue:
            for right in candidates[left]:
                if right in came_from:
                    continue
                came_from[right] = left
                if match_right[right] == -1:
                    free = right
                    break
                queue.append(match_right[right])
            if free != -1:
                break
        right = free
        while right != -1:
            left = came_from[right]
            match_left[left], right = right, match_left[left]
            match_right[match_left[left]] = left
    return match_left
