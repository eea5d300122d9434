"""diag.py for the code before d7cd56a (whose improver returns genes or None): XSokoban 18 with
hybrid-fess, counting the positions the memetic searches start from. Run it with PYTHONPATH
set to a checkout of 82a9610."""

from collections import Counter
from pathlib import Path

from evosoko.api import load_levels
from evosoko.config import load_config
from evosoko.evolve import evolve_level, hybrid, make_evaluator
from evosoko.evolve.fitness import FitnessFunction

REPO = Path(__file__).resolve().parents[3]
level = load_levels(REPO.parent / "shared" / "levels" / "xsokoban.txt")[17]
config = load_config(
    REPO / "configs" / "hybrid-fess.toml",
    ["output.optimize_seconds=none", "hybrid.memetic_every=5"],  # the preset then
)
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
c = Counter(h for h, _ in log)
print(
    out.status,
    out.generations,
    "searches",
    len(log),
    "distinct positions",
    len(c),
    "most searched",
    c.most_common(3),
    "None results",
    sum(n for _, n in log),
)
