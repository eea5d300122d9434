"""hybrid-fess on one XSokoban screen in-process, logging every memetic search (usage: diag.py
SCREEN [OVERRIDES...]; docs/xsokoban.md quotes screen 18 with hybrid.memetic_every=5)."""

import sys
import time
from pathlib import Path

from evosoko.api import load_levels
from evosoko.config import load_config
from evosoko.evolve import evolve_level, hybrid, make_evaluator

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"

screen = int(sys.argv[1])
extra = sys.argv[2:]
level = load_levels(SHARED / "levels" / "xsokoban.txt")[screen - 1]
config = load_config(
    REPO / "configs" / "hybrid-fess.toml", ["output.optimize_seconds=none", *extra]
)
real = hybrid.memetic_improver
log = []


def wrapped(level, config):
    improve = real(level, config)

    def f(genes):
        t = time.perf_counter()
        out = improve(genes)
        log.append((round(time.perf_counter() - t, 3), out.lost, out.genes is not None, len(genes)))
        return out

    return f


hybrid.memetic_improver = wrapped
with make_evaluator(level, config.parallel, "pushes", config.fitness) as ev:
    t = time.perf_counter()
    out = evolve_level(level, config, evaluator=ev)
print(screen, out.status, out.generations, round(time.perf_counter() - t, 1))
print(
    "memetic searches",
    len(log),
    "lost",
    sum(l[1] for l in log),
    "extended",
    sum(l[2] for l in log),
    "seconds",
    round(sum(l[0] for l in log), 1),
)
print(log[:10], log[-5:])
