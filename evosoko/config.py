"""Run configuration: TOML files validated by pydantic models, with ``KEY=VALUE`` overrides.

A configuration is parsed once, here at the edge, into a :class:`Config` of plain typed values
that the inner layers receive. Every model forbids unknown keys; :func:`load_config` turns a
typo into a :class:`ConfigError` that names the key, suggests the closest valid one and gives
the line of the TOML file it is on.

Paths: a relative ``run.levels`` is looked up first relative to the current directory, then
relative to the directory of the configuration file; the first that exists is stored as an
absolute path, so the resolved configuration (:func:`dump_config`) loads again from anywhere.
When neither exists the value is kept as written and reading the levels reports the error.

Unset values: TOML has no null, so an optional value (a budget limit, ``hybrid.memetic_every``)
is unset by leaving it out, or by writing the string ``"none"`` (``--set run.budget.seconds=none``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from os import PathLike
from typing import Any, ClassVar, Literal

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from evosoko.errors import ConfigError

__all__ = [
    "OVERRIDE_SOURCE",
    "BudgetConfig",
    "Config",
    "ConfigError",
    "CrossoverConfig",
    "FitnessConfig",
    "GAConfig",
    "HybridConfig",
    "IslandsConfig",
    "MutationConfig",
    "OutputConfig",
    "ParallelConfig",
    "RunConfig",
    "SearchesConfig",
    "assign_override",
    "dump_config",
    "load_config",
    "locate_key",
    "parse_override",
    "read_toml",
]


from evosoko.config_loading import (
    OVERRIDE_SOURCE,
    UNSET,
    assign_override,
    dump_config,
    load_config_model,
    locate_key,
    parse_override,
    read_toml,
    set_key,
)
from evosoko.config_tables import (  # the base of every table, and tables that name a part
    OMIT_DEFAULT,
    _known_part,
    _none_word,
    _PartTable,
    _Section,
    unread_error,
)

# ---- [run] ----------------------------------------------------------------------------------


class BudgetConfig(_Section):
    """Per-level limits; the first one reached stops the level. At least one must be set."""

    generations: int | None = Field(
        default=None, ge=1, description="Most generations per level (unset: no limit)."
    )
    evaluations: int | None = Field(
        default=None, ge=1, description="Most fitness evaluations per level (unset: no limit)."
    )
    seconds: float | None = Field(
        default=60.0, gt=0, description="Most wall-clock seconds per level (unset: no limit)."
    )

    _unset = field_validator("generations", "evaluations", "seconds", mode="before")(_none_word)

    @model_validator(mode="after")
    def _one_limit(self) -> BudgetConfig:
        if self.generations is None and self.evaluations is None and self.seconds is None:
            raise ValueError("set at least one of generations, evaluations, seconds")
        return self


class RunConfig(_Section):
    """What to run: a name, the seed, the levels and the budget per level."""

    name: str = Field(default="run", min_length=1, description="Name used in the run folder.")
    seed: int = Field(default=0, description="Seed of the run's random number generators.")
    levels: str | None = Field(
        default=None,
        description="Level file to read (required to run). Relative paths are tried against the "
        "current directory, then the configuration file's directory.",
    )
    select: list[str | int] = Field(
        default_factory=list,
        description='Levels to run: titles or 1-based indices into the file; "#N" is always '
        'the N-th level, "title:T" always the level titled T (empty: all).',
    )
    budget: BudgetConfig = Field(default_factory=BudgetConfig, description="Per-level limits.")

    @field_validator("select")
    @classmethod
    def _positive_indices(cls, select: list[str | int]) -> list[str | int]:
        for spec in select:
            if isinstance(spec, int) and spec < 1:
                raise ValueError(f"level index {spec} is not 1-based (the first level is 1)")
        return select


# ---- [ga] -----------------------------------------------------------------------------------


class CrossoverConfig(_PartTable):
    """How two parents are recombined."""

    part: ClassVar[str] = "crossover"
    shared: ClassVar[tuple[str, ...]] = ("kind", "probability")
    kind: str = Field(
        default="messy",
        description="block: each block of block_size genes from either parent (the source GA); "
        "one_point / two_point: the same cut points in both parents; messy: one cut point "
        "chosen separately in each parent (lengths change); or a crossover of your own, "
        '"package.module:function" or a registered name, with its parameters in this table.',
    )
    probability: float = Field(
        default=0.7, ge=0, le=1, description="Chance that a pair of parents is recombined."
    )
    block_size: int = Field(default=3, ge=1, description="Genes per block of block crossover.")

    _known = _known_part("crossover")


class MutationConfig(_PartTable):
    """How one individual is mutated: per-gene rates and per-individual block operations."""

    part: ClassVar[str] = "mutation"
    shared: ClassVar[tuple[str, ...]] = ("kind", "probability", "push_macro", "box_macro")
    kind: str = Field(
        default="standard",
        description="standard: the rates and block operations below; or a mutation of your own, "
        '"package.module:function" or a registered name, with its parameters in this table '
        "(the rates below then do nothing).",
        json_schema_extra=OMIT_DEFAULT,
    )

    probability: float = Field(
        default=0.9, ge=0, le=1, description="Chance that an offspring is mutated at all."
    )
    replace_rate: float = Field(
        default=0.03, ge=0, le=1, description="Per-gene chance of replacement by a random gene."
    )
    insert_rate: float = Field(
        default=0.01,
        ge=0,
        le=1,
        description="Per-gene chance of inserting a random gene before it.",
    )
    delete_rate: float = Field(
        default=0.01, ge=0, le=1, description="Per-gene chance of deleting it."
    )
    duplication: float = Field(
        default=0.05, ge=0, le=1, description="Chance of duplicating a random block in place."
    )
    inversion: float = Field(
        default=0.05, ge=0, le=1, description="Chance of reversing a random block."
    )
    block_size: int = Field(
        default=4, ge=1, description="Largest block for duplication and inversion."
    )
    tail_regrowth: float = Field(
        default=0.3,
        ge=0,
        le=1,
        description="Chance of cutting the genome near its end and regrowing the tail at "
        "random (see tail_genes).",
    )
    tail_genes: int | None = Field(
        default=None,
        ge=1,
        description="Most genes a tail regrowth cuts from the end and appends (unset: it cuts "
        "anywhere in the second half and appends up to ga.initial_length); small values make "
        "regrowth a local step from where the genome ends.",
    )

    push_macro: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Move genomes only: chance of appending a shortest walk to a random "
        "candidate push of the position the genome reaches, and that push (0: off).",
    )
    box_macro: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Push genomes only: chance of carrying a random box of the position the "
        "genome reaches to an empty goal the packing order fills next, by the fewest pushes "
        "with the other boxes in place, kept only if every push is a candidate (0: off).",
    )

    _unset = field_validator("tail_genes", mode="before")(_none_word)
    _known = _known_part("mutation")


class ParentsConfig(_PartTable):
    """Parent selection, when not the one of ``ga.selection``'s scheme."""

    part: ClassVar[str] = "parent_selection"
    kind: str | None = Field(
        default=None,
        description="tournament, truncation, random, pareto_tournament, or a selection of your "
        'own ("package.module:function" or a registered name) with its parameters in this '
        "table (unset: the scheme's).",
    )

    _known = _known_part("parent_selection")


