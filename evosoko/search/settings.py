"""The settings of the searches: one frozen, validated model per search family.

Every knob of a search is a field here, with its default and what it does; a search reads its
knobs from the model it is handed and from nowhere else, so several differently tuned searches
can run one after another (or side by side) in one process. The families:

- :class:`PushSettings` (``[search.push]``): the push-level searches ``push-bfs``,
  ``push-astar``, ``push-wastar``, ``push-greedy``, ``push-idastar`` and ``push-learned*``;
- :class:`FessSettings` (``[search.fess]``): ``push-fess``, the feature-space search;
- :class:`BidirectionalSettings` (``[search.fess_bi]``): ``push-fess-bi``, push-fess with a
  pull search from the solved position (and side searches) beside it;
- :class:`MctsSettings` (``[search.mcts]``): ``mcts``.

The move-level searches (``bfs``, ``dfs``, ``random``, ``astar``, ``greedy``) have no knobs.
:class:`SearchSettings` holds one model of each family: it is the ``[search]`` table of run,
compare and sweep files (and of a compare ``[[solver]]`` row), what ``evosoko solve --set
fess.cluster_limit=3000`` changes, and what :func:`evosoko.solve` takes as ``settings=``. The
figures behind the defaults are in ``docs/xsokoban.md`` (push-fess, push-fess-bi) and
``docs/mcts.md``.

A field with ``choices`` in its schema is a gene of the population of searches
(:mod:`evosoko.evolve.search_population`), which evolves push-fess settings over those values.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from evosoko.errors import ConfigError

__all__ = [
    "BidirectionalSettings",
    "FessSettings",
    "MctsSettings",
    "PlainSearchSettings",
    "PushSettings",
    "SearchSettings",
    "SettingsModel",
    "changed_settings",
    "family_of",
    "settings_for",
    "settings_text",
]


def _none_word(value: Any) -> Any:
    """TOML has no null: the strings ``"none"`` / ``"null"`` unset an optional value."""
    if isinstance(value, str) and value.strip().lower() in ("none", "null"):
        return None
    return value


def _as_tuple(value: Any) -> Any:
    """A TOML array (a list) as the tuple a frozen model holds."""
    return tuple(value) if isinstance(value, list) else value


def _choices(*values: Any) -> dict[str, Any]:
    """The schema extra of a field the population of searches evolves over ``values``."""
    return {"choices": list(values)}


PatternSlots = Annotated[int, Field(ge=0, le=1 << 22)]
"""Slots of a store of deadlock patterns (``deadlock_patterns``)."""

AdviceWeight = Annotated[int, Field(ge=0, le=64)]
"""Pushes added to the key of an unadvised move (``advice_weight``)."""

CacheSlots = Annotated[int, Field(ge=0)]
"""Slots of a cache of deadlock tests (``cluster_deadlocks``)."""

PackMacros = Annotated[int, Field(ge=0)]
"""Packing macros per empty goal (``pack_macros``)."""


class _Settings(BaseModel):
    """Base of the settings models: frozen, unknown keys refused, values checked strictly."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_default=True, frozen=True)


class PushSettings(_Settings):
    """The push-level searches: their pruning and macros, and push-wastar's weight."""

    weight: float = Field(
        default=3.0,
        ge=1,
        description="Weight of h in the key g + weight * h of push-wastar (the other push "
        "searches have fixed weights).",
        json_schema_extra=_choices(2.0, 3.0, 5.0),
    )
    freeze: bool = Field(
        default=True, description="Prune pushes that freeze a box off its goal (sound)."
    )
    corrals: bool = Field(
        default=True, description="Expand only the pushes of a PI-corral's barrier (sound)."
    )
    tunnels: bool = Field(
        default=True,
        description="Push a box in a dead-end tunnel on to the deepest free goal ahead in one "
        "step, and drop the push when there is none (sound).",
    )
    goal_rooms: bool | None = Field(
        default=None,
        description="Goal-room packing macros (neither optimal nor complete; unset: in the "
        "non-optimal searches only; a search that exhausts its space with them runs again "
        "without).",
    )
    deadlock_patterns: PatternSlots = Field(
        default=0,
        description="Deadlock patterns kept for the rest of the search: the corral (push-fess: "
        "and cluster) deadlocks it proves, each new state tested against them (0: none; the "
        "A* family then tests no corral deadlocks).",
    )
    goal_room_steps: int = Field(
        default=1_000_000,
        ge=1,
        description="Most breadth-first steps spent looking for a goal room (no room is used "
        "on a board that needs more).",
    )
    on_full: Literal["stop", "drop"] = Field(
        default="drop",
        description="When the stored states reach the memory limit: stop at memory-limit, or "
        "drop the open states least likely to matter and go on (non-optimal searches only; "
        "the optimal ones always stop).",
    )
    restarts: int = Field(
        default=100,
        ge=0,
        le=1 << 20,
        description="Times a search that dropped states (on_full = drop) starts again from the "
        "start when its frontier empties or a drop frees too little, keeping its learned "
        "deadlocks and redrawing the weight of h from its seed (0: it ends at memory-limit).",
    )

    _unset = field_validator("goal_rooms", mode="before")(_none_word)


