"""A push-BFS from the start to NODES expansions, then a pull search alone for SECONDS
CPU-seconds: does some pulled state lie in the BFS's store? (usage: ball.py SCREENS NODES
SECONDS; ball1.out: 19,16,13,14,18,20,21 300000 15 at a32384a)."""

import sys
import time
from pathlib import Path

from evosoko.api import load_levels
from evosoko.search import ALGORITHMS, Pruning
from evosoko.search.bidirectional import PullSearch
from evosoko.search.pull_kernel import first_meeting
from evosoko.search.search_run import SearchRun
from evosoko.sokoban.arrays import level_arrays

REPO = Path(__file__).resolve().parents[3]
levels = load_levels(REPO.parent / "shared" / "levels" / "xsokoban.txt")
for screen in [int(x) for x in sys.argv[1].split(",")]:
    level = levels[screen - 1]
    started = time.process_time()
    budget = (None, int(sys.argv[2]), 3.0, Pruning(), 0, 1 << 33)
    run = SearchRun(level, ALGORITHMS["push-bfs"], "matching", *budget)
    status = run.search()
    bfs_seconds = time.process_time() - started
    started = time.process_time()
    pull = PullSearch(level, level_arrays(level), level.cells, 300, 1 << 26)
    while time.process_time() - started < float(sys.argv[3]):
        pull.step()
    pull_seconds = time.process_time() - started
    forward, backward = run.store, pull.store
    met = first_meeting(backward.nodes, 0, backward.size, forward.nodes, forward.table)
    print(screen, "bfs", status, forward.size, "depth", run.store.field("g").max(),
          round(bfs_seconds, 1), "s | pull", backward.size, round(pull_seconds, 1), "s | meet",
          *met, flush=True)