class SurvivalConfig(_PartTable):
    """Survivor selection, when not the one of ``ga.selection``'s scheme."""

    part: ClassVar[str] = "survival"
    kind: str | None = Field(
        default=None,
        description="generational, truncation, plus, nsga2, or a survival of your own "
        '("package.module:function" or a registered name) with its parameters in this table '
        "(unset: the scheme's).",
    )

    _known = _known_part("survival")


class IslandsConfig(_Section):
    """The island model: sub-populations evolved apart that trade their best individuals."""

    count: int = Field(
        default=1,
        ge=1,
        description="Islands: sub-populations of ga.population individuals each, evolved apart "
        "and in parallel by the processes backend, variation and selection included (1: one "
        "population; the dask backend takes only 1).",
    )
    migration_every: int = Field(
        default=10,
        ge=1,
        description="Generations per epoch: an island's epoch is one task for a worker; after "
        "each epoch an island sends migrants to the next island.",
    )
    migration_lag: int = Field(
        default=1,
        ge=0,
        description="Epochs between sending migrants and their arrival: 0: at the start of the "
        "receiver's next epoch (an island waits for its neighbour's epoch to end); 1: one epoch "
        "later (islands never wait for each other, migrants are older).",
    )
    migrants: int = Field(
        default=2,
        ge=0,
        description="Best individuals (distinct positions) each island sends to the next one in "
        "a ring after every epoch, replacing the receiver's worst; positions the receiver holds "
        "already are not taken (0: islands never meet).",
    )


