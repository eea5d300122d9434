"""Which keys of a run configuration its run reads, and why the others are not read.

A key that nothing reads would change nothing: a sweep over it measures noise and a
``config.toml`` that holds it misleads its reader. So :class:`~evosoko.config.Config` refuses
a key that the configuration does not read when it holds anything but its default
(:func:`unread_values`), naming the key, the setting that makes it unread and the keys that
are read instead. What makes a key unread:

- the part a table names (``kind``): ``[ga.mutation]``'s rates belong to the ``standard``
  mutation, ``[ga.crossover]``'s ``block_size`` to ``block``, and ``[ga]``'s
  ``tournament_size``, ``truncation`` and ``elitism`` to the selections that take them; a
  plugin reads the parameters of its own model and the keys the engine reads whatever the part
  (:attr:`~evosoko.config_tables._PartTable.shared`);
- a switch that is off: ``[hybrid]`` without ``enabled``, ``[ga.islands]`` with one island,
  growth, aging, the lost search, the learned term, ``[searches]`` (which, when on, replaces
  ``[ga]``, ``[fitness]`` and ``[hybrid]``);
- the encoding (the push macro is for move genomes, the box macro, the plan penalty and the
  lost search for push genomes) and multi-objective survival (NSGA-II has no single ranking
  for aging, length pressure and the lost search);
- the backend (``parallel.workers`` for processes, the scheduler's keys for Dask);
- ``[tracking]`` without ``enabled``.

When an override (``--set``, :meth:`Config.set`, a sweep's trial) changes such a setting, the
values the file gave to the keys it leaves unread are dropped instead (the loader's business,
:func:`evosoko.config_loading.load_config_model`): ``--set ga.mutation.kind=swap`` on a preset
with tuned rates runs the swap mutation with its own parameters.

``tests/test_every_key_matters.py`` walks every registered part and every preset and shows
that each key read changes the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from evosoko.config_loading import leaf_keys

if TYPE_CHECKING:
    from evosoko.config import Config, GAConfig

__all__ = ["Unread", "read_keys", "unread_keys", "unread_values"]

Key = tuple[str, ...]


@dataclass(frozen=True)
class Unread:
    """A key the run does not read: ``reason`` says why, ``deciders`` are the keys whose values
    make it so, ``reads`` the keys of its table that are read instead."""

    key: Key
    reason: str
    deciders: tuple[Key, ...]
    reads: tuple[str, ...] = ()

    @property
    def dotted(self) -> str:
        """The key as written in ``--set``: ``ga.mutation.replace_rate``."""
        return ".".join(self.key)

    def message(self, value: Any) -> str:
        """The error for a value given to it."""
        table = ".".join(self.key[:-1])
        hint = f"; keys read in [{table}]: {', '.join(self.reads)}" if self.reads else ""
        return f"{self.dotted} = {_shown(value)} is not read: {self.reason}{hint}"


def _shown(value: Any) -> str:
    from evosoko.config_loading import toml_value

    return "none" if value is None else toml_value(_plain(value))


def _plain(value: Any) -> Any:
    """``value`` with its tables (such as ``fitness.terms``' entries) as plain TOML data."""
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_none=True)
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def unread_keys(config: Config) -> list[Unread]:
    """Every key of ``config`` that its run does not read, in the order of the tables."""
    found: dict[Key, Unread] = {}
    for unread in _rules(config):
        found.setdefault(unread.key, unread)  # the first reason given is the deciding one
    order = {key: n for n, key in enumerate(leaf_keys(type(config)))}
    return [
        replace(u, reads=tuple(r for r in u.reads if (*u.key[:-1], r) not in found))
        for u in sorted(found.values(), key=lambda u: order.get(u.key, len(order)))
    ]


def unread_values(config: Config) -> list[tuple[Unread, Any]]:
    """The unread keys of ``config`` that hold a value other than their default, with it."""
    given = []
    for unread in unread_keys(config):
        value, default = _value_and_default(config, unread.key)
        if value != default:
            given.append((unread, value))
    return given


def read_keys(config: Config) -> list[Key]:
    """Every key of ``config`` that its run reads (the parameters of plugin parts included)."""
    unread = {u.key for u in unread_keys(config)}
    keys = [key for key in leaf_keys(type(config)) if key not in unread]
    for path in _PART_PATHS:
        table = _table(config, path)
        keys.extend((*path, name) for name in (table.model_extra or {}))
    return keys


