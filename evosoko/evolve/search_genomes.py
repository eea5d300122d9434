"""The genome of a population of searches and what one member's search did: the knobs of
push-fess a genome chooses (:data:`KNOBS`), the settings it stands for, and
:class:`SearchOutcome` (see :mod:`evosoko.evolve.search_population`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from evosoko.search.settings import FessSettings
from evosoko.status import STATUSES, Status, read_stop

__all__ = ["KNOBS", "SearchOutcome", "genome_of", "outcome_of", "settings_of"]


def _knobs() -> dict[str, tuple]:
    knobs = {}
    for name, info in FessSettings.model_fields.items():
        extra = info.json_schema_extra
        if isinstance(extra, dict) and "choices" in extra:
            choices = extra["choices"]
            assert isinstance(choices, list)
            knobs[name] = tuple(tuple(c) if isinstance(c, list) else c for c in choices)
    return knobs


KNOBS: dict[str, tuple] = _knobs()
"""Each knob of :class:`~evosoko.search.settings.FessSettings` a genome sets (in the order of
its fields), with the values its gene chooses from (the default among them)."""


def settings_of(genome: Sequence[int], base: FessSettings | None = None) -> FessSettings:
    """The push-fess settings a genome chooses (its knobs; the other fields ``base``'s, None:
    the defaults)."""
    if len(genome) != len(KNOBS):
        raise ValueError(f"a search genome has {len(KNOBS)} genes, not {len(genome)}")
    chosen = {k: v[g] for (k, v), g in zip(KNOBS.items(), genome, strict=True)}
    return (base or FessSettings()).model_copy(update=chosen)


def genome_of(settings: FessSettings) -> list[int]:
    """The genome of ``settings`` (each knob's value must be one of its choices)."""
    genome = []
    for knob, choices in KNOBS.items():
        value = getattr(settings, knob)
        if value not in choices:
            raise ValueError(
                f"search.fess.{knob} = {value!r} is not among the values the population of "
                f"searches evolves it over: {', '.join(repr(c) for c in choices)}"
            )
        genome.append(choices.index(value))
    return genome


class SearchOutcome(NamedTuple):
    """What one member's search did: ``distance`` (the heuristic of its closest frontier
    state; 0 when solved), the LURD path there (the solution when solved), its counts, and
    ``packing``: the most goals filled in packing order by a frontier state it left (all of
    them when solved)."""

    distance: int
    lurd: str
    solved: bool
    moves: int
    pushes: int
    expanded: int
    status: Status
    packing: int = 0

    @property
    def rank(self) -> tuple[int, int, int]:
        """Smaller is better: solved first, then more packing, then a lower distance."""
        return (0 if self.solved else 1, -self.packing, self.distance)


def outcome_of(values: Sequence[Any]) -> SearchOutcome:
    """An outcome from its fields in order (a checkpoint's; older ones name the search's stop
    ``timeout`` or ``node-limit``, read as ``budget``); ``ValueError`` when they do not fit."""
    distance, lurd, solved, moves, pushes, expanded, status, *packing = values
    counts = [distance, moves, pushes, expanded, *packing]
    if not (all(isinstance(v, int) and v >= 0 for v in counts) and isinstance(lurd, str)):
        raise ValueError("not the outcome of a search")
    if len(packing) > 1 or not isinstance(solved, bool):
        raise ValueError("not the outcome of a search")
    return SearchOutcome(
        distance,
        lurd,
        solved,
        moves,
        pushes,
        expanded,
        Status(status) if status in STATUSES else read_stop(status).status,
        *packing,
    )