class GAConfig(_Section):
    """The genetic algorithm: encoding, population, selection, variation, lengths."""

    encoding: Literal["moves", "pushes"] = Field(
        default="pushes",
        description="moves: genes are u d l r, illegal moves skipped; pushes: each gene picks "
        "one of the legal, non-deadlocking pushes of the current state.",
    )
    population: int = Field(default=100, ge=2, description="Individuals per generation.")
    offspring: int = Field(default=100, ge=1, description="Children made per generation.")
    selection: Literal[
        "tournament", "truncation", "mu_plus_lambda", "mu_comma_lambda", "nsga2", "map_elites"
    ] = Field(
        default="tournament",
        description="tournament: parents by tournaments, children replace the population "
        "(elites kept); truncation: parents drawn from the best fraction (the source GA); "
        "mu_plus_lambda / mu_comma_lambda: survivors are the best of parents+children / "
        "children; nsga2: Pareto selection on (distance, length); map_elites: the population "
        "is an archive of one elite per FESS feature cell of the position reached, parents "
        "drawn uniformly from it (push genomes). Each is a parent selection with a survival; "
        "[ga.parents] and [ga.survival] replace either.",
    )
    tournament_size: int = Field(default=3, ge=1, description="Contestants per tournament.")
    truncation: float = Field(
        default=0.5, gt=0, le=1, description="Fraction kept as parents by truncation selection."
    )
    elitism: int = Field(
        default=2, ge=0, description="Best individuals copied unchanged into the next generation."
    )
    crossover: CrossoverConfig = Field(default_factory=CrossoverConfig, description="Crossover.")
    mutation: MutationConfig = Field(default_factory=MutationConfig, description="Mutation.")
    initial_length: int = Field(default=20, ge=1, description="Genes of a random new genome.")
    min_length: int = Field(default=1, ge=1, description="Fewest genes a genome may have.")
    max_length: int = Field(default=400, ge=1, description="Most genes a genome may have.")
    grow_while_under: int = Field(
        default=0,
        ge=0,
        description="Append grow_by random genes to every child shorter than this (0: off; the "
        "source GA uses 50).",
    )
    grow_by: int = Field(default=10, ge=1, description="Genes appended by growth.")
    stagnation_restart: int | None = Field(
        default=None,
        ge=1,
        description="Restart the population (keeping the hall of fame) after this many "
        "generations without improvement (unset: never).",
    )
    age_patience: int | None = Field(
        default=10,
        ge=1,
        description="Aging: a position that has stayed in the population for this many "
        "generations ranks as one step farther from solved (two steps after twice as many, "
        "...), so the population moves on from local optima (unset: off; not used by nsga2).",
    )
    length_pressure: float = Field(
        default=0.0,
        ge=0,
        description="Selection ranks an individual as if its distance were larger by this much "
        "per gene played (pushes or moves): 1 ranks push genomes like A*'s g + h, smaller "
        "values lean towards greedy (0: off; length then only breaks ties; not used by nsga2).",
    )
    age_memory: bool = Field(
        default=True,
        description="With aging: remember the age of a position after it leaves the population, "
        "so one that comes back resumes its age instead of starting young (a hashed table of "
        "65,536 counters, checkpointed).",
    )
    age_visits: bool = Field(
        default=False,
        description="With aging memory: every child that lands on a position also ages it by "
        "one, so positions the population keeps returning to age faster than rarely reached "
        "ones (a novelty pressure).",
    )
    hall_of_fame: int = Field(default=10, ge=1, description="Best distinct individuals kept.")
    islands: IslandsConfig = Field(default_factory=IslandsConfig, description="Island model.")
    parents: ParentsConfig = Field(
        default_factory=ParentsConfig,
        description="Parent selection other than the scheme's.",
        json_schema_extra=OMIT_DEFAULT,
    )
    survival: SurvivalConfig = Field(
        default_factory=SurvivalConfig,
        description="Survivor selection other than the scheme's.",
        json_schema_extra=OMIT_DEFAULT,
    )

    _unset = field_validator("stagnation_restart", "age_patience", mode="before")(_none_word)

    @model_validator(mode="after")
    def _consistent(self) -> GAConfig:
        if self.min_length > self.max_length:
            raise ValueError(f"min_length {self.min_length} exceeds max_length {self.max_length}")
        if not self.min_length <= self.initial_length <= self.max_length:
            raise ValueError(
                f"initial_length {self.initial_length} is outside "
                f"[min_length, max_length] = [{self.min_length}, {self.max_length}]"
            )
        if self.elitism >= self.population:
            raise ValueError(f"elitism {self.elitism} must be below population {self.population}")
        if self.selection == "mu_comma_lambda" and self.offspring < self.population:
            raise ValueError("mu_comma_lambda needs offspring >= population")
        if self.selection == "map_elites" and self.encoding != "pushes":
            raise ValueError(
                'selection "map_elites" needs push genomes (encoding = "pushes"): its cells are '
                "those of positions reached by pushes"
            )
        if self.selection == "map_elites" and self.islands.count > 1:
            raise ValueError('selection "map_elites" runs one archive (islands.count = 1)')
        if self.islands.migrants >= self.population:
            raise ValueError(
                f"islands.migrants {self.islands.migrants} must be below population "
                f"{self.population}"
            )
        return self