# ---- the rules ------------------------------------------------------------------------------
_PART_PATHS: tuple[Key, ...] = (
    ("ga", "mutation"),
    ("ga", "crossover"),
    ("ga", "parents"),
    ("ga", "survival"),
)
_SCHEME_DECIDERS: tuple[Key, ...] = (
    ("ga", "selection"),
    ("ga", "parents", "kind"),
    ("ga", "survival", "kind"),
)


def _rules(config: Config) -> Iterator[Unread]:
    if config.searches.enabled:
        yield from _replaced_by_searches(config)
    else:
        yield from _whole_table(
            config, ("searches",), "searches.enabled is false", exclude={"enabled"}
        )
        yield from _parts(config)
        yield from _ga_switches(config)
        yield from _fitness_switches(config)
        yield from _hybrid(config)
    yield from _parallel(config)
    if not config.tracking.enabled:
        yield from _whole_table(
            config,
            ("tracking",),
            "tracking is off (tracking.enabled is false)",
            exclude={"enabled"},
        )


def _replaced_by_searches(config: Config) -> Iterator[Unread]:
    reason = "a population of searches (searches.enabled) runs push-fess settings, not genomes"
    for table in ("ga", "fitness", "hybrid"):
        yield from _whole_table(config, (table,), reason, deciders=(("searches", "enabled"),))


def _parts(config: Config) -> Iterator[Unread]:
    """The keys of the part tables and of [ga] that the configured parts do not read."""
    from evosoko.evolve.parts import parts_of

    parts = parts_of(config)
    ga = config.ga
    for path, part in (
        (("ga", "mutation"), parts.mutation),
        (("ga", "crossover"), parts.crossover),
    ):
        table = _table(config, path)
        shared = type(table).shared
        reads = [k for k in type(table).model_fields if k in shared or k in part.params]
        reads += [k for k in part.params if k not in reads]
        what = f'the {part.operator.kind} "{part.name}" ({".".join(path)}.kind) does not take it'
        for name in type(table).model_fields:
            if name not in reads:
                yield Unread((*path, name), what, ((*path, "kind"),), tuple(reads))
    selections = ((parts.parents, ga.parents), (parts.survival, ga.survival))
    taken = {name for part, table in selections for name in _from_ga(part, table, ga)}
    scheme = f'ga.selection = "{ga.selection}"'
    chosen = (
        f'the parent selection "{parts.parents.name}" and the survival "{parts.survival.name}" '
        f"({scheme}"
        + (", ga.parents.kind" if ga.parents.kind else "")
        + (", ga.survival.kind" if ga.survival.kind else "")
        + ") do not take it"
    )
    used = tuple(sorted(taken & set(type(ga).model_fields)))
    for name in _SELECTION_KEYS:
        if name not in taken:
            yield Unread(("ga", name), chosen, _SCHEME_DECIDERS, used)


def _from_ga(part: Any, table: Any, ga: GAConfig) -> set[str]:
    """The parameters ``part`` takes from [ga], not from its own table (as
    :func:`evosoko.evolve.parts.parts_of` gives them)."""
    given = table.params if table.operator is part.operator else {}
    return {
        name
        for name in part.operator.params.model_fields
        if name not in given
        and name not in type(table).model_fields
        and name in type(ga).model_fields
    }


_SELECTION_KEYS = ("tournament_size", "truncation", "elitism")
"""The [ga] keys that only selections read (as parameters of the parts that take them)."""


def _ga_switches(config: Config) -> Iterator[Unread]:
    ga = config.ga
    multi = _multi_objective(config)
    if ga.encoding == "pushes":
        yield _unread(
            ("ga", "mutation", "push_macro"),
            'the push macro extends move genomes (ga.encoding = "moves")',
            ("ga", "encoding"),
        )
    else:
        yield _unread(
            ("ga", "mutation", "box_macro"),
            'the box macro extends push genomes (ga.encoding = "pushes")',
            ("ga", "encoding"),
        )
    if ga.grow_while_under == 0:
        yield _unread(
            ("ga", "grow_by"), "growth is off (ga.grow_while_under = 0)", ("ga", "grow_while_under")
        )
    if multi:
        why = (
            "multi-objective survival (NSGA-II) has no single ranking to age or to press by length"
        )
        for name in ("age_patience", "length_pressure", "age_memory", "age_visits"):
            yield Unread(("ga", name), why, _SCHEME_DECIDERS)
    elif ga.age_patience is None:
        for name in ("age_memory", "age_visits"):
            yield _unread(
                ("ga", name), "aging is off (ga.age_patience unset)", ("ga", "age_patience")
            )
    elif not ga.age_memory:
        yield _unread(
            ("ga", "age_visits"),
            "visits age remembered positions (ga.age_memory is false)",
            ("ga", "age_memory"),
        )
    if ga.islands.count == 1:
        yield from _whole_table(
            config,
            ("ga", "islands"),
            "one island (ga.islands.count = 1) never migrates",
            exclude={"count"},
            deciders=(("ga", "islands", "count"),),
        )


