"""A mutation of your own, registered with a decorator and compared against the built-in one.

    python examples/custom_mutation.py                     # serial jobs
    python examples/custom_mutation.py --backend processes # the same comparison on 2 workers

The swap mutation reorders the genome: each gene, with probability ``swap_rate``, trades places
with one of the next ``window`` genes (for push genomes, two pushes change order; for move
genomes, two steps). It replaces the standard mutation (``[ga.mutation] kind = "swap"``) in one
solver, which ``evosoko.compare`` runs against the standard GA on the same levels, seeds and
budget. Every random number comes from ``rng``, the run's generator: the comparison is
reproducible, on either backend, and a run with it resumes exactly.

A run configuration can name the function by where it lives, without registering it:
``kind = "examples.custom_mutation:swap_genes"`` (with the repository on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import evosoko

HERE = Path(__file__).resolve().parent
LEVELS = HERE.parent / "levels" / "starter.xsb"


@evosoko.register_mutation("swap")
def swap_genes(genome: list[int], rng: random.Random, swap_rate: float = 0.05, window: int = 3):
    """Swap each gene, with probability ``swap_rate``, with one of the next ``window`` genes.

    The operator contract is DEAP's: change the genome in place, return it in a tuple. The
    parameters after ``rng`` are the mutation's own keys in ``[ga.mutation]``, checked like
    every other key (``swap_rat = 0.1`` is refused with "did you mean 'ga.mutation.swap_rate'").
    """
    for index in range(len(genome) - 1):
        if rng.random() < swap_rate:
            other = min(len(genome) - 1, index + rng.randint(1, window))
            genome[index], genome[other] = genome[other], genome[index]
    return (genome,)


def compare(backend: str = "serial", out: str | Path | None = None):
    """The standard GA against the swap GA on six starter levels, two seeds each."""
    standard = evosoko.preset("default").set("ga.population", 40).set("ga.offspring", 40)
    swap = standard.set("ga.mutation.kind", "swap").set("ga.mutation.swap_rate", 0.08)
    return evosoko.compare(
        levels=LEVELS,
        select=[f"hard-0{n}" for n in range(1, 7)],
        solvers={"standard": standard, "swap": swap},
        seeds=[0, 1],
        budget=evosoko.Budget(seconds=60, evaluations=3000),
        name="custom-mutation",
        backend=backend,
        workers=2,
        out=out,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("serial", "processes"), default="serial")
    parser.add_argument("--out", help="output folder (default: a new one under runs/)")
    args = parser.parse_args()
    outcome = compare(args.backend, args.out)
    print((outcome.folder / "summary.md").read_text(), end="")
    for summary in outcome.summaries:
        spent = [row["used"] for row in outcome.rows if row["solver"] == summary.solver]
        print(f"{summary.solver}: evaluations per job {spent}")
    print(f"results in {outcome.folder}")
    sys.exit(0 if outcome.complete else 1)


if __name__ == "__main__":
    main()
