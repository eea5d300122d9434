"""For each screen: push-fess to N1 states keeping K partial paths; then push-fess of N2 states
from every K/4-th of them (usage: restart.py SCREENS N1 N2 K; restart1.out: 4,12,...,30 200000 200000 40)."""

import sys
import time
from pathlib import Path

from evosoko.api import load_levels
from evosoko.evolve.hybrid import level_at
from evosoko.search import solve

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"

levels = load_levels(SHARED / "levels" / "xsokoban.txt")
screens = [int(x) for x in sys.argv[1].split(",")]
n1, n2, k = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for s in screens:
    level = levels[s - 1]
    t = time.process_time()
    r = solve(level, "push-fess", node_limit=n1, partial=k)
    print(
        f"screen {s}: first {r.status} {r.expanded} nodes, {len(r.partial)} partial, {time.process_time() - t:.1f}s",
        flush=True,
    )
    if r.solved:
        continue
    for i, p in list(enumerate(r.partial))[:: max(1, len(r.partial) // 4)]:
        start = level_at(level, p.state)
        t = time.process_time()
        r2 = solve(start, "push-fess", node_limit=n2)
        print(
            f"  partial {i} h={getattr(p, 'h', None)} len={len(p.lurd)}: {r2.status} {r2.expanded} {time.process_time() - t:.1f}s",
            flush=True,
        )
