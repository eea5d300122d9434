"""Round 16: after SECONDS CPU-seconds of push-fess-bi on an XSokoban screen, how many states of
its searches from the start differ from a pulled state by one box, and can that one box be
pushed there (a one-box bridge between the two directions)? Usage: python bridge.py SCREEN
SECONDS (one pull search, as before round 16)."""
import sys, time
from pathlib import Path
from collections import deque
import numpy as np
from evosoko.sokoban.formats import read_levels
from evosoko.search.algorithms import algorithm_named
from evosoko.search.solver import warm_up, _run_class
from evosoko.search.search_run import Pruning
from evosoko.search.solver import DEFAULT_MEMORY
from evosoko.search import bidirectional

bidirectional.PULL_WEIGHTS = (None,)  # one pull search, the default when this ran

screen = int(sys.argv[1]); T = float(sys.argv[2])
level = read_levels(str(Path(__file__).resolve().parents[4] / "shared" / "levels" / "xsokoban.txt"))[screen - 1]
alg = algorithm_named("push-fess-bi")
warm_up([alg.name], level.cells)
from evosoko.search.solver import heuristic_for
h = heuristic_for(alg, None)
run = _run_class(alg)(level, alg, h, T, None, 3.0, Pruning(), 0, DEFAULT_MEMORY, clock="cpu")
status = run.search()
print("status", status)
if not run.pulls:
    print("pull dropped"); sys.exit()
Z = np.asarray(run.tab.zobrist_box, dtype=np.uint64)
floor = np.asarray(run.tab.floor); deltas = np.asarray(run.tab.deltas)

def keys(store):
    n = store.size
    boxes = np.asarray(store.nodes[0][:n], dtype=np.int64)
    zb = Z[boxes]
    full = np.bitwise_xor.reduce(zb, axis=1)
    minus = full[:, None] ^ zb
    return boxes, minus

pb, pk = keys(run.pulls[0].store)
print("pull states", len(pb))
pflat = pk.ravel()
order = np.argsort(pflat, kind="stable"); psorted = pflat[order]
dead = ~run.pulls[0].live  # cells no box can be pushed to from the start (forward dead-ish)

def region(occ, start):
    seen = {start}; q = [start]
    while q:
        c = q.pop()
        for d in deltas:
            m = c + d
            if floor[m] and not occ[m] and m not in seen:
                seen.add(m); q.append(m)
    return seen

def bridge(others, a, player, b, pplayer, limit=20000):
    occ = np.zeros(len(floor), bool); occ[list(others)] = True
    occ[a] = True
    start = (a, min(region(occ, player)))
    occ[a] = False
    seen = {start}; q = deque([start])
    while q:
        box, pl = q.popleft()
        occ[box] = True
        reg = region(occ, pl)
        if box == b and pplayer in reg:
            occ[box] = False
            return True
        for d in deltas:
            to = box + d
            if (box - d) in reg and floor[to] and not occ[to] and not dead[to]:
                occ[box] = False; occ[to] = True
                key = (to, min(region(occ, box)))
                occ[to] = False; occ[box] = True
                if key not in seen:
                    seen.add(key); q.append(key)
        occ[box] = False
        if len(seen) > limit: return False
    return False

stores = [("own", run.store)] + [(f"side{i}", s.store) for i, s in enumerate(run.sides)]
pnodes = run.pulls[0].store.nodes
for name, store in stores:
    fb, fk = keys(store)
    n = fb.shape[1]
    idx = np.searchsorted(psorted, fk.ravel())
    idx = np.minimum(idx, len(psorted) - 1)
    hit = psorted[idx] == fk.ravel()
    hits = np.nonzero(hit)[0]
    print(name, "states", len(fb), "key hits", len(hits))
    tried = found = 0
    t0 = time.time()
    for flat in hits:
        f, i = divmod(int(flat), n)
        key = fk[f, i]
        lo = np.searchsorted(psorted, key); hi = np.searchsorted(psorted, key, side="right")
        for pos in order[lo:hi]:
            p, j = divmod(int(pos), n)
            a, b = int(fb[f, i]), int(pb[p, j])
            if a == b: continue
            fo = set(int(x) for x in fb[f]) - {a}
            po = set(int(x) for x in pb[p]) - {b}
            if fo != po: continue
            tried += 1
            if bridge(fo, a, int(store.nodes[1][f]), b, int(pnodes[1][p])):
                found += 1
                if found <= 3: print("  bridge f", f, "p", p, a, "->", b)
        if time.time() - t0 > 120: print("  (cut)"); break
    print(name, "candidates", tried, "bridges", found)
