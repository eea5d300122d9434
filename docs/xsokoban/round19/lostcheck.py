"""For each best position of a run: does the GA's own lost search prove it lost, at which node limit; and push-astar's expansions."""
import sys, warnings
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.rules import Board
from evosoko.sokoban.level import DIRECTIONS
from evosoko.sokoban.build import level_from_rows
from evosoko.search.solver import solve
from evosoko.evolve.lost_search import is_lost
from evosoko.evolve.push_replay import push_tables
levels = {l.title: l for l in read_levels("../shared/levels/xsokoban.txt")}
title=None
for line in open(sys.argv[1]):
    if line.startswith("Title:"): title=line.split(":",1)[1].strip()
    if line.startswith("Best:"):
        lv=levels[title]; b=Board(lv)
        for c in line.split(":",1)[1].strip(): b.step(DIRECTIONS.index(c.lower()))
        s=b.state()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            here=level_from_rows(lv.rows(s), title=title)
        r=solve(here, "push-astar", time_limit=5, clock="cpu")
        t=push_tables(lv, corrals=True)
        found=None
        for lim in (1000, 10000, 100000, 1000000):
            if is_lost(t, s.player, sorted(s.boxes), lim):
                found=lim; break
        print(title, "astar", r.status, r.expanded, "| GA lost search proves at", found, flush=True)
