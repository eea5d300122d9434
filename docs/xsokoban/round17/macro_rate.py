"""How often the box macro changes a genome in a hybrid-fess run (one level, in-process).

    python docs/xsokoban/round17/macro_rate.py SCREEN SECONDS [KEY=VALUE ...]
"""

import sys
from pathlib import Path

from evosoko.config import load_config
from evosoko.evolve import box_macros, evolve_level, make_evaluator
from evosoko.sokoban.formats import read_levels

REPO = Path(__file__).resolve().parents[3]
LEVELS = REPO.parent / "shared" / "levels" / "xsokoban.txt"

level = read_levels(LEVELS)[int(sys.argv[1]) - 1]
overrides = [f"run.budget.seconds={sys.argv[2]}", "ga.mutation.box_macro=0.3", *sys.argv[3:]]
config = load_config(REPO / "configs" / "hybrid-fess.toml", overrides)
inner = box_macros.mut_append_box_path
calls = changed = genes_added = 0


def counted(genome, *args, **kwargs):
    """The box macro, counting its calls and the genomes it changes."""
    global calls, changed, genes_added
    before = list(genome)
    out = inner(genome, *args, **kwargs)
    calls += 1
    if list(genome) != before:
        changed += 1
        genes_added += len(genome) - len(before)
    return out


box_macros.mut_append_box_path = counted
with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
    outcome = evolve_level(level, config, evaluator=evaluator)
print(
    f"screen {sys.argv[1]}: solved={outcome.solved} macro calls={calls} changed={changed} "
    f"mean length change={genes_added / max(changed, 1):.1f}"
)