# ---- [fitness] ------------------------------------------------------------------------------


FITNESS_VALUES = ("solved", "distance", "gap", "length")
"""The built-in fitness values, compared in this order (a term goes after one of them)."""


class FitnessTermConfig(_PartTable):
    """A fitness term of your own: a number for the position a genome reaches."""

    part: ClassVar[str] = "fitness_term"
    kind: str = Field(
        description='The term: "package.module:function" or a registered name (built in: '
        "boxes_on_goals, box_regions); its parameters go in this table."
    )
    name: str | None = Field(
        default=None,
        min_length=1,
        description="Its name among the fitness values (default: the function's).",
    )
    after: Literal["solved", "distance", "gap", "length"] = Field(
        default="distance",
        description="The value it follows in the lexicographic comparison (distance: it breaks "
        "ties between equal distances).",
    )
    maximize: bool | None = Field(
        default=None, description="Larger is better (unset: as the term was registered)."
    )

    _known = _known_part("fitness_term")

    @property
    def label(self) -> str:
        """Its name among the fitness values."""
        return self.name or self.kind.rsplit(":", 1)[-1].rsplit(".", 1)[-1]

    @property
    def maximizes(self) -> bool:
        """Whether larger values are better."""
        return self.operator.options["maximize"] if self.maximize is None else self.maximize


