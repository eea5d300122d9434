"""How often the box macro changes a genome (one level, in-process); argv: screen seconds config overrides..."""
import sys
from evosoko.config import load_config
from evosoko.evolve import box_macros, evolve_level, make_evaluator
from evosoko.sokoban.formats import read_levels

level = read_levels("../shared/levels/xsokoban.txt")[int(sys.argv[1]) - 1]
overrides = [f"run.budget.seconds={sys.argv[2]}"] + sys.argv[4:]
config = load_config(sys.argv[3], overrides)
inner = box_macros.mut_append_box_path
inner_clear = box_macros.clearing_pushes
calls = changed = cleared = 0

def counted(genome, *args, **kwargs):
    global calls, changed
    before = list(genome)
    out = inner(genome, *args, **kwargs)
    calls += 1
    changed += list(genome) != before
    return out

def counted_clear(*args, **kwargs):
    global cleared
    out = inner_clear(*args, **kwargs)
    cleared += bool(out)
    return out

box_macros.mut_append_box_path = counted
box_macros.clearing_pushes = counted_clear
with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
    outcome = evolve_level(level, config, evaluator=evaluator)
print(f"screen {sys.argv[1]}: solved={outcome.solved} best={outcome.best_distance if hasattr(outcome,'best_distance') else ''} calls={calls} changed={changed} clearing found={cleared}")