Advisor = Literal["packing", "connectivity", "rooms", "hotspots", "explorer", "opener"]
"""The names of FESS's advisors (:mod:`evosoko.search.fess.advisors`)."""
OutOfPlan = Literal["layers", "sealed", "both"]
"""What the out-of-plan coordinate of push-fess counts (:mod:`evosoko.search.fess.sealed`)."""

PullOffTo = Literal["floor", "start"]
"""Where the retrograde packing order of push-fess must pull a goal's box for the goal to leave
(:func:`evosoko.search.packing_order.packing_order`)."""


class FessSettings(PushSettings):
    """``push-fess``: the cells of its feature space, their turns, its macros and deadlock
    tests (besides the push searches' pruning and weight)."""

    alternate: int = Field(
        default=3,
        ge=0,
        description="Every this many expansions take the best state of the whole frontier "
        "instead of the next cell's (0: never).",
        json_schema_extra=_choices(2, 3, 4, 6),
    )
    room_links: int = Field(
        default=1,
        ge=0,
        description="Room connectivity as a coordinate of the cells: links between rooms that "
        "boxes block, counts at or above this sharing one value (0: no such coordinate).",
        json_schema_extra=_choices(0, 1, 2),
    )
    hotspots: int = Field(
        default=0,
        ge=0,
        le=16,
        description="Hotspots as a coordinate of the cells: boxes that, were they walls, would "
        "cut another box off from every goal; counts at or above this share one value (0: no "
        "such coordinate).",
    )
    advice_weight: AdviceWeight = Field(
        default=0,
        description="Pushes a move that no advisor proposes adds to the key of a state within "
        "its cell (0: no advisors).",
    )
    advisors: tuple[Advisor, ...] = Field(
        default=("packing", "connectivity", "rooms", "hotspots"),
        description="The advisors: a move is theirs when it improves their coordinate of the "
        "cell (rooms and hotspots only with that coordinate); the explorer's when it lets the "
        "player reach free floor from which a new push starts, the opener's when it pushes the "
        "box that hinders the most others, or a box beside it when it has no push.",
    )
    advice_once: bool = Field(
        default=False,
        description="Each advisor proposes at most one move per expansion, the first it finds.",
    )
    advice_best: bool = Field(
        default=False,
        description="With advice_once, each advisor proposes its move of least h instead of "
        "the first it finds.",
    )
    corral_deadlocks: int = Field(
        default=200,
        ge=0,
        description="Positions a corral deadlock test may visit (0: no such test).",
        json_schema_extra=_choices(0, 200, 1000),
    )
    pack_macros: PackMacros = Field(
        default=0,
        description="Packing macros per empty goal of the first unfinished packing layer (of "
        "each goal area, with goal_areas): the nearest boxes carried there in one step (0: off).",
        json_schema_extra=_choices(0, 2),
    )
    cluster_deadlocks: CacheSlots = Field(
        default=0,
        description="Slots of the cache of cluster deadlock tests (0: no such test): the boxes "
        "touching the one pushed last must reach goals on their own.",
        json_schema_extra=_choices(0, 1 << 14),
    )
    connectivity_limit: int = Field(
        default=8,
        ge=1,
        description="Connectivity values of the cells (separate regions of free floor); "
        "larger counts share one cell.",
        json_schema_extra=_choices(4, 8),
    )
    cell_weights: tuple[int, int] = Field(
        default=(-1, -1),
        description="Weights of g and h in the key of a state within its cell ([-1, -1]: the "
        "search's own g + weight * h).",
        json_schema_extra=_choices((-1, -1), (1, 1), (0, 1), (1, 3)),
    )
    corridor_macros: bool = Field(
        default=False,
        description="Push a box through a one-wide corridor in one step (not complete: a search "
        "that exhausts its space with them runs again without).",
    )
    room_views: tuple[int, ...] | None = Field(
        default=None,
        description="Room-link caps the cycle through the cells takes turns with, each at most "
        "room_links (unset: room_links alone).",
    )
    room_cuts: bool = Field(
        default=True,
        description="Count only the blocked links whose two rooms the boxes cut apart.",
    )
    cluster_limit: int = Field(
        default=6000, ge=1, description="Positions one cluster deadlock test may make."
    )
    lone_box_matching: bool = Field(
        default=False,
        description="Each expanded state's boxes must match distinct goals that each reaches "
        "alone with the player on its side (none: a deadlock; run beside the corral tests).",
    )
    cluster_width: int | None = Field(
        default=400,
        ge=1,
        description="A cluster deadlock test gives up when more than this many positions wait "
        "(unset: never).",
    )
    out_of_plan: OutOfPlan = Field(
        default="layers",
        description="What the out-of-plan coordinate of the cells counts: boxes on goals filled "
        'too early ("layers"), boxes in areas the packing plan is about to seal ("sealed"), or '
        'both ("both").',
    )
    goal_areas: bool = Field(
        default=False,
        description="Each goal area (goals side by side) follows its own packing plan: packing "
        "and out-of-plan count its goals against its own layers, not the whole level's.",
    )
    pull_off_to: PullOffTo = Field(
        default="floor",
        description="The packing order lets a goal go (fills it later) when its box can be "
        'pulled off the goals ("floor"), or all the way to a cell holding a box at the start '
        '("start"; where no goal can, off the goals).',
    )

    _lists = field_validator("cell_weights", "room_views", "advisors", mode="before")(_as_tuple)
    _unset_more = field_validator("room_views", "cluster_width", mode="before")(_none_word)

    @model_validator(mode="after")
    def _views_fit(self) -> FessSettings:
        if self.room_views is not None:
            if not self.room_views:
                raise ValueError("room_views lists at least one cap (unset: room_links alone)")
            if not all(0 <= cap <= self.room_links for cap in self.room_views):
                raise ValueError(
                    f"room_views {list(self.room_views)} must be caps from 0 to room_links "
                    f"({self.room_links})"
                )
        return self