class FitnessConfig(_Section):
    """How a genome is scored: solved first, then distance, then (optionally) length."""

    objective: Literal["matching", "nearest_goal", "manhattan"] = Field(
        default="matching",
        description="Distance minimised: matching = minimum-cost assignment of boxes to goals "
        "on push distances; nearest_goal = each box's push distance to its nearest goal; "
        "manhattan = each box's Manhattan distance to its nearest goal (the source GA).",
    )
    trim_to_best: bool = Field(
        default=True,
        description=(
            "Score a genome at the best point of its trajectory and cut the genes after it."
        ),
    )
    stop_on_deadlock: bool = Field(
        default=True,
        description=(
            "End the replay at a deadlock: move genomes at the first push into a dead square;"
            " push genomes where the boxes can no longer be matched to goals (cut back to the"
            " last position with a choice)."
        ),
    )
    pi_corrals: bool = Field(
        default=True,
        description=(
            "Push genomes: when the player's area leaves a PI-corral, only the pushes of its"
            " barrier boxes are candidates (fewer choices; every solution can start with one of"
            " them). A search's path need not keep to them, so hybrid seeds and memetic paths stop"
            " at the first push that does not: the hybrid preset on large levels turns this off."
        ),
    )
    length_objective: bool = Field(
        default=True,
        description="Prefer shorter genomes among equal distances (moves for move genomes, "
        "pushes for push genomes); also the second objective of nsga2.",
    )
    cache_size: int = Field(
        default=100_000, ge=0, description="Fitnesses remembered per level by genome (0: off)."
    )
    eliminate_duplicates: bool = Field(
        default=True,
        description="Survivor selection keeps one individual per final state while there are "
        "enough distinct ones; individuals that repeat a better one's state survive only to "
        "fill the population.",
    )
    lost_search_nodes: int = Field(
        default=0,
        ge=0,
        description="Push genomes: a search of up to this many positions tries to prove the "
        "population's best position lost (no sequence of candidate pushes solves it from there) "
        "once it has stayed lost_search_age generations; selection then ranks that position "
        "behind every other (0: off; not used by nsga2).",
    )
    lost_search_age: int = Field(
        default=5,
        ge=0,
        description="Generations the best position must have stayed in the population before "
        "the lost search looks at it.",
    )
    learned_lost: Literal["off", "tiebreak", "penalty"] = Field(
        default="off",
        description="A learned deadlock network's probability that the scored position is "
        "lost: tiebreak = orders genomes of equal distance (not used by nsga2); penalty = adds "
        "learned_lost_weight * probability to the distance (evosoko/learn/fitness_term.py).",
    )
    learned_lost_weight: float = Field(
        default=2.0, ge=0, description="Distance added for a certainly lost position (penalty)."
    )
    learned_model: str = Field(
        default="default",
        min_length=1,
        description="The deadlock model file of learned_lost ('default': the shipped one).",
    )
    plan_weight: int = Field(
        default=0,
        ge=0,
        description="Push genomes: distance added for each box on a goal filled out of the "
        "packing order (a goal room's doorway before the goals behind it; FESS's out-of-plan "
        "feature); it moves where a genome is scored, never the pushes it makes (0: off).",
        json_schema_extra=OMIT_DEFAULT,
    )
    fess_cells: bool = Field(
        default=False,
        description="Push genomes: note the FESS feature cell of each scored position (the "
        'behaviour descriptor of ga.selection = "map_elites", which turns this on).',
        json_schema_extra=OMIT_DEFAULT,
    )
    terms: list[FitnessTermConfig] = Field(
        default_factory=list,
        description="Fitness terms of your own ([[fitness.terms]] tables), compared after the "
        "value each names; every genome's position is replayed in Python to score them.",
        json_schema_extra=OMIT_DEFAULT,
    )

    @model_validator(mode="after")
    def _distinct_terms(self) -> FitnessConfig:
        labels = [term.label for term in self.terms]
        for label in labels:
            if label in FITNESS_VALUES or labels.count(label) > 1:
                raise ValueError(
                    f"fitness term name {label!r} is taken; give the term a name = ..."
                )
        return self


# ---- [parallel] -----------------------------------------------------------------------------


