"""Probe: random-priority greedy packing (box macros to in-plan goals, clearing when stuck),
restarted until time runs out; prints the most goals filled and whether a restart solved."""
import random, sys, time, numpy as np
from evosoko.sokoban.formats import read_levels
from evosoko.evolve.push_replay import push_tables, genes_for_pushes
from evosoko.evolve import box_macros as bm
from evosoko.search.packing_order import packing_order
from evosoko.search.box_paths import box_reachable_targets, box_path_pushes

scr, seconds, most = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
pi = len(sys.argv) < 5 or sys.argv[4] != "nopi"
lv = read_levels("../shared/levels/xsokoban.txt")[scr - 1]
t = push_tables(lv, corrals=pi); a = t.arrays
layer = packing_order(lv).layer
goals = int(a.goals.sum())
rng = random.Random(0)
best = 0; restarts = 0; t0 = time.process_time(); solved = False
def apply(boxes, pushes):
    for box, d in pushes:
        boxes.remove(box); boxes.add(box + int(a.deltas[d]))
    return pushes[-1][0]
while time.process_time() - t0 < seconds and not solved:
    restarts += 1
    boxes = {int(b) for b in t.start_boxes}; player = t.start_player; made = []
    while True:
        free = bm.in_plan_goals(layer, boxes)
        if not free:
            solved = all(a.goals[b] for b in boxes); break
        loose = sorted(b for b in boxes if not a.goals[b]); rng.shuffle(loose)
        occ = np.zeros(len(a.goals), bool); occ[list(boxes)] = True
        step = None
        for box in loose:
            r = box_reachable_targets(a.floor, a.dead, occ, a.deltas, box, player, free)
            if r:
                p = box_path_pushes(a.floor, a.dead, occ, a.deltas, box, player, rng.choice(r))
                if p and len(genes_for_pushes(t, made + p)) == len(made) + len(p):
                    step = p; break
        if step is None and most:
            for box in loose:
                p = bm.clearing_pushes(a, boxes, player, box, free, most, rng)
                if p and len(genes_for_pushes(t, made + p)) == len(made) + len(p):
                    step = p; break
        if step is None: break
        player = apply(boxes, step); made += step
    filled = sum(bool(a.goals[b]) for b in boxes)
    best = max(best, filled)
print(f"screen {scr}: solved={solved} best goals filled={best}/{goals} restarts={restarts} cpu={time.process_time()-t0:.1f}")
