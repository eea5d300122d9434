"""Of push-fess's 50 partial paths after 200,000 expansions (the hybrid-fess seeds), how many end
in positions proven lost by a push-fess of 2,000 states, and how many distinct FESS cells."""

import sys
from pathlib import Path

import numpy as np

from evosoko.api import load_levels
from evosoko.evolve.descriptors import FessCells
from evosoko.evolve.hybrid import level_at
from evosoko.evolve.push_replay import push_tables
from evosoko.search import solve

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"

levels = load_levels(SHARED / "levels" / "xsokoban.txt")
for s in [int(x) for x in sys.argv[1].split(",")]:
    level = levels[s - 1]
    r = solve(level, "push-fess", node_limit=200000, partial=50)
    if r.solved:
        print(s, "solved")
        continue
    cells_of = FessCells(level, push_tables(level)).of_boxes
    cells = {cells_of(np.array(p.state.boxes, dtype=np.int64)) for p in r.partial}
    lost = sum(
        solve(level_at(level, p.state), "push-fess", node_limit=2000).status == "unsolvable"
        for p in r.partial
    )
    print(
        f"screen {s}: {len(r.partial)} seeds, {lost} proven lost, {len(cells)} cells, h {min(p.h for p in r.partial)}-{max(p.h for p in r.partial)}",
        flush=True,
    )