class ParallelConfig(_Section):
    """Where fitness is evaluated. Results are identical whatever the backend."""

    backend: Literal["serial", "processes", "dask"] = Field(
        default="serial",
        description="serial: in this process; processes: a local process pool; dask: a Dask "
        "cluster (needs the optional extra: pip install 'evosoko[dask]'), either an existing "
        "scheduler (address) or a local cluster (local_workers).",
    )
    workers: int = Field(default=2, ge=1, description="Worker processes of the processes backend.")
    batch_size: int = Field(
        default=256,
        ge=1,
        description="Most genomes sent to a worker per task (fewer when a generation is small, "
        "so that every worker gets at least two batches).",
    )
    address: str | None = Field(
        default=None,
        description='dask: the scheduler to use, such as "tcp://HOST:8786" (started by '
        "`dask scheduler`); give either this or local_workers.",
    )
    local_workers: int | None = Field(
        default=None,
        ge=1,
        description="dask: start a cluster of this many single-threaded worker processes on "
        "this machine for the run, closed when it ends; give either this or address.",
    )
    retries: int = Field(
        default=2,
        ge=0,
        description="dask: times a failed task is run again before the run fails (a task "
        "whose worker died is moved to another worker in any case).",
    )

    _unset = field_validator("address", "local_workers", mode="before")(_none_word)

    @field_validator("address")
    @classmethod
    def _scheduler_address(cls, address: str | None) -> str | None:
        if address is not None and not re.fullmatch(r"[a-z][a-z0-9+.-]*://\S+", address):
            raise ValueError(f"address {address!r} is not a scheduler address like tcp://HOST:8786")
        return address

    @model_validator(mode="after")
    def _dask_target(self) -> ParallelConfig:
        if self.backend == "dask" and (self.address is None) == (self.local_workers is None):
            raise ValueError(
                "backend 'dask' needs exactly one of address (an existing scheduler, "
                "tcp://HOST:8786) or local_workers (a cluster on this machine)"
            )
        return self


# ---- [hybrid] -------------------------------------------------------------------------------


class HybridConfig(_Section):
    """Seeding the population from a bounded push search, and an optional memetic step."""

    enabled: bool = Field(default=False, description="Seed part of the population by search.")
    algorithm: str = Field(
        default="push-astar",
        description="Push-level search of the seeding and the memetic step: push-astar, "
        "push-wastar, push-greedy, push-fess (the feature-space search, for large levels) or "
        "push-fess-bi (push-fess with a pull search from the solved position).",
    )
    fraction: float = Field(
        default=0.25, ge=0, le=1, description="Share of the initial population seeded by search."
    )
    node_budget: int = Field(
        default=20_000, ge=1, description="Nodes the seeding push-A* may expand."
    )
    memetic_every: int | None = Field(
        default=None,
        ge=1,
        description="Improve the best individual by a bounded search every this many "
        "generations (unset: never); positions searched before are passed over, and with the "
        "lost search on, a search that proves its position lost ranks it last and the next "
        "best position is searched.",
    )
    memetic_node_budget: int = Field(
        default=2_000, ge=1, description="Nodes each memetic search may expand."
    )

    _unset = field_validator("memetic_every", mode="before")(_none_word)

    @field_validator("algorithm")
    @classmethod
    def _push_search(cls, value: str) -> str:
        from evosoko.search.algorithms import ALGORITHMS, PUSH

        choices = [
            name
            for name, algorithm in ALGORITHMS.items()
            if algorithm.level == PUSH and not algorithm.iterative
        ]
        if value not in choices:
            raise ValueError(f"unknown push search {value!r}; choose one of: {', '.join(choices)}")
        return value


# ---- [searches] -----------------------------------------------------------------------------


class SearchesConfig(_Section):
    """A population of searches: the individuals are push-fess settings
    (:mod:`evosoko.evolve.search_population`)."""

    enabled: bool = Field(
        default=False,
        description="Evolve push-fess settings instead of move or push genomes: each individual "
        "is a search of the level, scored by how far it gets within a node budget ([ga], "
        "[fitness] and [hybrid] are not used).",
    )
    population: int = Field(default=8, ge=2, description="Searches per generation.")
    first_nodes: int = Field(
        default=100_000, ge=1, description="Expansions each search of generation 0 may make."
    )
    growth: float = Field(
        default=2.0,
        ge=1,
        description="Factor on the expansions of each generation over the one before.",
    )
    max_nodes: int = Field(
        default=1_000_000, ge=1, description="Most expansions of one search in any generation."
    )
    elitism: int = Field(
        default=2, ge=0, description="Best settings carried into the next generation."
    )
    tournament_size: int = Field(default=2, ge=1, description="Contestants per tournament.")
    crossover: float = Field(
        default=0.5, ge=0, le=1, description="Chance that a child mixes two parents' settings."
    )
    evolve: bool = Field(
        default=True,
        description="Breed each generation from the last (false: draw it at random, the "
        "portfolio selection is measured against).",
    )

    @model_validator(mode="after")
    def _elites_fit(self) -> SearchesConfig:
        if self.elitism >= self.population:
            raise ValueError(
                f"searches.elitism ({self.elitism}) must be below searches.population "
                f"({self.population})"
            )
        return self


