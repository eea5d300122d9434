"""The population of searches on XSokoban screens, 60 s wall per screen, 2 workers; one JSON
line per screen (appended to FILE).

    python docs/xsokoban/round20/popbench.py 18,27 evolve|random SEED FILE [population=8 first_nodes=100000 growth=2.0]

The figures of round 20 (pop-*.jsonl) were taken with this script before the GA moved into the
package (the same algorithm: ranking, breeding, node schedule and deadline); it now runs
``evosoko.evolve.search_population``. ``gens``: per generation, (-packing, heuristic) of its
best member and the seconds since the start.
"""

import json
import sys
import time
from functools import partial
from pathlib import Path

from evosoko.budget import Budget
from evosoko.evolve.evaluation import ProcessPool
from evosoko.evolve.search_population import SearchPopulation
from evosoko.search.solver import warm_up
from evosoko.sokoban.formats import read_levels

LEVELS = Path(__file__).resolve().parents[4] / "shared" / "levels" / "xsokoban.txt"


def main() -> None:
    screens = [int(x) for x in sys.argv[1].split(",")]
    evolve, seed, out = sys.argv[2] == "evolve", int(sys.argv[3]), sys.argv[4]
    options = {k: float(v) if "." in v else int(v) for k, v in (a.split("=") for a in sys.argv[5:])}
    levels = read_levels(LEVELS)
    pool = ProcessPool(2, warm_up=partial(warm_up, ["push-fess"], 0))
    pool.prepare(None)
    with open(out, "a") as file:
        for number in screens:
            gens = []

            def note(stats, members, gens=gens):
                best = min(members, key=lambda m: m.rank)
                gens.append((stats.generation, list(best.rank[1:]), stats.seconds))

            population = SearchPopulation(
                levels[number - 1],
                budget=Budget(seconds=60.0),
                evolve=evolve,
                seed=seed,
                submit=pool.submit,
                on_generation=note,
                **options,
            )
            started = time.perf_counter()
            reason = population.run()
            best = population.best
            row = {
                "screen": number,
                "reason": reason,
                "seconds": round(time.perf_counter() - started, 1),
                "generations": population.generation + 1,
                "evaluations": population.evaluations,
                "distance": best.outcome.distance,
                "packing": best.outcome.packing,
                "settings": str(best.settings),
                "pushes": best.outcome.pushes,
                "evolve": evolve,
                "seed": seed,
                "gens": gens,
                "params": options,
            }
            print(json.dumps(row), flush=True)
            file.write(json.dumps(row) + "\n")
    pool.close()


if __name__ == "__main__":
    main()