class PlainSearchSettings(FessSettings):
    """One of push-fess-bi's ``plain_searches``: push-fess with these settings (push-fess's
    own defaults unless set, as it runs alone) for at most ``nodes`` expansions. It keeps its
    deadlock patterns in push-fess-bi's store and stops where its part of the memory ends, so
    its ``deadlock_patterns``, ``on_full`` and ``restarts`` are push-fess-bi's and keep their
    defaults here."""

    nodes: int = Field(
        default=110_000, ge=1, description="Most expansions of this plain push-fess."
    )

    @model_validator(mode="after")
    def _own_keys_only(self) -> PlainSearchSettings:
        fields = type(self).model_fields
        owned = [
            key
            for key in ("deadlock_patterns", "on_full", "restarts")
            if getattr(self, key) != fields[key].default  # a saved config writes the defaults
        ]
        if owned:
            raise ValueError(
                f"{', '.join(owned)}: a plain search keeps its deadlock patterns in "
                "push-fess-bi's store and stops where its memory ends; set them on fess_bi"
            )
        return self


PullWeight = float | Literal["own"]


class BidirectionalSettings(FessSettings):
    """``push-fess-bi``: its own push-fess (the fields it shares with :class:`FessSettings`,
    cluster deadlock tests, deadlock patterns, advisors, packing macros, the lone-box matching
    test and a packing order that pulls boxes back to the starts on by default), the pull
    searches and the side searches from the start beside it, and their shares of the work."""

    cluster_deadlocks: CacheSlots = Field(
        default=1 << 18,
        description="Slots of the cache of its push-fess's cluster deadlock tests (0: none).",
    )
    deadlock_patterns: PatternSlots = Field(
        default=1 << 16,
        description="Deadlock patterns its push-fess and plain push-fess searches prove and "
        "keep for the rest of the search, each new state tested against them (0: none).",
    )
    advice_weight: AdviceWeight = Field(
        default=2,
        description="Pushes a move that no advisor proposes adds to the key of a state within "
        "its cell in its push-fess searches (0: no advisors).",
    )
    advice_once: bool = Field(
        default=True,
        description="Each advisor proposes at most one move per expansion, the first it finds.",
    )
    pack_macros: PackMacros = Field(
        default=2,
        description="Packing macros per empty goal of the first unfinished packing layer (of "
        "each goal area, with goal_areas) in its push-fess searches: the nearest boxes carried "
        "there in one step (0: off).",
    )
    lone_box_matching: bool = Field(
        default=True,
        description="Each state its push-fess searches expand must have its boxes matched to "
        "distinct goals that each reaches alone with the player on its side (none: a "
        "deadlock).",
    )
    pull_off_to: PullOffTo = Field(
        default="start",
        description="The packing order of its push-fess searches lets a goal go (fills it "
        "later) when its box can be pulled all the way to a cell holding a box at the start "
        '("start"; where no goal can, off the goals), or just off the goals ("floor").',
    )
    backward_share: float = Field(
        default=0.4,
        ge=0,
        le=1,
        description="Share of the work (about the time) the pull searches and the ball take "
        "(0: no backward search).",
    )
    pull_weights: tuple[PullWeight, ...] = Field(
        default=("own", 10.0),
        description='One pull search per weight of h in its key g + weight * h ("own": the '
        "search's weight); they take turns.",
    )
    pull_nodes: int = Field(
        default=400_000,
        ge=0,
        description="Expansions of each pull search (0: until its part of the memory is full); "
        "one that stops keeps its states for the meeting, and its work goes to the others.",
    )
    ball_nodes: int = Field(
        default=300_000,
        ge=0,
        description="Expansions of the ball, a breadth-first push search from the start whose "
        "states the pull searches meet (0: no ball).",
    )
    plain_nodes: int = Field(
        default=110_000,
        ge=0,
        description="Expansions of each plain push-fess beside its own (push-fess without "
        "cluster deadlock tests; 0: none).",
    )
    plain_room_caps: tuple[int, ...] = Field(
        default=(1, 2), description="One plain push-fess for each of these room_links values."
    )
    plain_share: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="Share of the work (about the time) the plain push-fess searches take, "
        "until each stops.",
    )
    plain_searches: tuple[PlainSearchSettings, ...] = Field(
        default=(),
        description="More plain push-fess searches beside its own, after those of "
        "plain_room_caps, each with its own settings and expansions (a table of "
        "PlainSearchSettings: push-fess's knobs and nodes); all share plain_share of the work "
        "and its deadlock patterns.",
    )

    _more_lists = field_validator(
        "pull_weights", "plain_room_caps", "plain_searches", mode="before"
    )(_as_tuple)

    @field_validator("pull_weights")
    @classmethod
    def _weights_fit(cls, weights: tuple[PullWeight, ...]) -> tuple[PullWeight, ...]:
        for weight in weights:
            if weight != "own" and not weight >= 1:
                raise ValueError(f'a pull weight is at least 1 or "own", not {weight!r}')
        return weights


