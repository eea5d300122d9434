"""The configuration of ``evosoko evolve-levels``: the ``[levels]`` tables, loaded and dumped.

A level-evolution file (TOML) has a ``[levels]`` table (the space of boards, population,
selection), its ``[levels.budget]``, ``[levels.certificate]`` (the search that certifies every
candidate), ``[levels.mutation]`` and ``[levels.crossover]`` (registered parts, as in the GA),
one ``[[levels.objective]]`` table per objective, ``[levels.archive]`` for MAP-Elites, and the
``[parallel]`` and ``[output]`` tables. Every key is checked; a typo is an error naming the
key, the closest valid one and its line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from evosoko.config_loading import UNSET, dump_config, load_model, resolve_path, set_key
from evosoko.config_tables import _known_part, _none_word, _PartTable
from evosoko.errors import ConfigError
from evosoko.evolve.builtins import SCHEMES
from evosoko.experiment.compare.config import JobsParallel
from evosoko.experiment.settings import Section
from evosoko.generate.spec import MAX_SIDE, MIN_SIDE, parse_size
from evosoko.levelgen.certificate import Certifier
from evosoko.levelgen.space import LevelSpace
from evosoko.search.algorithms import ALGORITHMS

__all__ = [
    "LevelsConfig",
    "LevelsSettings",
    "dump_levels_config",
    "load_levels_config",
]

MAX_POPULATION = 10_000
"""Most levels in a population or a generation's children (memory stays bounded)."""
MAX_PULL_LIMIT = 5_000_000
"""Most states of a candidate's reverse search (each worker holds one search at a time)."""
MAX_BINS = 100
"""Most archive cells per axis."""

INITS = ("reverse", "random", "file")
"""How the first population is made: the reverse generator's rooms and pulled boxes, random
boards (repaired), or the levels of a file."""


class LevelsBudget(Section):
    """When the run ends: the first limit reached (unset: no limit)."""

    generations: int | None = Field(default=50, ge=0, description="Generations after the first.")
    evaluations: int | None = Field(default=None, ge=1, description="Candidates scored.")
    seconds: float | None = Field(
        default=None,
        gt=0,
        description="CPU seconds spent certifying candidates (summed over the workers), so "
        "that a budget buys the same work on a busy machine; the run's own work (variation, "
        "selection, files) comes on top of it.",
    )

    _unset = field_validator("generations", "evaluations", "seconds", mode="before")(_none_word)


class CertificateSettings(Section):
    """The search that certifies every candidate; an unsolved candidate is infeasible."""

    algorithm: str = Field(
        default="push-astar",
        description="A search of evosoko.search (push-astar: optimal pushes, the default).",
    )
    nodes: int | None = Field(
        default=200_000, ge=1, description="Most nodes it expands per candidate (unset: none)."
    )
    seconds: float | None = Field(
        default=None,
        gt=0,
        description="Most CPU seconds per candidate (unset: none; a time cap makes the result "
        "depend on the machine, a node cap does not).",
    )

    _unset = field_validator("nodes", "seconds", mode="before")(_none_word)

    @field_validator("algorithm")
    @classmethod
    def _known(cls, algorithm: str) -> str:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm; known: {', '.join(ALGORITHMS)}")
        if ALGORITHMS[algorithm].stochastic:
            raise ValueError("a certificate needs a search that does not depend on a seed")
        return algorithm

    @model_validator(mode="after")
    def _capped(self) -> CertificateSettings:
        if self.nodes is None and self.seconds is None:
            raise ValueError("give nodes or seconds: an uncapped search may never end")
        return self

    def certifier(self) -> Certifier:
        """As the value the jobs carry."""
        return Certifier(self.algorithm, self.nodes, self.seconds)


class LevelMutationTable(_PartTable):
    """How a child board is mutated."""

    part: ClassVar[str] = "level_mutation"
    kind: str = Field(
        default="mixed",
        description="mixed: one to `steps` of the mutations below drawn by `weights`; or "
        "flip_cells, carve_room, fill_room, move_box, move_goal, move_player, swap_regions, "
        'add_box, remove_box, or one of your own ("package.module:function" or a registered '
        "name), with its parameters in this table.",
    )
    probability: float = Field(
        default=1.0, ge=0, le=1, description="Chance that a child is mutated."
    )

    _known = _known_part("level_mutation")


class LevelCrossoverTable(_PartTable):
    """How two parent boards are recombined."""

    part: ClassVar[str] = "level_crossover"
    kind: str = Field(
        default="region",
        description="region: a rectangle exchanged; rows: the rows below a cut; or one of "
        "your own, with its parameters in this table.",
    )
    probability: float = Field(
        default=0.3, ge=0, le=1, description="Chance that a pair of parents is recombined."
    )

    _known = _known_part("level_crossover")


