"""diag for the code before d7cd56a, whose improver returns genes or None."""
import sys, time
from evosoko.config import load_config
from evosoko.evolve import evolve_level, make_evaluator, hybrid
from evosoko.api import load_levels
from evosoko.evolve.fitness import FitnessFunction
level = load_levels("/work/shared/levels/xsokoban.txt")[17]
config = load_config("/tmp/m1/code/configs/hybrid-fess.toml", ["output.optimize_seconds=none"])
score = FitnessFunction(level, "pushes", config.fitness)
real = hybrid.memetic_improver
log = []
def wrapped(level, config):
    improve = real(level, config)
    def f(genes):
        out = improve(genes)
        log.append((score([genes])[0].state_hash, out is None))
        return out
    return f
hybrid.memetic_improver = wrapped
with make_evaluator(level, config.parallel, "pushes", config.fitness) as ev:
    out = evolve_level(level, config, evaluator=ev)
from collections import Counter
c = Counter(h for h, _ in log)
print(out.status, out.generations, "searches", len(log), "distinct positions", len(c), "most searched", c.most_common(3), "None results", sum(n for _, n in log))