# ---- [output] -------------------------------------------------------------------------------


class OutputConfig(_Section):
    """What a run writes."""

    dir: str = Field(default="runs", min_length=1, description="Folder that holds run folders.")
    plots: bool = Field(default=True, description="Draw plots when a run ends.")
    checkpoint_every: int = Field(
        default=10, ge=0, description="Write a checkpoint every this many generations (0: off)."
    )
    optimize_seconds: float | None = Field(
        default=None,
        gt=0,
        description="Shorten every solution found (fewest moves, then pushes; evosoko optimize) "
        "for up to this many seconds before it is written (unset: off).",
    )

    _unset = field_validator("optimize_seconds", mode="before")(_none_word)


class Config(_Section):
    """A complete, validated run configuration: ``load_config(path)`` or ``Config()`` (every
    default); :meth:`set` changes a key as ``--set`` does, :meth:`to_toml` writes it."""

    run: RunConfig = Field(default_factory=RunConfig, description="What to run.")
    ga: GAConfig = Field(default_factory=GAConfig, description="The genetic algorithm.")
    fitness: FitnessConfig = Field(default_factory=FitnessConfig, description="Scoring.")
    parallel: ParallelConfig = Field(default_factory=ParallelConfig, description="Evaluation.")
    hybrid: HybridConfig = Field(default_factory=HybridConfig, description="Search seeding.")
    searches: SearchesConfig = Field(
        default_factory=SearchesConfig, description="A population of searches."
    )
    output: OutputConfig = Field(default_factory=OutputConfig, description="Run output.")

    @model_validator(mode="after")
    def _descriptors(self) -> Config:
        from evosoko.evolve.parts import parts_of

        if parts_of(self).archive and not self.fitness.fess_cells:
            self.fitness = self.fitness.model_copy(update={"fess_cells": True})
        return self

    @model_validator(mode="after")
    def _islands_backend(self) -> Config:
        if self.ga.islands.count > 1 and self.parallel.backend == "dask":
            raise ValueError(
                "ga.islands.count > 1 runs on the serial or processes backend, not dask"
            )
        return self

    @model_validator(mode="after")
    def _searches_backend(self) -> Config:
        if self.searches.enabled and self.parallel.backend == "dask":
            raise ValueError(
                "searches.enabled runs its searches on the serial or processes backend, not dask"
            )
        return self

    @model_validator(mode="after")
    def _every_key_read(self) -> Config:
        from evosoko.config_reads import unread_values

        for unread, value in unread_values(self):
            raise unread_error(unread.key, unread.message(value), list(unread.deciders))
        return self

    def set(self, key: str | Mapping[str, Any], value: Any = UNSET) -> Config:
        """A copy with a key changed, validated exactly as ``--set KEY=VALUE`` (the same
        checks and messages): ``config.set("ga.population", 50)``;
        ``config.set("ga.population=50")`` with the value read as TOML; or several keys that
        must change together, ``config.set({"parallel.backend": "dask",
        "parallel.local_workers": 2})``."""
        return set_key(self, key, value)

    def to_toml(self) -> str:
        """The configuration as TOML, every value written out (:func:`dump_config`)."""
        return dump_config(self)


def load_config(path: str | PathLike[str] | None = None, overrides: Sequence[str] = ()) -> Config:
    """Read ``path`` (TOML; None: all defaults), apply ``KEY=VALUE`` overrides, validate.

    Raises :class:`ConfigError` with file and line for a missing file, a TOML syntax error, an
    unknown key (with the closest valid key suggested) or a value of the wrong type.
    """
    return load_config_model(Config, path, overrides)
