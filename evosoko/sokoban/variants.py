"""The rules a level is played by, as a value: standard Sokoban or given holes.

:func:`level_rules` picks them once from the level, the one place that asks whether the level
has a box-hole pairing (:mod:`evosoko.sokoban.holes.pairing`); solvers, replays, players, pictures
and commands are handed the value and ask it how the level plays: whether boxes vanish (and which
hole each box belongs to), what counts toward solved, how an objective is named. The variant's rules
themselves are :mod:`evosoko.sokoban.holes.board` (the board) and
:mod:`evosoko.sokoban.holes.pushes` (its compiled push rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from evosoko.sokoban.holes.pairing import GIVEN_HOLES, PAIRS_KEY, STANDARD, Pairing, pairs_note

if TYPE_CHECKING:
    from evosoko.sokoban.level import Level

__all__ = ["STANDARD_RULES", "GivenHolesRules", "Rules", "given_pairing", "level_rules"]


@dataclass(frozen=True)
class Rules:
    """Standard Sokoban: the level is solved when every box stands on a goal."""

    name: ClassVar[str] = STANDARD
    boxes_vanish: ClassVar[bool] = False  # a box pushed into its own hole leaves the board
    home: ClassVar[str] = "boxes on goals"  # what the count of finished boxes counts
    solved_when: ClassVar[str] = "every box is on a goal"

    def pairs(self) -> tuple[tuple[int, int], ...]:
        """(box cell, hole cell) of each box, by box number: none under these rules."""
        return ()

    def note(self) -> str | None:
        """One line that tells a player the rules when they are not the standard ones."""
        return None

    def objective_label(self, heuristic: str) -> str:
        """The name results give a search's ``heuristic`` under these rules."""
        return heuristic


@dataclass(frozen=True)
class GivenHolesRules(Rules):
    """Given holes: each box belongs to one hole and vanishes in it; the level is solved when
    every box has vanished (:mod:`evosoko.sokoban.holes.board`)."""

    name: ClassVar[str] = GIVEN_HOLES
    boxes_vanish: ClassVar[bool] = True
    home: ClassVar[str] = "boxes vanished"
    solved_when: ClassVar[str] = "every box has vanished into its hole"

    pairing: Pairing

    def pairs(self) -> tuple[tuple[int, int], ...]:
        """(box cell, hole cell) of each box, by box number (cells of the level's rows)."""
        return tuple(zip(self.pairing.boxes, self.pairing.holes, strict=True))

    def note(self) -> str | None:
        """The pairs as the level's note writes them, and what becomes of a box."""
        return (
            f"given holes: {PAIRS_KEY} {pairs_note(self.pairing.goal_rows)} (box-hole, both "
            "numbered in reading order); a box vanishes in its own hole"
        )

    def objective_label(self, heuristic: str) -> str:
        """``paired-manhattan`` or ``paired-push-distance``: each box measured to its own hole
        (the names the given-holes searches use)."""
        return "paired-manhattan" if heuristic == "manhattan" else "paired-push-distance"


STANDARD_RULES = Rules()
"""The standard rules (they carry no data)."""


def level_rules(level: Level) -> Rules:
    """The rules ``level`` is played by: the given-holes rules when its notes pair boxes with
    holes, else the standard ones."""
    pairing = level.pairing
    if pairing is None:
        return STANDARD_RULES
    return GivenHolesRules(pairing)


def given_pairing(level: Level) -> Pairing:
    """The box-hole pairing of a given-holes ``level``; :class:`ValueError` for another."""
    rules = level_rules(level)
    if isinstance(rules, GivenHolesRules):
        return rules.pairing
    raise ValueError(f"level {level.name} does not play the given-holes rules")