class MctsSettings(_Settings):
    """``mcts``: the tree's selection rule, the rollout policy and the rollouts' length."""

    corrals: bool = Field(
        default=True,
        description="Restrict the candidate pushes to a PI-corral's barrier, as push genomes do.",
    )
    exploration: float = Field(
        default=2.0, gt=0, description="c of the PUCT selection rule (rewards lie in [0, 1])."
    )
    temperature: float = Field(
        default=0.5,
        gt=0,
        description="Softmax temperature of the rollout policy and the priors over how much "
        "each push brings the objective down.",
    )
    lost_reward: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Share of its reward a rollout earns when it ends in a lost position.",
    )
    prior_uniform: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Share of the priors spread evenly over a node's pushes (the rest follows "
        "the policy).",
    )
    rollout_pushes_per_distance: int = Field(
        default=2,
        ge=0,
        description="A rollout makes at most this many pushes per unit of the start's "
        "objective, plus rollout_extra_pushes.",
    )
    rollout_extra_pushes: int = Field(
        default=10, ge=1, description="Pushes a rollout may make beyond its share."
    )
    rollout_pushes_cap: int = Field(
        default=100_000, ge=1, description="Most pushes of one rollout on any level."
    )


SettingsModel = PushSettings | MctsSettings
"""The settings model of one search family (FessSettings and BidirectionalSettings are
PushSettings too)."""

FAMILIES: dict[str, type[PushSettings | MctsSettings]] = {
    "push": PushSettings,
    "fess": FessSettings,
    "fess_bi": BidirectionalSettings,
    "mcts": MctsSettings,
}
"""The ``[search]`` sub-table of each family, and its model."""


