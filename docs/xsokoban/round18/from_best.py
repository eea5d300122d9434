"""Run a search from the position a run's best genome reaches: is it alive? argv: solutions.sok screens seconds [algo]"""
import sys, warnings
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.rules import Board
from evosoko.sokoban.level import DIRECTIONS
from evosoko.sokoban.build import level_from_rows
from evosoko.search.solver import solve
levels = {l.title: l for l in read_levels("../shared/levels/xsokoban.txt")}
wanted = sys.argv[2].split(","); seconds = float(sys.argv[3]); algo = sys.argv[4] if len(sys.argv) > 4 else "push-fess-bi"
title = None
for line in open(sys.argv[1]):
    if line.startswith("Title:"): title = line.split(":", 1)[1].strip()
    if line.startswith("Best:") and title.split(".")[-1] in wanted:
        lv = levels[title]; b = Board(lv)
        moves = line.split(":", 1)[1].strip()
        for c in moves: b.step(DIRECTIONS.index(c.lower()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            here = level_from_rows(lv.rows(b.state()), title=title)
        r = solve(here, algo, time_limit=seconds, clock="cpu")
        print(title, "pushes so far", sum(c.isupper() for c in moves), "->", r.status, getattr(r, "pushes", None), f"{r.seconds:.1f}s", flush=True)
