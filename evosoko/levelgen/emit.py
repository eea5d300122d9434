"""The levels a run hands out, each with its certificate, checked before it is written.

:func:`emitted_levels` picks them from the population (the best ``keep`` distinct ones; NSGA-II:
the first front; MAP-Elites: every cell's elite) and gives each its notes: the certifier, the
solution's ``Pushes``, ``Moves`` and ``BoxChanges``, the certifier's ``Expanded`` nodes, each
objective's value, the archive cell, the generation that found it and the ``Solution``. The
solution is replayed on the written board first: a level whose solution does not solve it is
never emitted (:class:`~evosoko.errors.SolutionError`, a bug).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deap import tools

from evosoko.errors import SolutionError
from evosoko.levelgen.evolution import LevelEvolution
from evosoko.sokoban.level import Level
from evosoko.sokoban.solution_files import SOLUTION_NOTE
from evosoko.sokoban.solutions import verify_solution


def chosen_individuals(evolution: LevelEvolution, keep: int) -> list[Any]:
    """The individuals a run emits, best first (MAP-Elites: in cell order)."""
    settings, population = evolution.settings, list(evolution.population)
    if settings.archive_run:
        return population
    if settings.multi_objective and population:
        front = tools.sortNondominated(population, len(population), first_front_only=True)[0]
        return sorted(front, key=lambda individual: individual.fitness.wvalues, reverse=True)
    ranked = sorted(population, key=lambda individual: individual.fitness.wvalues, reverse=True)
    distinct, seen = [], set()
    for individual in ranked:
        if individual.evaluation.key not in seen:
            seen.add(individual.evaluation.key)
            distinct.append(individual)
    return distinct[:keep]


def emitted_levels(evolution: LevelEvolution, keep: int) -> list[Level]:
    """The levels of :func:`chosen_individuals`, titled ``<name>-01`` ..., with their
    certificates as notes, each solution replay-verified on the level as written."""
    chosen = chosen_individuals(evolution, keep)
    digits = max(2, len(str(len(chosen))))
    name = evolution.settings.name
    return [
        certified_level(evolution, individual, f"{name}-{number:0{digits}d}")
        for number, individual in enumerate(chosen, start=1)
    ]


def certified_level(evolution: LevelEvolution, individual: Any, title: str) -> Level:
    """One individual as a level with its certificate's notes (verified)."""
    settings, score = evolution.settings, individual.evaluation
    certificate = score.certificate
    notes: list[tuple[str, str]] = [
        ("Certifier", settings.certificate.algorithm),
        ("Pushes", str(certificate.pushes)),
        ("Moves", str(certificate.moves)),
        ("BoxChanges", str(certificate.box_changes)),
        ("Expanded", str(certificate.expanded)),
    ]
    notes += objective_notes(evolution, score.values)
    if settings.archive_run and score.features is not None:
        notes.append(("Cell", cell_text(evolution, score.features)))
    notes += [("Generation", str(score.generation)), (SOLUTION_NOTE, certificate.solution or "")]
    level = evolution.space.level(individual, title=title, notes=notes)
    check = verify_solution(level, certificate.solution or "")
    if not (check.valid and check.solved and check.pushes == certificate.pushes):
        raise SolutionError(
            f"{title}: its certificate does not solve the level as written "
            f"({check.error or f'{check.pushes} pushes, solved {check.solved}'})"
        )
    return level


def objective_notes(
    evolution: LevelEvolution, values: Sequence[float] | None
) -> list[tuple[str, str]]:
    """``Objective <label>: value`` for the objectives the certificate notes do not hold."""
    shown = {"pushes", "moves", "box_changes", "expanded"}
    notes = []
    for table, value in zip(evolution.settings.objective, values or (), strict=False):
        if table.label not in shown:
            notes.append((f"Objective {table.label}", _number(value)))
    return notes


def cell_text(evolution: LevelEvolution, features: Sequence[float]) -> str:
    """The archive cell of a level as ``feature=value`` pairs, e.g. ``boxes=4 floor=21``."""
    names = evolution.settings.archive.features
    return " ".join(f"{name}={_number(value)}" for name, value in zip(names, features, strict=True))


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"
