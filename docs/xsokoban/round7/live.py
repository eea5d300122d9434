"""For each screen: push-fess to N1 states keeping K partial paths; each is searched by a push-fess
of LOST states (proven lost if it exhausts them); then push-fess of N2 states from the first TRIES
not proven lost (usage: live.py SCREENS N1 K LOST N2 TRIES; live1.out: 4,12,... 200000 400 2000 200000 3)."""

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
n1, k, lost_nodes, n2, tries = (int(x) for x in sys.argv[2:7])
for s in screens:
    level = levels[s - 1]
    t = time.process_time()
    r = solve(level, "push-fess", node_limit=n1, partial=k)
    if r.solved:
        print(f"screen {s}: solved by first search")
        continue
    live = []
    lost = 0
    for p in r.partial:
        start = level_at(level, p.state)
        q = solve(start, "push-fess", node_limit=lost_nodes)
        if q.status == "unsolvable":
            lost += 1
        elif q.solved:
            live.append((0, p))
            break
        else:
            live.append((p.h, p))
    t1 = time.process_time() - t
    hs = sorted(h for h, _ in live)
    print(
        f"screen {s}: {len(r.partial)} partial, {lost} lost, {len(live)} live (h {hs[:5]}), {t1:.1f}s",
        flush=True,
    )
    for h, p in live[:tries]:
        q = solve(level_at(level, p.state), "push-fess", node_limit=n2)
        print(f"   live h={h}: {q.status} {q.expanded}", flush=True)