class LevelObjectiveTable(_PartTable):
    """One objective: a number for a certified level."""

    part: ClassVar[str] = "level_objective"
    kind: str = Field(
        description="pushes, moves, box_changes, expanded, openness (larger is better), "
        "floor, boxes, ga_solve_rate (smaller is better), or one of your own; its parameters "
        "go in this table."
    )
    maximize: bool | None = Field(
        default=None, description="Larger is better (unset: as the objective was registered)."
    )

    _known = _known_part("level_objective")

    @property
    def label(self) -> str:
        """Its name in tables and files."""
        return self.kind.rsplit(":", 1)[-1].rsplit(".", 1)[-1]

    @property
    def maximizes(self) -> bool:
        """Whether larger values are better."""
        return self.operator.options["maximize"] if self.maximize is None else self.maximize


def _pushes() -> list[LevelObjectiveTable]:
    return [LevelObjectiveTable(kind="pushes")]


class ArchiveSettings(Section):
    """The MAP-Elites archive: a grid over two level features, one elite per cell."""

    features: list[str] = Field(
        default_factory=lambda: ["boxes", "floor"],
        min_length=2,
        max_length=2,
        description="Two level objectives measured as features (e.g. boxes and floor, or "
        "pushes and openness).",
    )
    bins: list[int] = Field(
        default_factory=lambda: [6, 8], min_length=2, max_length=2, description="Cells per axis."
    )
    ranges: list[list[float]] = Field(
        default_factory=lambda: [[2.0, 8.0], [12.0, 36.0]],
        min_length=2,
        max_length=2,
        description="[low, high] of each feature; values outside go to the first or last cell.",
    )

    @field_validator("features")
    @classmethod
    def _known_features(cls, features: list[str]) -> list[str]:
        from evosoko.evolve.registry import level_objectives

        for name in features:
            level_objectives.get(name)
        return features

    @model_validator(mode="after")
    def _shape(self) -> ArchiveSettings:
        if any(not 1 <= count <= MAX_BINS for count in self.bins):
            raise ValueError(f"bins must be 1 to {MAX_BINS}")
        for low_high in self.ranges:
            if len(low_high) != 2 or not low_high[0] < low_high[1]:
                raise ValueError("each range is [low, high] with low < high")
        return self

    def cell(self, features: Sequence[float]) -> int:
        """The archive cell of a level's two feature values (row-major over the bins)."""
        index = 0
        for value, count, (low, high) in zip(features, self.bins, self.ranges, strict=True):
            position = int((value - low) / (high - low) * count)
            index = index * count + min(count - 1, max(0, position))
        return index


