"""Round 16: how push-fess-bi's searches meet. Usage: python meet.py SCREENS SECONDS [module.NAME=value ...]

For each XSokoban screen: the CPU seconds and states of each search (push-fess, each pull search,
the ball, the plain push-fess sides) and which searches met, with the node ids of the meeting
against the sizes of their stores."""
import ast
import sys
import time
from pathlib import Path

from evosoko.sokoban.formats import read_levels
from evosoko.search.algorithms import algorithm_named
from evosoko.search.solver import warm_up, _run_class, heuristic_for, DEFAULT_MEMORY
from evosoko.search.search_run import Pruning
from evosoko.search import fess, bidirectional
from evosoko.search.store import EXPANDED
screens = [int(x) for x in sys.argv[1].split(",")]; T = float(sys.argv[2])
for s in sys.argv[3:]:
    k, v = s.split("="); mod, name = k.split(".")
    setattr({"fess": fess, "bidirectional": bidirectional}[mod], name, ast.literal_eval(v))
levels = read_levels(str(Path(__file__).resolve().parents[4] / "shared" / "levels" / "xsokoban.txt"))
for screen in screens:
    level = levels[screen - 1]; print("== screen", screen)
    alg = algorithm_named("push-fess-bi"); warm_up([alg.name], level.cells)
    run = _run_class(alg)(level, alg, heuristic_for(alg, None), T, None, 3.0, Pruning(), 0, DEFAULT_MEMORY, clock="cpu")
    t0 = time.process_time(); status = run.search(); print("status", status, "cpu", round(time.process_time() - t0, 1))
    print("forward s", round(run.forward_seconds, 1), "expanded", int(run.store.counters[EXPANDED]), "size", run.store.size)
    for pull in run.pulls:
        print("pull w", pull.weight, "s", round(pull.seconds, 1), "expanded", int(pull.store.counters[EXPANDED]), "size", pull.store.size)
    for i, s in enumerate(run.sides):
        print("side", i, round(s.seconds, 1), int(s.store.counters[EXPANDED]), s.store.size)
    if run.meeting:
        r, f, b, p = run.meeting
        name = "own" if r is run else "side%d" % [x.run for x in run.sides].index(r)
        print("met", name, "forward node", f, "of", r.store.size, "pull", None if p is None else p.weight, "node", b, "of", None if p is None else p.store.size)
    else:
        print("met: forward alone")
    sys.stdout.flush()