class SearchSettings(_Settings):
    """The settings of every search family (the ``[search]`` table)."""

    push: PushSettings = Field(default_factory=PushSettings, description="push-A* and kin.")
    fess: FessSettings = Field(default_factory=FessSettings, description="push-fess.")
    fess_bi: BidirectionalSettings = Field(
        default_factory=BidirectionalSettings, description="push-fess-bi."
    )
    mcts: MctsSettings = Field(default_factory=MctsSettings, description="mcts.")

    def family(self, algorithm: str) -> SettingsModel | None:
        """The settings ``algorithm`` runs with (None: a move-level search, which has none)."""
        table = family_of(algorithm)
        return None if table is None else getattr(self, table)

    def with_family(self, settings: SettingsModel) -> SearchSettings:
        """A copy whose family of ``settings`` is ``settings``."""
        for table, model in FAMILIES.items():
            if type(settings) is model:
                return self.model_copy(update={table: settings})
        raise TypeError(f"not the settings of a search family: {type(settings).__name__}")


def family_of(algorithm: str) -> str | None:
    """The ``[search]`` sub-table of ``algorithm``'s settings (None: a move-level search)."""
    from evosoko.search.algorithms import MOVE, algorithm_named

    found = algorithm_named(algorithm)
    if found.level == MOVE:
        return None
    if found.name in ("push-fess", "push-fess-bi", "mcts"):
        return {"push-fess": "fess", "push-fess-bi": "fess_bi", "mcts": "mcts"}[found.name]
    return "push"


def settings_for(
    algorithm: str,
    settings: SearchSettings | SettingsModel | None = None,
    *,
    weight: float | None = None,
) -> SettingsModel | None:
    """The family settings ``algorithm`` runs with, from ``settings``: the whole
    :class:`SearchSettings`, the family's own model, or None (every default); ``weight``, when
    given, replaces the family's weight. A family model of another search, or a weight out of
    range, raises :class:`ConfigError`."""
    table = family_of(algorithm)
    if settings is None:
        settings = SearchSettings()
    if isinstance(settings, SearchSettings):
        chosen = None if table is None else getattr(settings, table)
    else:
        wanted = None if table is None else FAMILIES[table]
        if type(settings) is not wanted:
            raise ConfigError(
                f"{type(settings).__name__} does not set {algorithm}"
                + (f"; it takes {wanted.__name__}" if wanted else ": it has no settings")
            )
        chosen = settings
    if weight is None or chosen is None or "weight" not in type(chosen).model_fields:
        return chosen
    try:
        return type(chosen).model_validate({**chosen.model_dump(), "weight": weight})
    except ValidationError as error:
        reason = error.errors()[0]["msg"].removeprefix("Value error, ")
        raise ConfigError(f"weight: {reason} (got {weight!r})") from None


def changed_settings(
    settings: BaseModel | None, prefix: str = "", base: BaseModel | None = None
) -> dict[str, Any]:
    """The fields of ``settings`` that differ from ``base``'s (None: from their defaults), as
    ``{dotted key: value}`` (``prefix``: the table in front of each key; tuples as lists)."""
    if settings is None:
        return {}
    changed: dict[str, Any] = {}
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        key = f"{prefix}{name}"
        under = getattr(base, name) if base is not None else None
        if isinstance(value, BaseModel):
            changed.update(changed_settings(value, f"{key}.", under))
        elif value != (under if base is not None else field.get_default(call_default_factory=True)):
            changed[key] = _listed(value) if isinstance(value, tuple) else value
    return changed


def _listed(values: tuple) -> list:
    """A tuple of settings as a list, a settings model in it as its changed fields."""
    return [changed_settings(value) if isinstance(value, BaseModel) else value for value in values]


def settings_text(settings: BaseModel | None, prefix: str = "") -> str:
    """The settings that differ from their defaults as ``key=value`` words (values as TOML
    writes them), or ``-`` when none do."""
    changed = changed_settings(settings, prefix)
    if not changed:
        return "-"
    return " ".join(f"{key}={_toml(value)}" for key, value in changed.items())


def _toml(value: Any) -> str:
    """A settings value as TOML text (JSON's numbers, booleans and strings are TOML's; an
    array and an inline table item by item; None, which TOML lacks, as the word settings files
    use for it)."""
    if value is None:
        return '"none"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + "}"
    return json.dumps(value)