class LevelsSettings(Section):
    """What to evolve and how."""

    name: str = Field(default="levels", min_length=1, description="Used in the folder name.")
    size: str = Field(default="8x8", description="Board WIDTHxHEIGHT, walls included.")
    mask: list[str] = Field(
        default_factory=list,
        description="Optional rows of the board: '#' is always wall, any other character may "
        "be floor (empty: every cell inside the border).",
    )
    boxes: int = Field(default=4, ge=1, description="Boxes (and goals) of every level.")
    max_boxes: int | None = Field(
        default=None, ge=1, description="With it: levels have boxes .. max_boxes boxes."
    )
    seed: int = Field(default=0, description="The same seed gives the same run.")
    population: int = Field(
        default=24, ge=1, le=MAX_POPULATION, description="Levels kept (MAP-Elites: unused)."
    )
    offspring: int = Field(
        default=24, ge=1, le=MAX_POPULATION, description="Children per generation."
    )
    selection: Literal[
        "tournament", "truncation", "mu_plus_lambda", "mu_comma_lambda", "nsga2", "map_elites"
    ] = Field(
        default="mu_plus_lambda",
        description="The GA's selection schemes: mu_plus_lambda keeps the best of parents and "
        "children (SokEvo replaces its worst), nsga2 a Pareto front of the objectives, "
        "map_elites one elite per archive cell.",
    )
    tournament_size: int = Field(default=2, ge=1, description="tournament: its size.")
    truncation: float = Field(default=0.5, gt=0, le=1, description="truncation: kept share.")
    elitism: int = Field(default=1, ge=0, description="tournament: parents kept.")
    start: Literal["genome", "deepest"] = Field(
        default="genome",
        description="Where the boxes start: genome (where the board puts them) or deepest (the "
        "board is a template of walls and goals; the boxes and player go to the deepest state "
        "of a reverse search from the goals, the start that needs the most pushes).",
    )
    pull_limit: int = Field(
        default=200_000,
        ge=1,
        le=MAX_PULL_LIMIT,
        description="deepest: most states of the reverse search.",
    )
    init: Literal["reverse", "random", "file"] = Field(
        default="reverse",
        description="First population: reverse (carved rooms, boxes pulled from the goals), "
        "random (random walls and pieces, repaired) or file (the levels of init_levels).",
    )
    init_levels: str | None = Field(
        default=None, description="init = file: a level file whose levels fit the board."
    )
    budget: LevelsBudget = Field(default_factory=LevelsBudget, description="When to stop.")
    certificate: CertificateSettings = Field(
        default_factory=CertificateSettings, description="The certifying search."
    )
    mutation: LevelMutationTable = Field(
        default_factory=LevelMutationTable, description="Mutation."
    )
    crossover: LevelCrossoverTable = Field(
        default_factory=LevelCrossoverTable, description="Crossover."
    )
    objective: list[LevelObjectiveTable] = Field(
        default_factory=_pushes,
        min_length=1,
        description="Objectives, compared in this order (NSGA-II: together).",
    )
    archive: ArchiveSettings = Field(
        default_factory=ArchiveSettings, description="map_elites: the archive."
    )

    _unset = field_validator("max_boxes", "init_levels", mode="before")(_none_word)

    @field_validator("size")
    @classmethod
    def _size(cls, size: str) -> str:
        width, height = parse_size(size)
        for name, side in (("width", width), ("height", height)):
            if not MIN_SIDE <= side <= MAX_SIDE:
                raise ValueError(f"the {name} must be {MIN_SIDE} to {MAX_SIDE} cells, got {side}")
        return f"{width}x{height}"

    @model_validator(mode="after")
    def _consistent(self) -> LevelsSettings:
        self.space()  # the boxes fit, the mask has the board's shape
        labels = [objective.label for objective in self.objective]
        if len(set(labels)) != len(labels):
            raise ValueError("an objective is named twice")
        if self.selection == "nsga2" and len(self.objective) < 2:
            raise ValueError("nsga2 needs two or more objectives ([[levels.objective]] tables)")
        if self.init == "file" and self.init_levels is None:
            raise ValueError("init = 'file' needs init_levels")
        return self

    def space(self) -> LevelSpace:
        """The space of boards this run searches (a ``ValueError`` when the boxes do not
        fit)."""
        width, height = parse_size(self.size)
        try:
            return LevelSpace.of(width, height, self.boxes, self.max_boxes, self.mask)
        except ConfigError as error:
            raise ValueError(error.message) from None

    @property
    def multi_objective(self) -> bool:
        """True when survival compares whole vectors of objectives (NSGA-II)."""
        return self.selection == "nsga2"

    @property
    def archive_run(self) -> bool:
        """True for MAP-Elites."""
        return self.selection == "map_elites"

    def scheme(self) -> tuple[str, str]:
        """(parent selection, survival) of the selection scheme."""
        return SCHEMES[self.selection]


class LevelsOutput(Section):
    """What a run writes."""

    dir: str = Field(default="runs", min_length=1, description="Folder that holds run folders.")
    plots: bool = Field(default=True, description="Draw plots when the run ends.")
    keep: int = Field(
        default=20,
        ge=1,
        description="Levels written to levels.xsb: the best of the final population (NSGA-II: "
        "its first front; MAP-Elites: every cell's elite, however many).",
    )


class LevelsConfig(Section):
    """A whole level-evolution file."""

    levels: LevelsSettings = Field(default_factory=LevelsSettings, description="The evolution.")
    parallel: JobsParallel = Field(
        default_factory=JobsParallel, description="Where candidates are certified."
    )
    output: LevelsOutput = Field(default_factory=LevelsOutput, description="Run output.")

    def set(self, key: str | Mapping[str, Any], value: Any = UNSET) -> LevelsConfig:
        """A copy with a key changed, validated exactly as ``--set KEY=VALUE``:
        ``config.set("levels.seed", 3)``, ``config.set("levels.seed=3")`` or a mapping of
        keys to values that change together."""
        return set_key(self, key, value)

    def to_toml(self) -> str:
        """The configuration as TOML (:func:`load_levels_config` reads it back equal)."""
        return dump_levels_config(self)


def load_levels_config(path: str | PathLike[str], overrides: Sequence[str] = ()) -> LevelsConfig:
    """Read and validate a level-evolution file; a relative ``init_levels`` becomes absolute."""
    config, _ = load_model(LevelsConfig, path, overrides)
    if config.levels.init_levels is not None:
        resolved = resolve_path(config.levels.init_levels, Path(path).parent)
        config = config.set("levels.init_levels", resolved)
    return config


def dump_levels_config(config: LevelsConfig) -> str:
    """The configuration as TOML with every value written out."""
    return dump_config(config)
