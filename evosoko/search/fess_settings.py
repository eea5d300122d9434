"""push-fess with its tuning knobs as values: :class:`FessSettings` and :func:`solve_fess`.

The module constants of :mod:`evosoko.search.fess` are the settings every ``push-fess`` run
shares. A run of :func:`solve_fess` takes its own instead, so several differently tuned
searches can run in one process, one after another: the population of searches
(:mod:`evosoko.evolve.search_population`) evolves them per level.
"""

from __future__ import annotations

from dataclasses import dataclass

from evosoko.search import fess, fess_space
from evosoko.search.algorithms import algorithm_named, heuristic_for
from evosoko.search.clocks import Clock
from evosoko.search.fess import FeatureSpaceRun
from evosoko.search.result import SearchResult
from evosoko.search.search_run import DEFAULT_MEMORY, Pruning
from evosoko.search.solver import check_arguments, warm_up
from evosoko.sokoban.level import Level

__all__ = ["FessSettings", "solve_fess"]


@dataclass(frozen=True, slots=True)
class FessSettings:
    """The knobs of one push-fess run (each field named after the constant of
    :mod:`evosoko.search.fess` it stands for; ``weight``: the heuristic weight of its keys,
    ``connectivity_limit``: ``fess_space.CONNECTIVITY_LIMIT``)."""

    weight: float = 3.0
    alternate: int = 3
    room_cap: int = 1
    corral_deadlocks: int = 200
    pack_macros: int = 0
    cluster_deadlocks: int = 0
    connectivity_limit: int = 8
    cell_weights: tuple[int, int] = (-1, -1)

    @classmethod
    def shipped(cls) -> FessSettings:
        """The settings ``push-fess`` runs with now (the module constants)."""
        g_weight, h_weight = fess.CELL_WEIGHTS
        return cls(
            weight=3.0,
            alternate=fess.ALTERNATE,
            room_cap=fess.ROOM_LINKS,
            corral_deadlocks=fess.CORRAL_DEADLOCKS,
            pack_macros=fess.PACK_MACROS,
            cluster_deadlocks=fess.CLUSTER_DEADLOCKS,
            connectivity_limit=fess_space.CONNECTIVITY_LIMIT,
            cell_weights=(int(g_weight), int(h_weight)),
        )

    def __str__(self) -> str:
        g, h = self.cell_weights
        return (
            f"w={self.weight:g} alt={self.alternate} rooms={self.room_cap} "
            f"corral={self.corral_deadlocks} pack={self.pack_macros} "
            f"cluster={self.cluster_deadlocks} conn={self.connectivity_limit} cell=({g},{h})"
        )


class SettingsRun(FeatureSpaceRun):
    """A push-fess run that reads its knobs from a :class:`FessSettings`."""

    def __init__(self, level, settings: FessSettings, *arguments, **keywords):
        self.settings = settings
        super().__init__(level, *arguments, **keywords)

    @property
    def alternate(self) -> int:
        return self.settings.alternate

    @property
    def pack_macros(self) -> int:
        return self.settings.pack_macros

    @property
    def cell_weights(self) -> tuple[int, int]:
        return self.settings.cell_weights

    @property
    def corral_deadlocks(self) -> int:
        return self.settings.corral_deadlocks

    @property
    def connectivity_limit(self) -> int:
        return self.settings.connectivity_limit

    @property
    def cluster_deadlocks(self) -> int:
        return self.settings.cluster_deadlocks

    @property
    def room_cap(self) -> int:
        return self.settings.room_cap

    @property
    def room_views(self) -> tuple[int, ...] | None:
        return None


def solve_fess(
    level: Level,
    settings: FessSettings,
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    partial: int = 1,
    clock: Clock = "wall",
) -> SearchResult:
    """push-fess on ``level`` with ``settings`` instead of the module constants; otherwise as
    :func:`evosoko.search.solve` (``partial``: best frontier states returned when a budget ends
    it, the closest first)."""
    check_arguments(time_limit, node_limit, settings.weight, partial)
    algorithm = algorithm_named("push-fess")
    warm_up([algorithm.name], level.cells)
    run = SettingsRun(
        level,
        settings,
        algorithm,
        heuristic_for(algorithm, None),
        time_limit,
        node_limit,
        settings.weight,
        Pruning(),
        0,
        DEFAULT_MEMORY,
        clock=clock,
    )
    return run.result(run.search(), partial)