def _fitness_switches(config: Config) -> Iterator[Unread]:
    from evosoko.evolve.parts import parts_of

    ga, fitness = config.ga, config.fitness
    encoding = ("ga", "encoding")
    if not parts_of(config).archive:
        why = "only an archive survival (MAP-Elites) keeps individuals by their FESS cell"
        yield Unread(("fitness", "fess_cells"), why, _SCHEME_DECIDERS)
    if ga.encoding == "moves":
        for name in ("plan_weight", "lost_search_nodes", "lost_search_age", "pi_corrals"):
            yield _unread(("fitness", name), 'push genomes only (ga.encoding = "pushes")', encoding)
    if _multi_objective(config):
        why = "multi-objective survival (NSGA-II) ranks no single best position to search"
        for name in ("lost_search_nodes", "lost_search_age"):
            yield Unread(("fitness", name), why, _SCHEME_DECIDERS)
    if fitness.lost_search_nodes == 0:
        yield _unread(
            ("fitness", "lost_search_age"),
            "the lost search is off (fitness.lost_search_nodes = 0)",
            ("fitness", "lost_search_nodes"),
        )
    if fitness.learned_lost == "off":
        for name in ("learned_lost_weight", "learned_model"):
            yield _unread(
                ("fitness", name),
                'the learned term is off (fitness.learned_lost = "off")',
                ("fitness", "learned_lost"),
            )
    elif fitness.learned_lost == "tiebreak":
        yield _unread(
            ("fitness", "learned_lost_weight"),
            'a tiebreak has no weight (fitness.learned_lost = "tiebreak")',
            ("fitness", "learned_lost"),
        )


def _hybrid(config: Config) -> Iterator[Unread]:
    hybrid = config.hybrid
    if not hybrid.enabled:
        yield from _whole_table(
            config,
            ("hybrid",),
            "search seeding is off (hybrid.enabled is false)",
            exclude={"enabled"},
            deciders=(("hybrid", "enabled"),),
        )
    elif hybrid.memetic_every is None:
        yield _unread(
            ("hybrid", "memetic_node_budget"),
            "the memetic step is off (hybrid.memetic_every unset)",
            ("hybrid", "memetic_every"),
        )


def _parallel(config: Config) -> Iterator[Unread]:
    backend = config.parallel.backend
    decider = ("parallel", "backend")
    if backend == "dask" or (backend != "processes" and config.ga.islands.count == 1):
        yield _unread(
            ("parallel", "workers"), f"the {backend} backend starts no worker processes", decider
        )
    if backend != "dask":
        for name in ("address", "local_workers", "retries"):
            yield _unread(("parallel", name), f"a Dask key, and the backend is {backend}", decider)


def _multi_objective(config: Config) -> bool:
    from evosoko.evolve.parts import parts_of

    return parts_of(config).multi_objective


# ---- helpers -------------------------------------------------------------------------------
def _unread(key: Key, reason: str, decider: Key) -> Unread:
    return Unread(key, reason, (decider,))


def _whole_table(
    config: Config,
    path: Key,
    reason: str,
    *,
    exclude: set[str] = frozenset(),  # type: ignore[assignment]
    deciders: tuple[Key, ...] | None = None,
) -> Iterator[Unread]:
    deciders = deciders if deciders is not None else ((*path, "enabled"),)
    for key in leaf_keys(type(_table(config, path)), path):
        if key[len(path)] not in exclude:
            yield Unread(key, reason, deciders)


def _table(config: BaseModel, path: Key) -> Any:
    table: Any = config
    for name in path:
        table = getattr(table, name)
    return table


def _value_and_default(config: Config, key: Key) -> tuple[Any, Any]:
    *path, name = key
    table = _table(config, tuple(path))
    field = type(table).model_fields[name]
    return getattr(table, name), field.get_default(call_default_factory=True)
