"""Ceilings of the configuration values that size what a run holds in memory, with the reason.

A value past its ceiling is refused where it is written (its key and line), saying why: a run
accepted with ``ga.population = 1000000000`` grew without bound while building its first
population. Each ceiling is far above any useful setting and far below what exhausts a machine
of a few gigabytes; the products of several values are checked in :mod:`evosoko.config`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator

MAX_INDIVIDUALS = 1_000_000
"""Individuals in a population, offspring per generation, over all islands (each is a genome
with its fitness and evaluation: about a kilobyte, so a gigabyte a million)."""

MAX_ISLANDS = 256
"""Islands: each one is a whole population evolved in a task of its own every epoch."""

MAX_GENOME_LENGTH = 1_000_000
"""Genes of a genome: a thousand times the longest solution of the large level collections."""

MAX_GENES = 1_000_000_000
"""Genes a run's populations may hold at once, all at ``ga.max_length`` (8 bytes each: 8 GB)."""

MAX_CACHE = 1_000_000
"""Fitnesses remembered per level (each keeps its genome: a few gigabytes a million at a few
hundred genes)."""

MAX_WORKERS = 256
"""Worker processes: each loads its own copy of the compiled kernels (a few hundred MB)."""


def at_most(limit: int, reason: str) -> AfterValidator:
    """A pydantic validator that refuses values above ``limit``, giving ``reason``."""

    def check(value: Any) -> Any:
        if value is not None and value > limit:
            raise ValueError(f"at most {limit:,}: {reason}")
        return value

    return AfterValidator(check)


def check_product(named: dict[str, int], limit: int, what: str) -> None:
    """Refuse values whose product passes ``limit`` (a ``ValueError`` naming them)."""
    product = 1
    for value in named.values():
        product *= value
    if product > limit:
        factors = " x ".join(f"{key} {value:,}" for key, value in named.items())
        raise ValueError(f"{factors} = {product:,} {what}, more than the {limit:,} allowed")


Individuals = Annotated[
    int, at_most(MAX_INDIVIDUALS, "each individual is a genome with its fitness in memory")
]
"""A count of individuals (population, offspring, tournament, hall of fame)."""

Genes = Annotated[int, at_most(MAX_GENOME_LENGTH, "genes of one genome")]
"""A count of genes of one genome."""

Workers = Annotated[
    int, at_most(MAX_WORKERS, "each worker process loads its own copy of the compiled kernels")
]
"""A count of worker processes (of a run's evaluations or of compare and sweep jobs)."""
