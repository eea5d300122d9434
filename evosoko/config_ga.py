"""The GA's tables of a run configuration: ``[ga]`` (with its crossover, mutation, parent
selection, survival and islands) and ``[fitness]`` (with its terms).

:mod:`evosoko.config` gathers them with the other tables into :class:`~evosoko.config.Config`
and re-exports them, so ``from evosoko.config import GAConfig`` works as before.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from evosoko.ceilings import (
    MAX_CACHE,
    MAX_GENES,
    MAX_INDIVIDUALS,
    MAX_ISLANDS,
    Genes,
    Individuals,
    at_most,
    check_product,
)
from evosoko.config_tables import OMIT_DEFAULT, _known_part, _none_word, _PartTable, _Section

__all__ = [
    "FITNESS_VALUES",
    "CrossoverConfig",
    "FitnessConfig",
    "FitnessTermConfig",
    "GAConfig",
    "IslandsConfig",
    "MutationConfig",
    "ParentsConfig",
    "SurvivalConfig",
]


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
    tail_genes: Genes | None = Field(
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

    count: Annotated[
        int, at_most(MAX_ISLANDS, "each island is a whole population evolved every epoch")
    ] = Field(
        default=1,
        ge=1,
        description="Islands: sub-populations of ga.population individuals each, evolved apart "
        "and in parallel on the workers (processes or dask), variation and selection included "
        "(1: one population).",
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
    population: Individuals = Field(default=100, ge=2, description="Individuals per generation.")
    offspring: Individuals = Field(default=100, ge=1, description="Children made per generation.")
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
    tournament_size: Individuals = Field(default=3, ge=1, description="Contestants per tournament.")
    truncation: float = Field(
        default=0.5, gt=0, le=1, description="Fraction kept as parents by truncation selection."
    )
    elitism: int = Field(
        default=2, ge=0, description="Best individuals copied unchanged into the next generation."
    )
    crossover: CrossoverConfig = Field(default_factory=CrossoverConfig, description="Crossover.")
    mutation: MutationConfig = Field(default_factory=MutationConfig, description="Mutation.")
    initial_length: Genes = Field(default=20, ge=1, description="Genes of a random new genome.")
    min_length: Genes = Field(default=1, ge=1, description="Fewest genes a genome may have.")
    max_length: Genes = Field(default=400, ge=1, description="Most genes a genome may have.")
    grow_while_under: int = Field(
        default=0,
        ge=0,
        description="Append grow_by random genes to every child shorter than this (0: off; the "
        "source GA uses 50).",
    )
    grow_by: Genes = Field(default=10, ge=1, description="Genes appended by growth.")
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
    hall_of_fame: Individuals = Field(
        default=10, ge=1, description="Best distinct individuals kept."
    )
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
        islands = {"islands.count": self.islands.count}
        for key in ("population", "offspring"):
            check_product(
                {**islands, key: getattr(self, key)}, MAX_INDIVIDUALS, "individuals at once"
            )
        held = {**islands, "population + offspring": self.population + self.offspring}
        check_product({**held, "max_length": self.max_length}, MAX_GENES, "genes at most")
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
    cache_size: Annotated[int, at_most(MAX_CACHE, "each remembered fitness keeps its genome")] = (
        Field(
            default=100_000, ge=0, description="Fitnesses remembered per level by genome (0: off)."
        )
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
