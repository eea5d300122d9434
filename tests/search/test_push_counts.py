"""The push-level searches expand and generate the nodes they always did.

The counts were recorded from ``push_kernel`` and ``fess_kernel`` at commit 440170a, with a
node limit of 20,000 (push-fess's re-recorded after its cells gained the out-of-plan coordinate,
which changes the order it expands states in by design: merge 4f47c3c; again when it gained
corral deadlock tests, which skip the expansion of lost states by design: branch xsok3; and
when its cells gained the room-connectivity coordinate, another change of order: branch
xsok4); they pin the search itself, so a change to the successors, their order, the pruning,
the heuristic or the frontier shows up here: a refactoring of the kernels (such as writing
their shared expansion once) must keep them, and a change meant to alter the search updates
them and says why.
"""

from __future__ import annotations

import pytest
from tiny_levels import SHARED_LEVELS

from evosoko.search import solve
from evosoko.sokoban.formats import read_levels

ALGORITHMS = ("push-astar", "push-wastar", "push-greedy", "push-fess")
NODE_LIMIT = 20_000

COUNTS = {  # (file, 1-based index): (expanded, generated, solution pushes) per algorithm
    ("microban.txt", 1): ((13, 14, 8), (12, 14, 8), (12, 14, 8), (10, 12, 8)),
    ("microban.txt", 2): ((3, 4, 3), (3, 4, 3), (3, 4, 3), (3, 4, 3)),
    ("microban.txt", 3): ((29, 43, 13), (28, 42, 13), (32, 44, 13), (41, 49, 13)),
    ("microban.txt", 4): ((9, 27, 7), (9, 27, 7), (9, 27, 7), (10, 31, 7)),
    ("microban.txt", 5): ((12, 71, 6), (42, 157, 8), (23, 107, 12), (58, 227, 8)),
    ("microban.txt", 6): ((29, 53, 29), (29, 53, 29), (29, 53, 29), (53, 96, 29)),
    ("microban.txt", 7): ((26, 160, 6), (89, 302, 8), (45, 207, 12), (18, 117, 6)),
    ("microban.txt", 8): ((68, 75, 32), (68, 75, 32), (68, 75, 32), (74, 79, 34)),
    ("microban.txt", 9): ((12, 13, 10), (12, 13, 10), (12, 13, 10), (13, 13, 10)),
    ("microban.txt", 10): ((43, 48, 21), (43, 48, 21), (43, 48, 21), (60, 70, 21)),
    ("boxoban/medium/train-000.txt", 1): ((24, 57, 16), (37, 72, 16), (49, 103, 22), (31, 96, 16)),
    ("boxoban/medium/train-000.txt", 2): ((48, 64, 19), (49, 66, 19), (46, 63, 19), (47, 63, 19)),
    ("boxoban/medium/train-000.txt", 3): ((9, 24, 9), (9, 24, 9), (9, 24, 9), (21, 35, 9)),
    ("boxoban/medium/train-000.txt", 4): ((32, 54, 16), (36, 55, 16), (37, 55, 16), (30, 57, 16)),
    ("boxoban/medium/train-000.txt", 5): (
        (72, 163, 12),
        (81, 148, 12),
        (138, 204, 12),
        (84, 194, 12),
    ),
    ("xsokoban.txt", 1): ((170, 519, 97), (118, 272, 109), (119, 272, 109), (267, 627, 103)),
    # push-astar stops at the node limit here: the chunked expansion and its resumption count
    ("xsokoban.txt", 2): ((20000, 33460, 0), (125, 341, 135), (130, 345, 135), (266, 699, 135)),
}


@pytest.mark.parametrize("where", sorted(COUNTS), ids=lambda where: f"{where[0]}#{where[1]}")
def test_the_push_searches_expand_the_nodes_they_always_did(where):
    name, index = where
    path = SHARED_LEVELS / name
    if not path.is_file():
        pytest.skip(f"no shared levels at {SHARED_LEVELS}")
    level = read_levels(path)[index - 1]
    found = []
    for algorithm in ALGORITHMS:
        result = solve(level, algorithm, node_limit=NODE_LIMIT)
        found.append((result.expanded, result.generated, result.pushes))
    assert tuple(found) == COUNTS[where]
