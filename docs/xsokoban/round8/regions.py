"""push-fess-bi for SECONDS CPU-seconds on each screen, then: how many pulled states lie within
h pushes of the start boxes (h <= 0, 2, 5, 10, 20), how many of those box sets push-fess also
holds, and the player regions (smallest cell) of both (usage: regions.py SCREENS SECONDS;
regions1.out: 14,19 30 at a32384a, the pull search without the ball)."""

import sys
from pathlib import Path

import numpy as np

from evosoko.api import load_levels
from evosoko.search import ALGORITHMS, Pruning
from evosoko.search.bidirectional import BidirectionalRun

REPO = Path(__file__).resolve().parents[3]
levels = load_levels(REPO.parent / "shared" / "levels" / "xsokoban.txt")
for screen in [int(x) for x in sys.argv[1].split(",")]:
    level = levels[screen - 1]
    algorithm = ALGORITHMS["push-fess-bi"]
    budget = (float(sys.argv[2]), None, 3.0, Pruning(), 0, 1 << 33)
    run = BidirectionalRun(level, algorithm, "matching", *budget, clock="cpu")
    status = run.search()
    forward, backward = run.store, run.pulls[0].store
    h, boxes, players = backward.field("h"), backward.field("boxes"), backward.field("player")
    regions: dict[bytes, set[int]] = {}
    for row, player in zip(forward.field("boxes"), forward.field("player")):
        regions.setdefault(row.tobytes(), set()).add(int(player))
    for limit in (0, 2, 5, 10, 20):
        near = np.flatnonzero(h <= limit)
        shared = [k for k in near if boxes[k].tobytes() in regions]
        pairs = [(int(players[k]), sorted(regions[boxes[k].tobytes()])[:4]) for k in shared[:5]]
        print(screen, status, f"pull h<={limit}:", len(near), "boxes in forward store:",
              len(shared), "regions there", pairs, flush=True)
